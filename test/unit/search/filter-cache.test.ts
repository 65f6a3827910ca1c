import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import { buildSegment, contextOf, field, run, snapshotOf } from './fixtures.ts';

const MAPPING = [field('k', 'keyword'), field('n', 'long'), field('d', 'date')];
const DOCS = Array.from({ length: 3000 }, (_, i) => ({ id: String(i), source: { k: i % 2 === 0 ? 'even' : 'odd', n: i, d: 1_600_000_000_000 + i * 1000 } }));
const SEGMENT = buildSegment(1, DOCS, MAPPING);

describe('filter cache', () => {
  it('caches range and large term filters per segment and reuses them', () => {
    const ctx = contextOf(MAPPING);
    const body = { query: { bool: { filter: [{ term: { k: 'even' } }, { range: { n: { gte: 100, lt: 200 } } }] } } };
    const first = run(snapshotOf([SEGMENT]), ctx, body);
    assert.equal(first.total, 50);
    assert.equal(ctx.filterCache.size, 2);
    const again = run(snapshotOf([SEGMENT]), ctx, body);
    assert.equal(again.total, 50);
    assert.equal(ctx.filterCache.hits, 2);
  });

  it('stays correct after deletes (live docs are applied after the cached bits)', () => {
    const ctx = contextOf(MAPPING);
    const body = { query: { bool: { filter: { range: { n: { gte: 0, lt: 10 } } } } } };
    assert.equal(run(snapshotOf([SEGMENT]), ctx, body).total, 10);
    assert.deepEqual(run(snapshotOf([SEGMENT], ['3', '4']), ctx, body).ids.sort(), ['0', '1', '2', '5', '6', '7', '8', '9']);
    assert.equal(ctx.filterCache.hits, 1);
  });

  it('does not cache ranges relative to now, nor short term postings', () => {
    const ctx = contextOf(MAPPING, 1_600_000_100_000);
    run(snapshotOf([SEGMENT]), ctx, { query: { bool: { filter: [{ range: { d: { gte: 'now-10s' } } }, { term: { n: 5 } }] } } });
    assert.equal(ctx.filterCache.size, 1); // only the numeric term (a doc-values scan)
  });

  it('evicts least recently used entries beyond its budget', () => {
    const cache = new FilterCache(3 * 4 * Math.ceil(3000 / 32));
    const ctx = { ...contextOf(MAPPING), filterCache: cache };
    for (let i = 0; i < 5; i++) run(snapshotOf([SEGMENT]), ctx, { query: { bool: { filter: { range: { n: { gte: i } } } } } });
    assert.equal(cache.size, 3);
  });
});
