/**
 * Scroll ids (DESIGN.md 2, "Scroll"), self-describing as Elasticsearch's
 * are: for each shard of the scroll, the node that holds its search context
 * and the context's id there, with the index and shard number; and what
 * any coordinator needs to continue: the batch size, the total hits of the
 * first page, the sort (to merge the shards' pages) and the keep-alive that
 * a continuation without `scroll` renews. Where each shard continues lives
 * with its context (search/search-contexts.ts), so the id stays the same for
 * the whole scroll and any node of the cluster can continue it.
 *
 * To a client the id is an opaque token: base64url of a small JSON document.
 */
import { illegalArgument, illegalArgumentCause, type EsError } from '../../../shared/errors/es-errors.ts';
import type { SortSpec } from '../../../shared/engine/search/types.ts';

export interface ScrollShard {
  /** Id of the node holding the context. */
  readonly node: string;
  readonly indexUuid: string;
  readonly index: string;
  readonly shard: number;
  readonly context: number;
  /** `indices_boost` of the shard's index (1 when none). */
  readonly boost: number;
}

export interface ScrollId {
  /** Hits per page. */
  readonly size: number;
  /** `hits.total` of every page: the first page's. */
  readonly total: number;
  /** The search's sort (null = by score). */
  readonly sort: readonly SortSpec[] | null;
  readonly trackScores: boolean;
  /** The keep-alive the scroll was opened with. */
  readonly keepAliveMs: number;
  /** The shards that answered the first page, in the order their hits merge. */
  readonly shards: readonly ScrollShard[];
}

const FORMAT_VERSION = 1;

/** The JSON inside the token: nodes and indices are listed once and referred to by position. */
interface Wire {
  v: number;
  n: number;
  t: number;
  s: SortSpec[] | null;
  ts: boolean;
  k: number;
  nodes: string[];
  /** [uuid, name] */
  ix: [string, string][];
  /** [node, index, shard, context, boost] */
  c: [number, number, number, number, number][];
}

export function encodeScrollId(id: ScrollId): string {
  const nodes: string[] = [];
  const indices: [string, string][] = [];
  const c: Wire['c'] = id.shards.map((s) => {
    let n = nodes.indexOf(s.node);
    if (n < 0) n = nodes.push(s.node) - 1;
    let x = indices.findIndex(([uuid]) => uuid === s.indexUuid);
    if (x < 0) x = indices.push([s.indexUuid, s.index]) - 1;
    return [n, x, s.shard, s.context, s.boost];
  });
  const wire: Wire = { v: FORMAT_VERSION, n: id.size, t: id.total, s: id.sort === null ? null : [...id.sort], ts: id.trackScores, k: id.keepAliveMs, nodes, ix: indices, c };
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

/** Elasticsearch's answer to an id it cannot read (TransportSearchHelper.parseScrollId). */
function cannotParse(cause: string): EsError {
  return illegalArgument('Cannot parse scroll id', illegalArgumentCause(cause));
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function checkSort(s: unknown): s is SortSpec[] | null {
  if (s === null) return true;
  return (
    Array.isArray(s) &&
    s.every((x: unknown) => {
      const spec = x as { kind?: unknown; order?: unknown; field?: unknown };
      if (spec === null || typeof spec !== 'object' || (spec.order !== 'asc' && spec.order !== 'desc')) return false;
      return spec.kind === 'score' || spec.kind === 'doc' || ((spec.kind === 'field' || spec.kind === 'geo_distance') && typeof spec.field === 'string');
    })
  );
}

export function decodeScrollId(text: string): ScrollId {
  let w: Wire;
  try {
    w = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Wire;
  } catch (err) {
    throw cannotParse(err instanceof Error ? err.message : String(err));
  }
  if (w === null || typeof w !== 'object' || w.v !== FORMAT_VERSION) throw cannotParse('not a scroll id of this version');
  const ok =
    isCount(w.n) &&
    isCount(w.t) &&
    isCount(w.k) &&
    typeof w.ts === 'boolean' &&
    checkSort(w.s) &&
    Array.isArray(w.nodes) &&
    w.nodes.every((n) => typeof n === 'string') &&
    Array.isArray(w.ix) &&
    w.ix.every((x) => Array.isArray(x) && typeof x[0] === 'string' && typeof x[1] === 'string') &&
    Array.isArray(w.c) &&
    w.c.every(
      (c) =>
        Array.isArray(c) &&
        c.length === 5 &&
        isCount(c[0]) &&
        c[0] < w.nodes.length &&
        isCount(c[1]) &&
        c[1] < w.ix.length &&
        isCount(c[2]) &&
        isCount(c[3]) &&
        typeof c[4] === 'number',
    );
  if (!ok) throw cannotParse('malformed scroll id');
  return {
    size: w.n,
    total: w.t,
    sort: w.s,
    trackScores: w.ts,
    keepAliveMs: w.k,
    shards: w.c.map(([n, x, shard, context, boost]) => ({ node: w.nodes[n]!, indexUuid: w.ix[x]![0], index: w.ix[x]![1], shard, context, boost })),
  };
}
