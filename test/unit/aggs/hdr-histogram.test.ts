import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HdrHistogram } from '../../../shared/engine/aggs/hdr-histogram.ts';
import { mappingOf, runAggs, split, type Doc } from './fixtures.ts';

const PERCENTS = [1, 5, 25, 50, 75, 95, 99];

function histogramOf(values: readonly number[], digits = 3): HdrHistogram {
  const h = new HdrHistogram(digits);
  for (const v of values) h.recordValue(v);
  return h;
}

describe('HdrHistogram (DoubleHistogram of HdrHistogram 2.1.9)', () => {
  it('gives the values Elasticsearch 6.8 gives for 1, 51, 101, 151 (a bucket\'s highest value at the final ratio)', () => {
    const h = histogramOf([1, 51, 101, 151]);
    assert.deepEqual(
      PERCENTS.map((p) => h.valueAtPercentile(p)),
      [1, 1, 1, 51.0302734375, 101.0615234375, 151.1240234375, 151.1240234375],
    );
  });

  it('the covered range follows the smallest value: without 1, the unit is 1/32 and 51 is exact', () => {
    const h = histogramOf([51, 101, 151]);
    assert.deepEqual(PERCENTS.map((p) => h.valueAtPercentile(p)), [51, 51, 51, 101.03125, 101.03125, 151.09375, 151.09375]);
  });

  it('merging shard histograms into one shaped like the first gives the single-histogram values', () => {
    const shards = [histogramOf([51]), histogramOf([151, 1]), histogramOf([]), histogramOf([101])];
    const merged = new HdrHistogram(3, shards[0]!.snapshot());
    for (const s of shards) merged.add(s.snapshot());
    assert.deepEqual(
      PERCENTS.map((p) => merged.valueAtPercentile(p)),
      PERCENTS.map((p) => histogramOf([1, 51, 101, 151]).valueAtPercentile(p)),
    );
    assert.equal(merged.totalCount, 4);
  });

  it('percentile ranks count every bucket at or below the value', () => {
    const h = histogramOf([1, 51, 101, 151]);
    assert.equal(h.percentileAtOrBelow(50), 25);
    assert.equal(h.percentileAtOrBelow(99), 50);
    assert.equal(h.percentileAtOrBelow(151), 100);
    assert.equal(h.percentileAtOrBelow(0.5), 0);
    assert.equal(histogramOf([51, 101, 151]).percentileAtOrBelow(50), 0);
  });

  it('an empty histogram answers NaN (printed null); zeros need no range', () => {
    assert.ok(Number.isNaN(new HdrHistogram(3).valueAtPercentile(50)));
    assert.ok(Number.isNaN(new HdrHistogram(3).percentileAtOrBelow(50)));
    const z = histogramOf([0, 0, 0, 8]);
    assert.equal(z.valueAtPercentile(50), 0);
    assert.equal(z.percentileAtOrBelow(0), 75);
  });

  it('keeps the relative error within 10^-digits over values spanning many orders of magnitude (shifts and resizes)', () => {
    for (const digits of [0, 1, 2, 3, 4, 5]) {
      const values = [1e-3, 7, 3.5e6, 0.25, 42, 1e9, 123.456, 9.99e-2];
      const h = histogramOf(values, digits);
      const sorted = [...values].sort((a, b) => a - b);
      sorted.forEach((v, i) => {
        const p = ((i + 1) / sorted.length) * 100;
        const got = h.valueAtPercentile(p);
        assert.ok(Math.abs(got - v) / v <= 2 * 10 ** -digits + 1e-12, `digits ${digits}, p${p}: ${got} for ${v}`);
      });
    }
  });

  it('refuses a negative value as Elasticsearch\'s shard does (array_index_out_of_bounds_exception)', () => {
    const h = histogramOf([5]);
    assert.throws(() => h.recordValue(-10), (e: unknown) => (e as { type: string }).type === 'array_index_out_of_bounds_exception');
  });
});

describe('percentiles with hdr', () => {
  const mapping = mappingOf({ v: 'long' });
  const docs: Doc[] = [1, 51, 101, 151].map((v) => ({ v }));

  it('reduces over shards and prints hdr_percentiles keys as Elasticsearch does', () => {
    const out = runAggs({ p: { percentiles: { field: 'v', hdr: {} } } }, split(docs, 3, 1), mapping, { typedKeys: true }) as Record<string, { values: Record<string, number> }>;
    assert.deepEqual(out['hdr_percentiles#p']!.values, { '1.0': 1, '5.0': 1, '25.0': 1, '50.0': 51.0302734375, '75.0': 101.0615234375, '95.0': 151.1240234375, '99.0': 151.1240234375 });
    const ranks = runAggs({ r: { percentile_ranks: { field: 'v', values: [50, 99], keyed: false, hdr: { number_of_significant_value_digits: 3 } } } }, split(docs, 2, 2), mapping, { typedKeys: true }) as Record<string, { values: unknown }>;
    assert.deepEqual(ranks['hdr_percentile_ranks#r']!.values, [{ key: 50, value: 25 }, { key: 99, value: 50 }]);
  });
});
