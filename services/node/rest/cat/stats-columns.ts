/**
 * The stats columns `_cat/indices`, `_cat/shards` and `_cat/nodes` share
 * (completion, fielddata, caches, flush, get, indexing, merges, refresh,
 * search, segments, warmer, suggest), with Elasticsearch's names, aliases
 * and descriptions, read from a CommonStats sum.
 */
import type { CommonStats } from '../../stats/common-stats.ts';
import { Bytes, Millis, col, type Cell, type Column } from './table.ts';

export interface StatColumn {
  readonly name: string;
  readonly aliases: string;
  readonly desc: string;
  readonly value: (s: CommonStats) => Cell;
}

const stat = (name: string, aliases: string, desc: string, value: (s: CommonStats) => Cell): StatColumn => ({ name, aliases, desc, value });
const zero = () => 0;
const zeroBytes = () => new Bytes(0);
const zeroTime = () => new Millis(0);

const COMPLETION = [stat('completion.size', 'cs,completionSize', 'size of completion', zeroBytes)];
const FIELDDATA = [
  stat('fielddata.memory_size', 'fm,fielddataMemory', 'used fielddata cache', zeroBytes),
  stat('fielddata.evictions', 'fe,fielddataEvictions', 'fielddata evictions', zero),
];
const QUERY_CACHE = [
  stat('query_cache.memory_size', 'qcm,queryCacheMemory', 'used query cache', (s) => new Bytes(s.n('queryCacheBytes'))),
  stat('query_cache.evictions', 'qce,queryCacheEvictions', 'query cache evictions', (s) => s.n('queryCacheEvictions')),
];
const QUERY_CACHE_COUNTS = [
  stat('query_cache.hit_count', 'qchc,queryCacheHitCount', 'query cache hit counts', (s) => s.n('queryCacheHits')),
  stat('query_cache.miss_count', 'qcmc,queryCacheMissCount', 'query cache miss counts', (s) => s.n('queryCacheMisses')),
];
const REQUEST_CACHE = [
  stat('request_cache.memory_size', 'rcm,requestCacheMemory', 'used request cache', zeroBytes),
  stat('request_cache.evictions', 'rce,requestCacheEvictions', 'request cache evictions', zero),
  stat('request_cache.hit_count', 'rchc,requestCacheHitCount', 'request cache hit count', zero),
  stat('request_cache.miss_count', 'rcmc,requestCacheMissCount', 'request cache miss count', zero),
];
const FLUSH = [
  stat('flush.total', 'ft,flushTotal', 'number of flushes', (s) => s.n('flushTotal')),
  stat('flush.total_time', 'ftt,flushTotalTime', 'time spent in flush', (s) => new Millis(Math.floor(s.n('flushTimeMs')))),
];
const GET = [
  stat('get.current', 'gc,getCurrent', 'number of current get ops', zero),
  stat('get.time', 'gti,getTime', 'time spent in get', (s) => new Millis(Math.floor(s.n('getTimeMs')))),
  stat('get.total', 'gto,getTotal', 'number of get ops', (s) => s.n('getTotal')),
  stat('get.exists_time', 'geti,getExistsTime', 'time spent in successful gets', (s) => new Millis(Math.floor(s.n('getExistsTimeMs')))),
  stat('get.exists_total', 'geto,getExistsTotal', 'number of successful gets', (s) => s.n('getExistsTotal')),
  stat('get.missing_time', 'gmti,getMissingTime', 'time spent in failed gets', (s) => new Millis(Math.floor(s.n('getMissingTimeMs')))),
  stat('get.missing_total', 'gmto,getMissingTotal', 'number of failed gets', (s) => s.n('getMissingTotal')),
];
const INDEXING = [
  stat('indexing.delete_current', 'idc,indexingDeleteCurrent', 'number of current deletions', zero),
  stat('indexing.delete_time', 'idti,indexingDeleteTime', 'time spent in deletions', (s) => new Millis(Math.floor(s.n('deleteTimeMs')))),
  stat('indexing.delete_total', 'idto,indexingDeleteTotal', 'number of delete ops', (s) => s.n('deleteTotal')),
  stat('indexing.index_current', 'iic,indexingIndexCurrent', 'number of current indexing ops', zero),
  stat('indexing.index_time', 'iiti,indexingIndexTime', 'time spent in indexing', (s) => new Millis(Math.floor(s.n('indexTimeMs')))),
  stat('indexing.index_total', 'iito,indexingIndexTotal', 'number of indexing ops', (s) => s.n('indexTotal')),
  stat('indexing.index_failed', 'iif,indexingIndexFailed', 'number of failed indexing ops', (s) => s.n('indexFailed')),
];
const MERGES = [
  stat('merges.current', 'mc,mergesCurrent', 'number of current merges', zero),
  stat('merges.current_docs', 'mcd,mergesCurrentDocs', 'number of current merging docs', zero),
  stat('merges.current_size', 'mcs,mergesCurrentSize', 'size of current merges', zeroBytes),
  stat('merges.total', 'mt,mergesTotal', 'number of completed merge ops', (s) => s.n('mergeTotal')),
  stat('merges.total_docs', 'mtd,mergesTotalDocs', 'docs merged', (s) => s.n('mergeDocs')),
  stat('merges.total_size', 'mts,mergesTotalSize', 'size merged', (s) => new Bytes(s.n('mergeBytes'))),
  stat('merges.total_time', 'mtt,mergesTotalTime', 'time spent in merges', (s) => new Millis(Math.floor(s.n('mergeTimeMs')))),
];
const REFRESH = [
  stat('refresh.total', 'rto,refreshTotal', 'total refreshes', (s) => s.n('refreshTotal')),
  stat('refresh.time', 'rti,refreshTime', 'time spent in refreshes', (s) => new Millis(Math.floor(s.n('refreshTimeMs')))),
  stat('refresh.listeners', 'rli,refreshListeners', 'number of pending refresh listeners', zero),
];
const SCRIPT = [
  stat('script.compilations', 'scrcc,scriptCompilations', 'script compilations', zero),
  stat('script.cache_evictions', 'scrce,scriptCacheEvictions', 'script cache evictions', zero),
];
const SEARCH = [
  stat('search.fetch_current', 'sfc,searchFetchCurrent', 'current fetch phase ops', zero),
  stat('search.fetch_time', 'sfti,searchFetchTime', 'time spent in fetch phase', (s) => new Millis(Math.floor(s.n('fetchTimeMs')))),
  stat('search.fetch_total', 'sfto,searchFetchTotal', 'total fetch ops', (s) => s.n('fetchTotal')),
  stat('search.open_contexts', 'so,searchOpenContexts', 'open search contexts', (s) => s.n('openContexts')),
  stat('search.query_current', 'sqc,searchQueryCurrent', 'current query phase ops', zero),
  stat('search.query_time', 'sqti,searchQueryTime', 'time spent in query phase', (s) => new Millis(Math.floor(s.n('queryTimeMs')))),
  stat('search.query_total', 'sqto,searchQueryTotal', 'total query phase ops', (s) => s.n('queryTotal')),
  stat('search.scroll_current', 'scc,searchScrollCurrent', 'open scroll contexts', (s) => s.n('scrollCurrent')),
  stat('search.scroll_time', 'scti,searchScrollTime', 'time scroll contexts held open', (s) => new Millis(Math.floor(s.n('scrollTimeMs')))),
  stat('search.scroll_total', 'scto,searchScrollTotal', 'completed scroll contexts', (s) => s.n('scrollTotal')),
];
const SEGMENTS = [
  stat('segments.count', 'sc,segmentsCount', 'number of segments', (s) => s.segmentCount),
  stat('segments.memory', 'sm,segmentsMemory', 'memory used by segments', (s) => new Bytes(s.segmentMemoryBytes)),
  stat('segments.index_writer_memory', 'siwm,segmentsIndexWriterMemory', 'memory used by index writer', zeroBytes),
  stat('segments.version_map_memory', 'svmm,segmentsVersionMapMemory', 'memory used by version map', (s) => new Bytes(s.versionMapEntries * 100)),
  stat(
    'segments.fixed_bitset_memory',
    'sfbm,fixedBitsetMemory',
    'memory used by fixed bit sets for nested object field types and type filters for types referred in _parent fields',
    zeroBytes,
  ),
];
const WARMER = [
  stat('warmer.current', 'wc,warmerCurrent', 'current warmer ops', zero),
  stat('warmer.total', 'wto,warmerTotal', 'total warmer ops', zero),
  stat('warmer.total_time', 'wtt,warmerTotalTime', 'time spent in warmers', zeroTime),
];
const SUGGEST = [
  stat('suggest.current', 'suc,suggestCurrent', 'number of current suggest ops', zero),
  stat('suggest.time', 'suti,suggestTime', 'time spend in suggest', zeroTime),
  stat('suggest.total', 'suto,suggestTotal', 'number of suggest ops', zero),
];
const MEMORY = [stat('memory.total', 'tm,memoryTotal', 'total used memory', (s) => new Bytes(s.segmentMemoryBytes + s.n('queryCacheBytes')))];

