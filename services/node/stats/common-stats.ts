/**
 * Elasticsearch's CommonStats: the figures of one shard copy, or the sum of
 * many (an index's primaries, all its copies, a node's copies), and their
 * JSON sections as `_stats`, `_nodes/stats` and `_cluster/stats` print them
 * (docs, store, indexing, get, search, merges, refresh, flush, warmer,
 * query_cache, fielddata, completion, segments, translog, request_cache,
 * recovery). Figures this server does not keep (warmers, fielddata,
 * completion, the request cache, recovery throttling) print as
 * Elasticsearch prints them when it has none: zeros.
 */
import { formatByteSize } from '../../../shared/engine/mapping/byte-size-value.ts';
import { formatTimeValue } from '../../../shared/engine/mapping/time-value.ts';
import { setOwn } from '../../../shared/json/own-keys.ts';
import type { CopyCounterFigures } from '../shard-worker/copy-counters.ts';
import type { CopyStatsView } from './copy-view.ts';
import { simpleMatch } from '../../../shared/engine/mapping/simple-match.ts';

/** `types=a,b*`: which mapping types get indexing figures of their own (undefined: none). */
export function typeMatcher(types: readonly string[] | null): ((t: string) => boolean) | undefined {
  if (types === null) return undefined;
  return (t) => types.some((p) => p === '_all' || simpleMatch(p, t));
}

/** The metric names of `/_stats/{metric}` (RestIndicesStatsAction.METRICS) and the sections they turn on. */
export const INDEX_METRICS: ReadonlyMap<string, readonly Section[]> = new Map([
  ['docs', ['docs']],
  ['store', ['store']],
  ['indexing', ['indexing']],
  ['search', ['search']],
  ['suggest', ['search']],
  ['get', ['get']],
  ['merge', ['merges']],
  ['refresh', ['refresh']],
  ['flush', ['flush']],
  ['warmer', ['warmer']],
  ['query_cache', ['query_cache']],
  ['fielddata', ['fielddata']],
  ['completion', ['completion']],
  ['segments', ['segments']],
  ['translog', ['translog']],
  ['request_cache', ['request_cache']],
  ['recovery', ['recovery']],
]);

export type Section =
  | 'docs'
  | 'store'
  | 'indexing'
  | 'get'
  | 'search'
  | 'merges'
  | 'refresh'
  | 'flush'
  | 'warmer'
  | 'query_cache'
  | 'fielddata'
  | 'completion'
  | 'segments'
  | 'translog'
  | 'request_cache'
  | 'recovery';

/** Every section, in the order Elasticsearch prints them. */
export const ALL_SECTIONS: readonly Section[] = [
  'docs',
  'store',
  'indexing',
  'get',
  'search',
  'merges',
  'refresh',
  'flush',
  'warmer',
  'query_cache',
  'fielddata',
  'completion',
  'segments',
  'translog',
  'request_cache',
  'recovery',
];

type Counters = { -readonly [K in keyof CopyCounterFigures]: number };

interface IndexingFigures {
  indexTotal: number;
  indexTimeMs: number;
  indexFailed: number;
  deleteTotal: number;
  deleteTimeMs: number;
  noopUpdateTotal: number;
}

export interface RenderOptions {
  /** `human=true`: sizes and times also as text (`"size": "1.2kb"`). */
  readonly human: boolean;
  /** `types=`: indexing figures per mapping type whose name matches. */
  readonly types?: (type: string) => boolean;
  /** `include_segment_file_sizes=true`. */
  readonly segmentFileSizes?: boolean;
}

/** The sum of some copies' figures. */
export class CommonStats {
  docCount = 0;
  deletedCount = 0;
  storeBytes = 0;
  segmentCount = 0;
  segmentMemoryBytes = 0;
  versionMapEntries = 0;
  translogOps = 0;
  uncommittedOps = 0;
  recoveringCopies = 0;
  readonly c: Counters;
  readonly fileSizes = new Map<string, number>();
  readonly byType = new Map<string, IndexingFigures>();

  constructor() {
    this.c = {} as Counters;
  }

