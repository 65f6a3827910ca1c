/**
 * Match bitsets used again across query phases (recycled-bits.ts): a bitset
 * taken is all zero whatever it held, and searches that run one after the
 * other on segments of different sizes, with cached and uncached filters,
 * deletes, a sort and aggregation-style match collection, answer as computed
 * here independently, every time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyBits, giveBits, recycledBitsBytes, takeBits } from '../../../shared/engine/search/recycled-bits.ts';
import { executeQueryPhase } from '../../../shared/engine/search/query-phase.ts';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { evaluateFilterBits } from '../../../shared/dsl/query/filter-bits.ts';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import { LocalShardClient, type PinnedContext, type SearchMeta } from '../../../services/node/search/local-shard-client.ts';
import { analyzers, buildSegment, contextOf, expectIds, field, idOf, mappingOf, run, snapshotOf } from './fixtures.ts';

describe('recycled bitsets', () => {
  it('hands a bitset given back out again, all zero, and only for as many words', () => {
    const a = takeBits(37);
    a.fill(0xffffffff);
    giveBits(a);
    assert.notEqual(takeBits(36), a);
    const b = takeBits(37);
    assert.equal(b, a);
    assert.deepEqual(Array.from(b), new Array<number>(37).fill(0));
    const src = Uint32Array.from({ length: 37 }, (_, i) => i * 7);
    giveBits(b);
    const c = copyBits(src);
    assert.equal(c, a);
    assert.deepEqual(Array.from(c), Array.from(src));
    // A view of part of a buffer is not kept: its buffer may hold other things.
    const whole = new Uint32Array(80);
    giveBits(whole.subarray(0, 37));
    assert.notEqual(takeBits(37), whole.subarray(0, 37));
  });

  it('leaves answers unchanged over searches that reuse one another\'s bitsets', () => {
    const MAPPING = [field('k', 'keyword'), field('c', 'keyword'), field('n', 'long')];
    const docs = (from: number, count: number) =>
      Array.from({ length: count }, (_, j) => {
        const i = from + j;
        return { id: String(i), source: { k: i % 3 === 0 ? 'three' : i % 7 === 0 ? 'seven' : 'other', c: `c${i % 50}`, n: (i * 7919) % 10007 } };
      });
    const all = [...docs(0, 5000), ...docs(5000, 1700), ...docs(6700, 64)];
    const segments = [buildSegment(1, all.slice(0, 5000), MAPPING), buildSegment(2, all.slice(5000, 6700), MAPPING), buildSegment(3, all.slice(6700), MAPPING)];
    const deleted = ['3', '21', '5001', '6703'];
    const live = all.filter((d) => !deleted.includes(d.id));
    const ctx = contextOf(MAPPING);
    const queries: { body: unknown; pred: (s: Record<string, unknown>) => boolean }[] = [
      // An uncached term (short postings) sorted by a number: the fragment search's shape.
      { body: { query: { bool: { filter: [{ term: { c: 'c7' } }] } }, sort: [{ n: 'desc' }] }, pred: (s) => s.c === 'c7' },
      // A cached term, an uncached one and a range: the first copied, the others given back.
      { body: { query: { bool: { filter: [{ term: { k: 'three' } }, { term: { c: 'c9' } }, { range: { n: { gte: 2000 } } }] } } }, pred: (s) => s.k === 'three' && s.c === 'c9' && (s.n as number) >= 2000 },
      { body: { query: { bool: { filter: [{ range: { n: { lt: 5000 } } }, { term: { k: 'seven' } }] } }, sort: [{ n: 'asc' }] }, pred: (s) => (s.n as number) < 5000 && s.k === 'seven' },
      { body: { query: { bool: { filter: [{ term: { c: 'c11' } }], must_not: [{ term: { k: 'three' } }] } } }, pred: (s) => s.c === 'c11' && s.k !== 'three' },
    ];
    for (let round = 0; round < 3; round++) {
      for (const [i, q] of queries.entries()) {
        for (const snapshot of [snapshotOf(segments), snapshotOf(segments, deleted)]) {
          const expected = expectIds(snapshot.views.some((v) => v.liveDocs !== null) ? live : all, q.pred);
          assert.deepEqual(run(snapshot, ctx, q.body).ids.sort(), expected, `query ${i}, round ${round}`);
        }
        // Matches kept for aggregations are not given back while they are read.
        const snapshot = snapshotOf(segments);
        const kept = executeQueryPhase(snapshot, parseSearchBody(q.body), ctx, { size: 0, collectMatches: true });
        const before = kept.matches!.map((m) => Array.from(m.bits));
        run(snapshotOf(segments, deleted), ctx, queries[(i + 1) % queries.length]!.body);
        assert.deepEqual(kept.matches!.map((m) => Array.from(m.bits)), before, `query ${i}'s matches, round ${round}`);
        const ids: string[] = [];
        kept.matches!.forEach((m) => {
          for (let d = 0; d < m.view.segment.maxDoc; d++) if ((m.bits[d >>> 5]! & (1 << (d & 31))) !== 0) ids.push(idOf(snapshot, m.view.docBase + d));
        });
        assert.deepEqual(ids.sort(), expectIds(all, q.pred));
      }
    }
    // The searches did give their bitsets back.
    assert.ok(recycledBitsBytes() > 0);
  });

  it('takes back the matches an aggregation read, once it is built', async () => {
    const MAPPING = [field('k', 'keyword'), field('n', 'long')];
    const docs = Array.from({ length: 4000 }, (_, i) => ({ id: String(i), source: { k: `k${i % 5}`, n: i } }));
    const segments = [buildSegment(1, docs.slice(0, 3000), MAPPING), buildSegment(2, docs.slice(3000), MAPPING)];
    const mapping = mappingOf(MAPPING);
    const pinned = new Map<number, PinnedContext>();
    const contexts = { get: (id: number) => pinned.get(id), pin: (id: number, c: PinnedContext) => void pinned.set(id, c), drop: (id: number) => void pinned.delete(id) };
    // The fixtures' mapping lookup answers what a size-0 search and a terms aggregation ask of a mapping.
    const meta = { name: 'i', mapping, analyzers, settings: { numberOfShards: 1, flat: {} } } as unknown as SearchMeta;
    const cache = new FilterCache();
    // A range filter is cached: the query phase works on its own copy, which the aggregation reads.
    const body = { size: 0, query: { bool: { filter: [{ range: { n: { gte: 100, lt: 3500 } } }] } }, aggs: { by: { terms: { field: 'k' } } } };
    const search = parseSearchBody(body);
    let id = 1;
    const counts = async () => {
      const client = new LocalShardClient(meta, { shard: 0, acquireSnapshot: () => snapshotOf(segments) }, contexts, cache, parseAggregations(search.aggregations!, mapping), evaluateFilterBits, id++);
      const res = await client.query({ search, size: 0, after: null, nowMillis: 0, keepAliveMs: 0, contextId: null });
      client.release(id - 1);
      assert.equal(res.result.totalHits, 3400);
      return JSON.stringify(res.aggs);
    };
    const first = await counts();
    const kept = recycledBitsBytes();
    for (let i = 0; i < 3; i++) {
      assert.equal(await counts(), first);
      run(snapshotOf(segments), contextOf(MAPPING), { query: { bool: { filter: [{ term: { k: 'k2' } }] } } });
      // The copies the query phase took are back: without that, each search would take them anew.
      assert.equal(recycledBitsBytes(), kept);
    }
    assert.ok(kept >= 4 * Math.ceil(3000 / 32));
  });
});