/** `_cat/indices` statistics after `store.size` (RestIndicesAction). */
export const INDEX_STAT_COLUMNS: readonly StatColumn[] = [
  ...COMPLETION,
  ...FIELDDATA,
  ...QUERY_CACHE,
  ...REQUEST_CACHE,
  ...FLUSH,
  ...GET,
  ...INDEXING,
  ...MERGES,
  ...REFRESH,
  ...SEARCH,
  ...SEGMENTS,
  ...WARMER,
  ...SUGGEST,
  ...MEMORY,
];

/** `_cat/shards` statistics after the routing columns (RestShardsAction). */
export const SHARD_STAT_COLUMNS: readonly StatColumn[] = [
  ...COMPLETION,
  ...FIELDDATA,
  ...QUERY_CACHE,
  ...FLUSH,
  ...GET,
  ...INDEXING,
  ...MERGES,
  ...REFRESH,
  ...SEARCH,
  ...SEGMENTS,
  ...WARMER,
];

/** `_cat/nodes` statistics after the node columns (RestNodesAction). */
export const NODE_STAT_COLUMNS: readonly StatColumn[] = [
  ...COMPLETION,
  ...FIELDDATA,
  ...QUERY_CACHE,
  ...QUERY_CACHE_COUNTS,
  ...REQUEST_CACHE,
  ...FLUSH,
  ...GET,
  ...INDEXING,
  ...MERGES,
  ...REFRESH,
  ...SCRIPT,
  ...SEARCH,
  ...SEGMENTS,
  ...SUGGEST,
];

/** Hidden columns, one per statistic, over a row's stats (null: an empty cell). */
export function statColumns<R>(specs: readonly StatColumn[], stats: (row: R) => CommonStats | null): Column<R>[] {
  return specs.map((s) =>
    col<R>(s.name, `alias:${s.aliases};default:false;text-align:right;desc:${s.desc}`, (row) => {
      const st = stats(row);
      return st === null ? null : s.value(st);
    }),
  );
}

/** `_cat/indices`' pairs: each statistic over all copies, then `pri.` over the primaries. */
export function pairedStatColumns<R>(specs: readonly StatColumn[], total: (row: R) => CommonStats | null, primaries: (row: R) => CommonStats | null): Column<R>[] {
  const out: Column<R>[] = [];
  for (const s of specs) {
    out.push(
      col<R>(s.name, `sibling:pri;alias:${s.aliases};default:false;text-align:right;desc:${s.desc}`, (row) => {
        const st = total(row);
        return st === null ? null : s.value(st);
      }),
    );
    out.push(
      col<R>(`pri.${s.name}`, `default:false;text-align:right;desc:${s.desc}`, (row) => {
        const st = primaries(row);
        return st === null ? null : s.value(st);
      }),
    );
  }
  return out;
}
