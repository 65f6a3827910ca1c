/**
 * collectShardAggs: runs the aggregations of one search over one shard's
 * matched docs, segment by segment, and returns the shard's partial states.
 */
import { EsError } from '../../errors/es-errors.ts';
import { createAggregators } from './aggregator-factory.ts';
import type { Aggregator } from './aggregator.ts';
import { GlobalAggregator } from './single-bucket-aggregators.ts';
import type { AggSpec } from './spec.ts';
import { isParentPipeline } from './spec.ts';
import type { ShardAggState } from './state.ts';
import type { AggContext, MatchSet } from './types.ts';
import { BucketBudget } from './bucket-budget.ts';

/** Elasticsearch 6.8 (AggregationPhase) refuses parent pipelines at the top level, on every shard. */
export function topLevelPipelineError(name: string, type: string): EsError {
  return new EsError(
    'aggregation_execution_exception',
    `Invalid pipeline aggregation named [${name}] of type [${type}]. Only sibling pipeline aggregations are allowed at the top level`,
    500,
  );
}

/**
 * Docs are handed to the aggregators a window at a time: the doc and owner
 * lists are this long at most, whatever the segment's size (a merged segment
 * holds up to 4 million docs), so a thread keeps 2 MiB of them, not 8 bytes
 * per doc of its largest segment. A multiple of 32 (windows start on a word
 * of the match bitset).
 */
export const COLLECT_WINDOW = 1 << 18;

const docsScratch = new Int32Array(COLLECT_WINDOW);
/** Every collected doc's owner is bucket 0 at the top level. */
const ownersScratch = new Int32Array(COLLECT_WINDOW);

/** Every doc of the segment is set. */
function allSet(bits: Uint32Array, maxDoc: number): boolean {
  const full = maxDoc >>> 5;
  for (let w = 0; w < full; w++) if (bits[w] !== 0xffffffff) return false;
  const mask = 2 ** (maxDoc & 31) - 1;
  return mask === 0 || (bits[full]! & mask) === mask;
}

/** The set bits of docs [from, to) (from a multiple of 32) → doc ids in docsScratch; returns the count. */
function bitsToDocs(bits: Uint32Array, from: number, to: number): number {
  const out = docsScratch;
  let n = 0;
  const end = Math.min(bits.length, Math.ceil(to / 32));
  for (let w = from >>> 5; w < end; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const t = word & -word;
      out[n++] = (w << 5) + 31 - Math.clz32(t);
      word ^= t;
    }
  }
  return n;
}

/** Docs [from, to) → docsScratch; returns the count. */
function rangeToDocs(from: number, to: number): number {
  const out = docsScratch;
  for (let d = from; d < to; d++) out[d - from] = d;
  return to - from;
}

/** Hands the docs of one segment (all of them, or the set bits of `bits`) to the aggregators, a window at a time. */
function collectSegment(aggs: readonly Aggregator[], bits: Uint32Array | null, maxDoc: number): void {
  for (let from = 0; from < maxDoc; from += COLLECT_WINDOW) {
    const to = Math.min(maxDoc, from + COLLECT_WINDOW);
    const n = bits === null ? rangeToDocs(from, to) : bitsToDocs(bits, from, to);
    if (n === 0) continue;
    for (const a of aggs) a.collect(docsScratch, ownersScratch, n);
  }
}

export function collectShardAggs(specs: AggSpec[], matches: readonly MatchSet[], ctx: AggContext): ShardAggState {
  for (const s of specs) if (isParentPipeline(s)) throw topLevelPipelineError(s.name, s.type);
  const views = matches.map((m) => m.view);
  const scope = { views, ctx, budget: ctx.maxBuckets === undefined ? null : new BucketBudget(ctx.maxBuckets) };
  const aggs = createAggregators(specs, scope, true);
  if (aggs.length === 0) return { aggs: [] };
  const globals = aggs.filter((a) => a instanceof GlobalAggregator);
  const others = aggs.filter((a) => !(a instanceof GlobalAggregator));
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i]!;
    const seg = { view: m.view, viewIndex: i, scores: m.scores, agg: ctx };
    const maxDoc = m.view.segment.maxDoc;
    if (others.length > 0) {
      for (const a of others) a.setSegment(seg);
      collectSegment(others, allSet(m.bits, maxDoc) ? null : m.bits, maxDoc);
    }
    if (globals.length > 0) {
      // `global` sees every live doc, whatever the query matched
      for (const a of globals) a.setSegment(seg);
      collectSegment(globals, m.view.liveDocs, maxDoc);
    }
  }
  return { aggs: aggs.map((a) => a.build(0)) };
}
