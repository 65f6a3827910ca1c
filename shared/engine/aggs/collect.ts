/**
 * collectShardAggs: runs the aggregations of one search over one shard's
 * matched docs, segment by segment, and returns the shard's partial states.
 */
import { EsError } from '../../errors/es-errors.ts';
import type { SegmentView } from '../segment/types.ts';
import { createAggregators } from './aggregator-factory.ts';
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

let docsScratch = new Int32Array(1024);
let ownersScratch = new Int32Array(1024);

function ensureScratch(n: number): void {
  if (docsScratch.length >= n) return;
  let cap = docsScratch.length;
  while (cap < n) cap *= 2;
  docsScratch = new Int32Array(cap);
  ownersScratch = new Int32Array(cap);
}

/** 0, 1, 2, ...: the doc ids of a segment whose every doc matched (a query over all docs, no deletes). */
let identity = new Int32Array(0);

function identityDocs(n: number): Int32Array {
  if (identity.length < n) {
    identity = new Int32Array(Math.max(n, identity.length * 2));
    for (let i = 0; i < identity.length; i++) identity[i] = i;
  }
  return identity;
}

/** Every doc of the segment is set. */
function allSet(bits: Uint32Array, maxDoc: number): boolean {
  const full = maxDoc >>> 5;
  for (let w = 0; w < full; w++) if (bits[w] !== 0xffffffff) return false;
  const mask = 2 ** (maxDoc & 31) - 1;
  return mask === 0 || (bits[full]! & mask) === mask;
}

/** Set bits → doc ids in docsScratch; returns the count. */
function bitsToDocs(bits: Uint32Array, maxDoc: number): number {
  ensureScratch(maxDoc);
  const out = docsScratch;
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const t = word & -word;
      out[n++] = (w << 5) + 31 - Math.clz32(t);
      word ^= t;
    }
  }
  return n;
}

function liveDocs(view: SegmentView): number {
  const maxDoc = view.segment.maxDoc;
  ensureScratch(maxDoc);
  if (view.liveDocs !== null) return bitsToDocs(view.liveDocs, maxDoc);
  for (let d = 0; d < maxDoc; d++) docsScratch[d] = d;
  return maxDoc;
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
    ensureScratch(m.view.segment.maxDoc);
    if (others.length > 0) {
      const maxDoc = m.view.segment.maxDoc;
      const all = allSet(m.bits, maxDoc);
      const n = all ? maxDoc : bitsToDocs(m.bits, maxDoc);
      const docs = all ? identityDocs(maxDoc) : docsScratch;
      ownersScratch.fill(0, 0, n);
      for (const a of others) {
        a.setSegment(seg);
        if (n > 0) a.collect(docs, ownersScratch, n);
      }
    }
    if (globals.length > 0) {
      const n = liveDocs(m.view);
      ownersScratch.fill(0, 0, n);
      for (const a of globals) {
        a.setSegment(seg);
        if (n > 0) a.collect(docsScratch, ownersScratch, n);
      }
    }
  }
  return { aggs: aggs.map((a) => a.build(0)) };
}