  add(view: CopyStatsView): this {
    const s = view.stats;
    this.docCount += s.docCount;
    this.deletedCount += s.deletedCount;
    this.storeBytes += s.sizeInBytes;
    this.segmentCount += s.segmentCount;
    this.segmentMemoryBytes += s.segmentMemoryBytes;
    this.versionMapEntries += s.versionMapEntries;
    this.translogOps += view.appliedOffset;
    this.uncommittedOps += Math.max(0, view.appliedOffset - s.committedOffset);
    if (view.state === 'INITIALIZING') this.recoveringCopies++;
    for (const key of Object.keys(s.counters) as (keyof CopyCounterFigures)[]) this.c[key] = (this.c[key] ?? 0) + s.counters[key];
    for (const [ext, bytes] of Object.entries(s.fileSizes)) this.fileSizes.set(ext, (this.fileSizes.get(ext) ?? 0) + bytes);
    if (view.typeName !== null) {
      const t = this.byType.get(view.typeName) ?? { indexTotal: 0, indexTimeMs: 0, indexFailed: 0, deleteTotal: 0, deleteTimeMs: 0, noopUpdateTotal: 0 };
      for (const k of Object.keys(t) as (keyof IndexingFigures)[]) t[k] += s.counters[k];
      this.byType.set(view.typeName, t);
    }
    return this;
  }

  /** A counter (zero when no copy was added). */
  n(key: keyof CopyCounterFigures): number {
    return this.c[key] ?? 0;
  }

  /** The sections asked for, in Elasticsearch's order. */
  render(sections: ReadonlySet<Section>, opts: RenderOptions): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const s of ALL_SECTIONS) if (sections.has(s)) out[s] = this.section(s, opts);
    return out;
  }

  private section(s: Section, opts: RenderOptions): Record<string, unknown> {
    const f = new Fields(opts.human);
    const n = (k: keyof CopyCounterFigures) => this.n(k);
    switch (s) {
      case 'docs':
        return f.num('count', this.docCount).num('deleted', this.deletedCount).out;
      case 'store':
        return f.bytes('size', this.storeBytes).out;
      case 'indexing': {
        indexing(f, {
          indexTotal: n('indexTotal'),
          indexTimeMs: n('indexTimeMs'),
          indexFailed: n('indexFailed'),
          deleteTotal: n('deleteTotal'),
          deleteTimeMs: n('deleteTimeMs'),
          noopUpdateTotal: n('noopUpdateTotal'),
        });
        if (opts.types) {
          const types: Record<string, unknown> = {};
          for (const [type, t] of [...this.byType].sort(([a], [b]) => (a < b ? -1 : 1))) {
            if (opts.types(type)) setOwn(types, type, indexing(new Fields(opts.human), t).out);
          }
          if (Object.keys(types).length > 0) f.out.types = types;
        }
        return f.out;
      }
      case 'get':
        return f
          .num('total', n('getTotal'))
          .millis('time', n('getTimeMs'))
          .num('exists_total', n('getExistsTotal'))
          .millis('exists_time', n('getExistsTimeMs'))
          .num('missing_total', n('getMissingTotal'))
          .millis('missing_time', n('getMissingTimeMs'))
          .num('current', 0).out;
      case 'search':
        return f
          .num('open_contexts', n('openContexts'))
          .num('query_total', n('queryTotal'))
          .millis('query_time', n('queryTimeMs'))
          .num('query_current', 0)
          .num('fetch_total', n('fetchTotal'))
          .millis('fetch_time', n('fetchTimeMs'))
          .num('fetch_current', 0)
          .num('scroll_total', n('scrollTotal'))
          .millis('scroll_time', n('scrollTimeMs'))
          .num('scroll_current', n('scrollCurrent'))
          .num('suggest_total', 0)
          .millis('suggest_time', 0)
          .num('suggest_current', 0).out;
      case 'merges':
        // A merge runs inside one message of its copy's worker: none is ever seen under way.
        return f
          .num('current', 0)
          .num('current_docs', 0)
          .bytes('current_size', 0)
          .num('total', n('mergeTotal'))
          .millis('total_time', n('mergeTimeMs'))
          .num('total_docs', n('mergeDocs'))
          .bytes('total_size', n('mergeBytes'))
          .millis('total_stopped_time', 0)
          .millis('total_throttled_time', 0)
          .bytes('total_auto_throttle', 0).out;
      case 'refresh':
        return f.num('total', n('refreshTotal')).millis('total_time', n('refreshTimeMs')).num('listeners', 0).out;
      case 'flush':
        return f.num('total', n('flushTotal')).num('periodic', n('flushPeriodic')).millis('total_time', n('flushTimeMs')).out;
      case 'warmer':
        return f.num('current', 0).num('total', 0).millis('total_time', 0).out;
      case 'query_cache':
        return f
          .bytes('memory_size', n('queryCacheBytes'))
          .num('total_count', n('queryCacheHits') + n('queryCacheMisses'))
          .num('hit_count', n('queryCacheHits'))
          .num('miss_count', n('queryCacheMisses'))
          .num('cache_size', n('queryCacheEntries'))
          .num('cache_count', n('queryCacheCached'))
          .num('evictions', n('queryCacheEvictions')).out;
      case 'fielddata':
        return f.bytes('memory_size', 0).num('evictions', 0).out;
      case 'completion':
        return f.bytes('size', 0).out;
      case 'segments': {
        f.num('count', this.segmentCount)
          .bytes('memory', this.segmentMemoryBytes)
          .bytes('terms_memory', 0)
          .bytes('stored_fields_memory', 0)
          .bytes('term_vectors_memory', 0)
          .bytes('norms_memory', 0)
          .bytes('points_memory', 0)
          .bytes('doc_values_memory', 0)
          .bytes('index_writer_memory', 0)
          // An entry of the version map (id, version, seq_no, routing) is about 100 bytes on the heap.
          .bytes('version_map_memory', this.versionMapEntries * VERSION_MAP_ENTRY_BYTES)
          .bytes('fixed_bit_set_memory', 0)
          .num('max_unsafe_auto_id_timestamp', -1);
        const sizes: Record<string, unknown> = {};
        if (opts.segmentFileSizes) {
          for (const [ext, bytes] of [...this.fileSizes].sort(([a], [b]) => (a < b ? -1 : 1))) {
            setOwn(sizes, ext, { ...new Fields(opts.human).bytes('size', bytes).out, description: FILE_DESCRIPTIONS[ext] ?? 'Others' });
          }
        }
        f.out.file_sizes = sizes;
        return f.out;
      }
      case 'translog':
        return f
          .num('operations', this.translogOps)
          .bytes('size', 0)
          .num('uncommitted_operations', this.uncommittedOps)
          .bytes('uncommitted_size', 0)
          .num('earliest_last_modified_age', 0).out;
      case 'request_cache':
        return f.bytes('memory_size', 0).num('evictions', 0).num('hit_count', 0).num('miss_count', 0).out;
      case 'recovery':
        return f.num('current_as_source', 0).num('current_as_target', this.recoveringCopies).millis('throttle_time', 0).out;
    }
  }
}

