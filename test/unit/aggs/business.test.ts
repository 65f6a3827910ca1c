/**
 * The pass-record application's aggregations (traffic counts, trajectories,
 * frequent plates), answers computed independently from the generated passes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mappingOf, rng, runAggs, split, type Doc } from './fixtures.ts';

const mapping = mappingOf({ land_id: 'keyword', plate: 'text', 'plate.keyword': 'keyword', pass_time: 'date', speed: 'integer' });
const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 1);

function passes(n: number): Doc[] {
  const r = rng(42);
  const out: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const plateNo = Math.floor(r() * r() * 300);
    out.push({
      land_id: `L${String(Math.floor(r() * 12)).padStart(2, '0')}`,
      plate: `沪A${String(plateNo).padStart(5, '0')}`,
      'plate.keyword': `沪A${String(plateNo).padStart(5, '0')}`,
      pass_time: START + Math.floor(r() * 10 * DAY),
      speed: 20 + Math.floor(r() * 80),
    });
  }
  return out;
}

const docs = passes(3000);
const shards = split(docs, 5, 2);

function countBy<T>(xs: readonly T[], key: (x: T) => string | number): Map<string | number, number> {
  const m = new Map<string | number, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}

type B = { key: string | number; doc_count: number; [k: string]: unknown };

describe('pass-record aggregations', () => {
  it('traffic per checkpoint: terms on land_id', () => {
    const out = runAggs({ by_land: { terms: { field: 'land_id', size: 50 } } }, shards, mapping).by_land as { buckets: B[]; sum_other_doc_count: number };
    const want = [...countBy(docs, (d) => d.land_id as string)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), want);
    assert.equal(out.sum_other_doc_count, 0);
  });

  it('traffic per day: date_histogram', () => {
    const out = runAggs({ per_day: { date_histogram: { field: 'pass_time', interval: '1d', format: 'epoch_millis' } } }, shards, mapping).per_day as { buckets: B[] };
    const want = countBy(docs, (d) => Math.floor((d.pass_time as number) / DAY) * DAY);
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), [...want].sort((a, b) => (a[0] as number) - (b[0] as number)));
    assert.equal(out.buckets[0]!.key_as_string, String(START));
  });

  it('traffic per checkpoint per day: terms × date_histogram', () => {
    const out = runAggs(
      { by_land: { terms: { field: 'land_id', size: 50 }, aggs: { per_day: { date_histogram: { field: 'pass_time', interval: 'day', min_doc_count: 1 } } } } },
      shards,
      mapping,
    ).by_land as { buckets: (B & { per_day: { buckets: B[] } })[] };
    for (const b of out.buckets) {
      const mine = docs.filter((d) => d.land_id === b.key);
      const want = [...countBy(mine, (d) => Math.floor((d.pass_time as number) / DAY) * DAY)].sort((x, y) => (x[0] as number) - (y[0] as number));
      assert.deepEqual(b.per_day.buckets.map((x) => [x.key, x.doc_count]), want);
    }
  });

  it('landing points of one plate: terms on land_id for one plate, with first and last pass', () => {
    const plate = docs[0]!['plate.keyword'] as string;
    const out = runAggs(
      { lands: { terms: { field: 'land_id', size: 100, order: { first: 'asc' } }, aggs: { first: { min: { field: 'pass_time' } }, last: { max: { field: 'pass_time' } } } } },
      shards,
      mapping,
      { query: { term: { 'plate.keyword': plate } } },
    ).lands as { buckets: (B & { first: { value: number } })[] };
    const mine = docs.filter((d) => d['plate.keyword'] === plate);
    const firstBy = new Map<string, number>();
    for (const d of mine) firstBy.set(d.land_id as string, Math.min(firstBy.get(d.land_id as string) ?? Infinity, d.pass_time as number));
    assert.deepEqual(
      out.buckets.map((b) => [b.key, b.first.value]),
      [...firstBy].sort((a, b) => a[1] - b[1]),
    );
  });

  it('plates seen more than N times: terms on plate.keyword + bucket_selector on _count', () => {
    const n = 20;
    const out = runAggs(
      {
        plates: {
          terms: { field: 'plate.keyword', size: 10000 },
          aggs: { frequent: { bucket_selector: { buckets_path: { count: '_count' }, script: { source: 'params.count > params.n', params: { n } } } } },
        },
      },
      shards,
      mapping,
    ).plates as { buckets: B[] };
    const want = [...countBy(docs, (d) => d['plate.keyword'] as string)].filter(([, c]) => c > n).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    assert.ok(want.length > 0);
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), want);
  });

  it('aggregating the analysed plate field is refused with the fielddata message', () => {
    assert.throws(() => runAggs({ p: { terms: { field: 'plate' } } }, shards, mapping), /Fielddata is disabled on text fields by default/);
  });
});
