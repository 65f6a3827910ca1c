/**
 * collectShardAggs: runs the aggregations of one search over one shard's
 * matched docs, segment by segment, and returns the shard's partial states.
 */
import { runSteps, runStepsInTurns } from '../../steps/run-steps.ts';
import { EsError } from '../../errors/es-errors.ts';
import { createAggregators } from './aggregator-factory.ts';
import type { Aggregator } from './aggregator.ts';
import { GlobalAggregator } from './single-bucket-aggregators.ts';
import type { AggSpec } from './spec.ts';
import { isParentPipeline } from './spec.ts';
import type { AggState, ShardAggState } from './state.ts';
import type { AggContext, MatchSet } from './types.ts';
import { BucketBudget } from './bucket-budget.ts';
import { releaseFreeNativeMemory } from '../store/native-heap.ts';
import { releaseCountingScratch } from './counting-loops.ts';

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

/**
 * Hands the docs of one segment (all of them, or the set bits of `bits`) to
 * the aggregators in runs of at most `run` docs (and of COLLECT_WINDOW); after
 * a run it yields when `due()`. Each run is listed into the shared scratch
 * list just before it is handed over, so a turn given to another search in
 * between costs no copy. A segment that matches every doc goes to
 * `collectRange` instead where an aggregator has one.
 */
function* collectSegment(aggs: readonly Aggregator[], bits: Uint32Array | null, maxDoc: number, run: number, due: () => boolean): Generator<void> {
  const chunk = Math.min(run, COLLECT_WINDOW);
  const out = docsScratch;
  if (bits === null) {
    // Those that cannot take a range on this segment say so on the first one, and get lists.
    let listed: Aggregator[] | null = null;
    const ranged: Aggregator[] = [];
    for (let from = 0; from < maxDoc; ) {
      const to = Math.min(maxDoc, from + chunk);
      if (listed === null) {
        listed = [];
        for (const a of aggs) {
          if (a.collectRange !== undefined && a.collectRange(from, to)) ranged.push(a);
          else listed.push(a);
        }
      } else for (const a of ranged) a.collectRange!(from, to);
      if (listed.length > 0) {
        for (let d = from; d < to; d++) out[d - from] = d;
        for (const a of listed) a.collect(out, ownersScratch, to - from);
      }
      from = to;
      if (from < maxDoc && due()) yield;
    }
    return;
  }
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const t = word & -word;
      out[n++] = (w << 5) + 31 - Math.clz32(t);
      word ^= t;
      if (n === chunk) {
        for (const a of aggs) a.collect(out, ownersScratch, n);
        n = 0;
        if (due()) yield;
      }
    }
  }
  if (n > 0) for (const a of aggs) a.collect(out, ownersScratch, n);
}

export function collectShardAggs(specs: AggSpec[], matches: readonly MatchSet[], ctx: AggContext): ShardAggState {
  return runSteps(collectSteps(specs, matches, ctx, Infinity, () => false));
}

/** Docs collected between two looks at the clock when collecting in slices. */
const SLICE_DOCS = 4096;

/**
 * collectShardAggs with a turn of the event loop (`nextTurn`) whenever
 * `sliceMs` passed since the last one, so that a shard worker collecting a
 * large aggregation answers the small searches sent to it meanwhile. The
 * docs are handed to the aggregators in runs of SLICE_DOCS (the same docs in
 * the same order: the answer is the same); the buckets are built at the
 * end, a terms aggregation's a bucket (with its sub-aggregations) per step.
 */
export async function collectShardAggsInSlices(
  specs: AggSpec[],
  matches: readonly MatchSet[],
  ctx: AggContext,
  sliceMs: number,
  nextTurn: () => Promise<void>,
): Promise<ShardAggState> {
  // The generator yields only once `sliceMs` passed since the last turn, which runStepsInTurns then gives.
  let slice = performance.now();
  const turn = async (): Promise<void> => {
    await nextTurn();
    slice = performance.now();
  };
  return runStepsInTurns(collectSteps(specs, matches, ctx, SLICE_DOCS, () => performance.now() - slice >= sliceMs), 0, turn);
}

/** Collects in runs of `run` docs, yielding after a run when `due()`; returns the built state. */
function* collectSteps(specs: AggSpec[], matches: readonly MatchSet[], ctx: AggContext, run: number, due: () => boolean): Generator<void, ShardAggState> {
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
      const whole = allSet(m.bits, maxDoc);
      yield* collectSegment(others, whole ? null : m.bits, maxDoc, run, due);
      // A pass over every doc read whole columns, once: what it derived is counted or kept, and the
      // pages it mapped would stay in the process (4M docs: ~50 MB a segment) until the next one.
      if (whole) m.view.segment.releasePages?.('docValues');
    }
    if (globals.length > 0) {
      // `global` sees every live doc, whatever the query matched
      for (const a of globals) a.setSegment(seg);
      yield* collectSegment(globals, m.view.liveDocs, maxDoc, run, due);
    }
    if (i + 1 < matches.length && due()) yield;
  }
  const built: AggState[] = [];
  for (const a of aggs) {
    built.push(a.buildSteps === undefined ? a.build(0) : yield* whenDue(a.buildSteps(0), due));
    if (due()) yield;
  }
  releaseCountingScratch();
  // Count arrays of millions of values (4 bytes a distinct plate) come and go with each search; glibc keeps
  // their freed chunks in the thread's arena until trimmed (at most every 30 s; native-heap.ts).
  releaseFreeNativeMemory();
  return { aggs: built };
}

/** The steps of `steps`, yielding only when `due()` (the callers' generators yield only then). */
function* whenDue<T>(steps: Generator<void, T>, due: () => boolean): Generator<void, T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (due()) yield;
  }
}
