import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSegment, contextOf, field, run, snapshotOf } from './fixtures.ts';
import { mappingOf, runAggs, split, type Doc as AggDoc } from '../aggs/fixtures.ts';

// 4,000 docs; plate `p<i % 500>` (8 docs a plate), `t` one value (none on every 7th doc), `m` two values.
const MAPPING = [field('plate', 'keyword'), field('t', 'long'), field('m', 'long')];
const DOCS = Array.from({ length: 4000 }, (_, i) => ({
  id: String(i),
  source: { plate: `p${i % 500}`, ...(i % 7 === 0 ? {} : { t: i }), m: [i, i + 10_000] },
}));
const SEGMENT = buildSegment(1, DOCS, MAPPING);

/** Ids of DOCS whose plate is one of `plates` and `keep` holds, in id order. */
function expected(plates: readonly string[], keep: (i: number) => boolean): string[] {
  const wanted = new Set(plates);
  return DOCS.filter((_, i) => wanted.has(`p${i % 500}`) && keep(i)).map((d) => d.id);
}

/** Docs for which `keep` holds. */
const count = (keep: (i: number) => boolean) => DOCS.filter((_, i) => keep(i)).length;

const sorted = (ids: readonly string[]) => [...ids].sort((a, b) => Number(a) - Number(b));

describe('a range after filters that kept few docs', () => {
  it('is checked on their values, with the answers of a scan, missing and multi-valued fields included', () => {
    const ctx = contextOf(MAPPING);
    const one = run(snapshotOf([SEGMENT]), ctx, { query: { bool: { filter: [{ range: { t: { gte: 1000, lt: 3000 } } }, { term: { plate: 'p7' } }] } } });
    assert.deepEqual(sorted(one.ids), expected(['p7'], (i) => i % 7 !== 0 && i >= 1000 && i < 3000));
    const multi = run(snapshotOf([SEGMENT]), ctx, { query: { bool: { filter: [{ terms: { plate: ['p1', 'p2'] } }, { range: { m: { gte: 12_000, lte: 12_600 } } }] } } });
    assert.deepEqual(sorted(multi.ids), expected(['p1', 'p2'], (i) => i + 10_000 >= 12_000 && i + 10_000 <= 12_600));
    const none = run(snapshotOf([SEGMENT]), ctx, { query: { bool: { filter: [{ term: { plate: 'p3' } }, { range: { t: { gt: 10_000 } } }] } } });
    assert.equal(none.total, 0);
    // Such ranges are not scanned, so the cache gets none of them (a per-request window would only churn it): only the terms filter.
    assert.equal(ctx.filterCache.size, 1);
  });

  it('answers a filters aggregation of many look-ups as brute force does, over shards and segments', () => {
    const docs: AggDoc[] = DOCS.map((d) => ({ plate: d.source.plate, t: d.source.t ?? null }));
    const filters: Record<string, unknown> = {};
    for (let k = 0; k < 50; k++) filters[String(k)] = { bool: { filter: [{ term: { plate: `p${k}` } }, { range: { t: { gte: k * 60, lt: k * 60 + 2500 } } }] } };
    const out = runAggs({ earlier: { filters: { filters } } }, split(docs, 2, 2), mappingOf({ plate: 'keyword', t: 'long' })) as {
      earlier: { buckets: Record<string, { doc_count: number }> };
    };
    for (let k = 0; k < 50; k++) {
      assert.equal(out.earlier.buckets[String(k)]!.doc_count, count((i) => i % 500 === k && i % 7 !== 0 && i >= k * 60 && i < k * 60 + 2500), `bucket ${k}`);
    }
  });

  it('is evaluated and cached as before when the kept docs are many', () => {
    const ctx = contextOf(MAPPING);
    // Half the docs kept: the range is evaluated (and cached) as before.
    const dense = run(snapshotOf([SEGMENT]), ctx, {
      query: { bool: { filter: [{ range: { m: { gte: 0, lt: 2000 } } }, { range: { t: { gte: 1000, lt: 1100 } } }] } },
    });
    assert.equal(dense.total, count((i) => i % 7 !== 0 && i >= 1000 && i < 1100));
    assert.equal(ctx.filterCache.size, 2);
  });
});