const VERSION_MAP_ENTRY_BYTES = 100;

/** What each segment file holds, as Lucene's file-size stats describe its own. */
const FILE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  si: 'Segment Info',
  tim: 'Term Dictionary',
  doc: 'Frequencies',
  pos: 'Positions',
  dvd: 'DocValues',
  fdt: 'Field Data',
  liv: 'Live Documents',
};

function indexing(f: Fields, t: IndexingFigures): Fields {
  return f
    .num('index_total', t.indexTotal)
    .millis('index_time', t.indexTimeMs)
    .num('index_current', 0)
    .num('index_failed', t.indexFailed)
    .num('delete_total', t.deleteTotal)
    .millis('delete_time', t.deleteTimeMs)
    .num('delete_current', 0)
    .num('noop_update_total', t.noopUpdateTotal)
    .bool('is_throttled', false)
    .millis('throttle_time', 0);
}

/** Builds one section's fields as XContentBuilder does, `human` adding the readable forms first. */
export class Fields {
  readonly out: Record<string, unknown> = {};
  constructor(private readonly human: boolean) {}

  num(name: string, v: number): this {
    this.out[name] = v;
    return this;
  }

  bool(name: string, v: boolean): this {
    this.out[name] = v;
    return this;
  }

  /** `<name>_in_millis` (whole milliseconds), after `<name>` as text with `human`. */
  millis(name: string, ms: number): this {
    if (this.human) this.out[name] = formatTimeValue(Math.floor(ms));
    this.out[`${name}_in_millis`] = Math.floor(ms);
    return this;
  }

  /** `<name>_in_bytes`, after `<name>` as text with `human`. */
  bytes(name: string, bytes: number): this {
    if (this.human) this.out[name] = formatByteSize(bytes);
    this.out[`${name}_in_bytes`] = bytes;
    return this;
  }
}
