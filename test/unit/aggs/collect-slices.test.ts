/**
 * Aggregations collected in slices (a shard worker gives its thread a turn
 * between runs of docs, issue 11) answer exactly as collected at once, also
 * when two collections take turns on the same thread; a terms aggregation's
 * buckets are built with turns between them, in the same order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectShardAggs, collectShardAggsInSlices } from '../../../shared/engine/aggs/collect.ts';
import { reduceAggs } from '../../../shared/engine/aggs/reduce.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import type { MatchSet } from '../../../shared/engine/aggs/types.ts';
import { aggContext, buildSegment, mappingOf, matchSet, rng, viewOf, type Doc } from './fixtures.ts';

const mapping = mappingOf({ k: 'keyword', g: 'keyword', tags: 'keyword', n: 'long', ts: 'date', x: 'double' });
const DAY = 86_400_000;

function docs(count: number, seed: number): Doc[] {
  const r = rng(seed);
  const out: Doc[] = [];
  for (let i = 0; i < count; i++) {
    out.push({ k: `key-${i}`, g: `group-${i % 97}`, tags: [`t${i % 5}`, `u${Math.floor(r() * 9)}`], n: Math.floor(r() * 1000), ts: Date.UTC(2024, 0, 1) + Math.floor(r() * 30 * DAY), x: r() * 100 });
  }
  return out;
}

/** One shard of three segments, two of them past a run of 4,096 docs. */
function shard(query: unknown): MatchSet[] {
  let base = 0;
  return [docs(9_000, 1), docs(300, 2), docs(5_000, 3)].map((segmentDocs, i) => {
    const view = viewOf(buildSegment(segmentDocs, mapping, `s${i}d`), base);
    base += segmentDocs.length;
    return matchSet(view, query);
  });
}

const AGGS = {
  gk: { terms: { field: 'g', size: 5, order: { avg_n: 'desc' } }, aggs: { avg_n: { avg: { field: 'n' } }, k: { terms: { field: 'k', size: 3 } } } },
  tags: { terms: { field: 'tags', size: 20 }, aggs: { c: { cardinality: { field: 'k' } } } },
  hist: { date_histogram: { field: 'ts', interval: 'day', min_doc_count: 0 }, aggs: { p: { percentiles: { field: 'x', percents: [50, 99] } } } },
  numbers: { histogram: { field: 'n', interval: 100 }, aggs: { s: { stats: { field: 'x' } } } },
  ranges: { range: { field: 'n', ranges: [{ to: 100 }, { from: 100, to: 500 }, { from: 500 }] } },
  filtered: { filter: { term: { g: 'group-3' } }, aggs: { top: { terms: { field: 'k', size: 2 } } } },
  all: { global: {}, aggs: { max: { max: { field: 'n' } } } },
  card: { cardinality: { field: 'k' } },
};

async function sliced(query: unknown, turns: { n: number }): Promise<unknown> {
  const specs = parseAggregations(AGGS, mapping);
  const state = await collectShardAggsInSlices(specs, shard(query), aggContext(mapping), 0, () => {
    turns.n++;
    return new Promise((resolve) => setImmediate(resolve));
  });
  return reduceAggs(specs, [state], { typedKeys: false });
}

function atOnce(query: unknown): unknown {
  const specs = parseAggregations(AGGS, mapping);
  return reduceAggs(specs, [collectShardAggs(specs, shard(query), aggContext(mapping))], { typedKeys: false });
}

describe('aggregations collected in slices', () => {
  it('answer as collected at once, giving the thread turns between runs of docs', async () => {
    const turns = { n: 0 };
    const out = await sliced({ match_all: {} }, turns);
    assert.deepEqual(out, atOnce({ match_all: {} }));
    // 14,300 docs in runs of 4,096, three segments, each run twice (the global aggregation): several turns
    assert.ok(turns.n >= 4, `${turns.n} turns`);
  });

  it('count a whole segment by range as they count listed docs, sliced or at once', async () => {
    // A top-level terms with no sub-aggregation counts a segment that matches every doc without listing it;
    // an `include` (accept every key) makes it list the docs instead: the answers must not differ.
    const ranged = { g: { terms: { field: 'g', size: 100 } }, t: { terms: { field: 'tags', size: 20 } } };
    const listed = { g: { terms: { field: 'g', size: 100, include: 'group-.*' } }, t: { terms: { field: 'tags', size: 20, include: '.*' } } };
    const answer = async (aggs: object, slices: boolean): Promise<unknown> => {
      const specs = parseAggregations(aggs, mapping);
      const matches = shard({ match_all: {} });
      const state = slices
        ? await collectShardAggsInSlices(specs, matches, aggContext(mapping), 0, () => new Promise((resolve) => setImmediate(resolve)))
        : collectShardAggs(specs, matches, aggContext(mapping));
      return reduceAggs(specs, [state], { typedKeys: false });
    };
    const want = await answer(listed, false);
    assert.equal((want as { g: { buckets: unknown[] } }).g.buckets.length, 97);
    assert.deepEqual(await answer(ranged, false), want);
    assert.deepEqual(await answer(ranged, true), want);
  });

  it('answer as collected at once when two collections over different matches take turns on one thread', async () => {
    // Most docs of each segment, not all: both list their docs in the shared scratch until they take turns.
    const low = { range: { n: { lt: 900 } } };
    const high = { range: { n: { gte: 100 } } };
    const [a, b] = await Promise.all([sliced(low, { n: 0 }), sliced(high, { n: 0 })]);
    assert.deepEqual(a, atOnce(low));
    assert.deepEqual(b, atOnce(high));
  });

  it('build a terms aggregation a bucket at a time, with turns between its buckets, to the same buckets in the same order', async () => {
    // One segment of 300 docs: collected in one run, so the turns are the build's.
    const aggs = { g: { terms: { field: 'g', size: 97 }, aggs: { k: { terms: { field: 'k', size: 3 } }, m: { max: { field: 'n' } } } } };
    const specs = parseAggregations(aggs, mapping);
    const matches = () => [matchSet(viewOf(buildSegment(docs(300, 2), mapping, 'one'), 0), { match_all: {} })];
    let turns = 0;
    const state = await collectShardAggsInSlices(specs, matches(), aggContext(mapping), 0, () => {
      turns++;
      return new Promise((resolve) => setImmediate(resolve));
    });
    const out = reduceAggs(specs, [state], { typedKeys: false }) as { g: { buckets: { key: string; doc_count: number; k: { buckets: unknown[] } }[] } };
    assert.deepEqual(out, reduceAggs(specs, [collectShardAggs(specs, matches(), aggContext(mapping))], { typedKeys: false }));
    assert.equal(out.g.buckets.length, 97);
    assert.deepEqual(out.g.buckets.slice(0, 3).map((b) => [b.key, b.doc_count, b.k.buckets.length]), [['group-0', 4, 3], ['group-1', 4, 3], ['group-2', 4, 3]]);
    assert.ok(turns >= 97, `${turns} turns`);
  });
});
