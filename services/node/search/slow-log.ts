/**
 * The search and indexing slow logs (Elasticsearch's SearchSlowLog and
 * IndexingSlowLog): a shard's query or fetch phase, or an applied batch of
 * log records, that took longer than one of its index's thresholds
 * (`index.search.slowlog.threshold.{query,fetch}.{warn,info,debug,trace}`,
 * `index.indexing.slowlog.threshold.index.*`; `-1`, the default, is off) is
 * written to the node's log and kept in a small ring for the console, with
 * the trace id of the request it served so the console can open its trace.
 *
 * Deviations (docs/compat.md): the indexing entry is per applied batch (a
 * copy applies records in batches from the log), not per document; entries
 * go to the node's log (at `warn` for the warn level, `info` for the others,
 * the level in `slowlog_level`) rather than to files of their own.
 */
import type { Logger } from '../logger.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { parseTimeValue } from '../../../shared/engine/mapping/time-value.ts';
import { currentTraceId } from '../../../shared/telemetry/spans.ts';

export type SlowLogKind = 'query' | 'fetch' | 'index';
type Level = 'warn' | 'info' | 'debug' | 'trace';
/** Most severe first: an entry takes the first level whose threshold it passed. */
const LEVELS: readonly Level[] = ['warn', 'info', 'debug', 'trace'];

export interface SlowLogEntry {
  readonly timestamp: number;
  readonly level: Level;
  readonly kind: SlowLogKind;
  readonly index: string;
  readonly shard: number;
  readonly node: string;
  readonly tookMs: number;
  /** The trace of the request the work served, when tracing runs. */
  readonly traceId: string | null;
  /** Query phase: the shard's total hits; fetch: hits fetched; index: records applied. */
  readonly count: number;
  /** The search body (query and fetch), cut to SOURCE_CHARS. */
  readonly source: string | null;
}

/** Entries the console can list (each node keeps its own). */
const RING_SIZE = 200;
/** How much of a search body an entry keeps (Elasticsearch logs it whole; this is for a page). */
const SOURCE_CHARS = 2000;

const thresholdKey = (kind: SlowLogKind, level: Level) =>
  kind === 'index' ? `index.indexing.slowlog.threshold.index.${level}` : `index.search.slowlog.threshold.${kind}.${level}`;
const levelKey = (kind: SlowLogKind) => (kind === 'index' ? 'index.indexing.slowlog.level' : 'index.search.slowlog.level');

/** Per kind, the thresholds in ms by level (-1 off), and the least severe level logged. */
interface Thresholds {
  readonly byKind: Readonly<Record<SlowLogKind, readonly number[]>>;
  readonly minLevel: Readonly<Record<SlowLogKind, number>>;
}

function settingOf(flat: IndexMetadata['settings']['flat'], key: string): string | null {
  return Object.hasOwn(flat, key) ? String(flat[key]) : null;
}

function parseThresholds(flat: IndexMetadata['settings']['flat']): Thresholds {
  const byKind = {} as Record<SlowLogKind, number[]>;
  const minLevel = {} as Record<SlowLogKind, number>;
  for (const kind of ['query', 'fetch', 'index'] as const) {
    byKind[kind] = LEVELS.map((level) => {
      const v = settingOf(flat, thresholdKey(kind, level));
      if (v === null) return -1;
      try {
        return parseTimeValue(v, thresholdKey(kind, level));
      } catch {
        return -1; // refused when the setting was made (index-settings.ts); an old index's bad value logs nothing
      }
    });
    const lv = (settingOf(flat, levelKey(kind)) ?? 'TRACE').toLowerCase();
    const i = LEVELS.indexOf(lv as Level);
    minLevel[kind] = i < 0 ? LEVELS.length - 1 : i;
  }
  return { byKind, minLevel };
}

export class SlowLog {
  private readonly ring: SlowLogEntry[] = [];
  private next = 0;
  /** Parsed once per settings object (a settings update makes a new one). */
  private readonly parsed = new WeakMap<object, Thresholds>();

  constructor(
    private readonly logger: Logger,
    private readonly nodeName: string,
  ) {}

  private thresholds(meta: IndexMetadata): Thresholds {
    const flat = meta.settings.flat;
    let t = this.parsed.get(flat);
    if (t === undefined) this.parsed.set(flat, (t = parseThresholds(flat)));
    return t;
  }

  /** Whether any threshold of `kind` is set on the index (so the caller need not even look at the clock). */
  watches(meta: IndexMetadata, kind: SlowLogKind): boolean {
    return this.thresholds(meta).byKind[kind].some((ms) => ms >= 0);
  }

  /**
   * Logs the work if it took longer than a threshold of its index. Called in
   * the context of the work's span, whose trace the entry names.
   */
  record(meta: IndexMetadata, shard: number, kind: SlowLogKind, tookMs: number, count: number, source: unknown = null): void {
    const t = this.thresholds(meta);
    const limits = t.byKind[kind];
    let levelIndex = -1;
    for (let i = 0; i < LEVELS.length; i++) {
      if (limits[i]! >= 0 && tookMs >= limits[i]!) {
        levelIndex = i;
        break;
      }
    }
    if (levelIndex < 0 || levelIndex > t.minLevel[kind]) return;
    const level = LEVELS[levelIndex]!;
    let text: string | null = null;
    if (source !== null && source !== undefined) {
      // The body travels as the client's bytes, or parsed.
      text = source instanceof Uint8Array ? Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8') : typeof source === 'string' ? source : JSON.stringify(source);
      if (text.length > SOURCE_CHARS) text = `${text.slice(0, SOURCE_CHARS)}…`;
    }
    const entry: SlowLogEntry = {
      timestamp: Date.now(),
      level,
      kind,
      index: meta.name,
      shard,
      node: this.nodeName,
      tookMs,
      traceId: currentTraceId(),
      count,
      source: text,
    };
    if (this.ring.length < RING_SIZE) this.ring.push(entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % RING_SIZE;
    const what = kind === 'query' ? `total_hits[${count}]` : kind === 'fetch' ? `hits[${count}]` : `operations[${count}]`;
    const message =
      `[${meta.name}][${shard}] took[${tookMs.toFixed(1)}ms], took_millis[${Math.round(tookMs)}], ${what}` +
      (text === null ? '' : `, source[${text}]`) +
      (entry.traceId === null ? '' : `, trace.id[${entry.traceId}]`);
    const logger = kind === 'index' ? 'index.indexing.slowlog.index' : `index.search.slowlog.${kind}`;
    this.logger[level === 'warn' ? 'warn' : 'info']({ component: logger, slowlog_level: level.toUpperCase(), trace_id: entry.traceId ?? undefined }, message);
  }

  /** The entries held, newest first. */
  recent(): SlowLogEntry[] {
    return [...this.ring].sort((a, b) => b.timestamp - a.timestamp);
  }
}
