import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectShardAggs } from '../../../shared/engine/aggs/collect.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { aggContext, buildSegment, mappingOf, matchSet, runAggs, split, viewOf, type Doc } from './fixtures.ts';

const mapping = mappingOf({ plate: 'keyword', land: 'keyword', ts: 'date', speed: 'long' });
type B = { key: unknown; doc_count: number; [k: string]: unknown };

const docs: Doc[] = [];
// plate Pn seen n times, speeds 10·i
for (let n = 1; n <= 6; n++) for (let i = 0; i < n; i++) docs.push({ plate: `P${n}`, speed: 10 * (i + 1), ts: Date.UTC(2024, 0, 1 + (i % 3)) });

describe('parent pipelines', () => {
  it('bucket_selector keeps buckets whose _count passes the condition', () => {
    const out = runAggs(
      { t: { terms: { field: 'plate', size: 100 }, aggs: { sel: { bucket_selector: { buckets_path: { c: '_count' }, script: 'params.c > 3' } } } } },
      split(docs, 3, 2),
      mapping,
    ).t as { buckets: B[] };
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), [['P6', 6], ['P5', 5], ['P4', 4]]);
  });

  it('bucket_selector on a metric path, script object with params, gap policy', () => {
    const out = runAggs(
      {
        t: {
          terms: { field: 'plate', size: 100 },
          aggs: {
            s: { stats: { field: 'speed' } },
            sel: { bucket_selector: { buckets_path: { avg: 's.avg', max: 's.max' }, script: { source: 'params.avg >= params.lim && params.max <= 50', lang: 'painless', params: { lim: 20 } } } },
          },
        },
      },
      split(docs, 2, 1),
      mapping,
    ).t as { buckets: B[] };
    assert.deepEqual(out.buckets.map((b) => b.key), ['P5', 'P4', 'P3']);
  });

  it('bucket_script adds a value to every bucket; bucket_sort sorts and pages', () => {
    const out = runAggs(
      {
        t: {
          terms: { field: 'plate', size: 100 },
          aggs: {
            total: { sum: { field: 'speed' } },
            per: { bucket_script: { buckets_path: { t: 'total', c: '_count' }, script: 'params.t / params.c' } },
            sorted: { bucket_sort: { sort: [{ per: { order: 'asc' } }], from: 1, size: 2 } },
          },
        },
      },
      [[docs]],
      mapping,
      { typedKeys: true },
    )['sterms#t'] as { buckets: B[] };
    assert.deepEqual(out.buckets.map((b) => [b.key, b['simple_value#per']]), [['P2', { value: 15 }], ['P3', { value: 20 }]]);
  });

  it('moving_avg and cumulative_sum over a date_histogram', () => {
    const out = runAggs(
      {
        h: {
          date_histogram: { field: 'ts', interval: 'day' },
          aggs: { c: { sum: { field: 'speed' } }, mv: { moving_avg: { buckets_path: 'c', window: 2 } }, cs: { cumulative_sum: { buckets_path: '_count' } } },
        },
      },
      [[docs]],
      mapping,
    ).h as { buckets: B[] };
    const sums = out.buckets.map((b) => (b.c as { value: number }).value);
    assert.deepEqual(out.buckets.map((b) => b.mv), [undefined, { value: sums[0] }, { value: (sums[0]! + sums[1]!) / 2 }]);
    const perDay = [0, 1, 2].map((d) => docs.filter((x) => x.ts === Date.UTC(2024, 0, 1 + d)).length);
    assert.deepEqual(out.buckets.map((b) => (b.cs as { value: number }).value), [perDay[0], perDay[0]! + perDay[1]!, docs.length]);
  });
});

describe('sibling pipelines', () => {
  it('sum_bucket, avg_bucket, max_bucket (keys), min_bucket, stats_bucket', () => {
    const out = runAggs(
      {
        t: { terms: { field: 'plate' }, aggs: { s: { sum: { field: 'speed' } } } },
        total: { sum_bucket: { buckets_path: 't>s' } },
        mean: { avg_bucket: { buckets_path: 't>s' } },
        best: { max_bucket: { buckets_path: 't>s' } },
        worst: { min_bucket: { buckets_path: 't>_count' } },
        st: { stats_bucket: { buckets_path: 't>_count' } },
      },
      split(docs, 2, 2),
      mapping,
      { typedKeys: true },
    );
    // sums: Pn → 10·n(n+1)/2
    const sums = [1, 2, 3, 4, 5, 6].map((n) => (10 * n * (n + 1)) / 2);
    const total = sums.reduce((a, b) => a + b, 0);
    assert.deepEqual(out['simple_value#total'], { value: total });
    assert.deepEqual(out['simple_value#mean'], { value: total / 6 });
    assert.deepEqual(out['bucket_metric_value#best'], { value: 210, keys: ['P6'] });
    assert.deepEqual(out['bucket_metric_value#worst'], { value: 1, keys: ['P1'] });
    assert.deepEqual(out['stats_bucket#st'], { count: 6, min: 1, max: 6, avg: 3.5, sum: 21 });
  });

  it('max_bucket inside a date_histogram per day, with moving_avg typed as simple_value (80_typed_keys)', () => {
    const out = runAggs(
      {
        h: { date_histogram: { field: 'ts', interval: 'month' }, aggs: { s: { sum: { field: 'speed' } }, mv: { moving_avg: { buckets_path: 's' } } } },
        m: { max_bucket: { buckets_path: 'h>s' } },
      },
      [[docs]],
      mapping,
      { typedKeys: true },
    );
    assert.ok(out['date_histogram#h']);
    assert.equal((out['bucket_metric_value#m'] as { keys: string[] }).keys[0], '2024-01-01T00:00:00.000Z');
  });
});

describe('pipeline refusals', () => {
  it('a bucket_selector at the top level fails on the shard as in 6.8', () => {
    const specs = parseAggregations({ t: { terms: { field: 'plate' } }, sel: { bucket_selector: { buckets_path: { c: 't._count' }, script: 'params.c > 1' } } }, mapping);
    const view = viewOf(buildSegment(docs, mapping));
    assert.throws(
      () => collectShardAggs(specs, [matchSet(view)], aggContext(mapping)),
      (e: unknown) =>
        e instanceof EsError &&
        e.type === 'aggregation_execution_exception' &&
        e.reason === 'Invalid pipeline aggregation named [sel] of type [bucket_selector]. Only sibling pipeline aggregations are allowed at the top level',
    );
  });

  it('buckets_path to an unknown aggregation is refused when parsing', () => {
    assert.throws(
      () => parseAggregations({ t: { terms: { field: 'plate' } }, m: { max_bucket: { buckets_path: 'nope>s' } } }, mapping),
      (e: unknown) => e instanceof EsError && e.status === 400 && e.reason === 'No aggregation found for path [nope>s]',
    );
    assert.throws(
      () => parseAggregations({ t: { terms: { field: 'plate' }, aggs: { sel: { bucket_selector: { buckets_path: { x: 'nope' } , script: 'true' } } } } }, mapping),
      /No aggregation found for path \[nope\]/,
    );
    assert.throws(() => parseAggregations({ t: { terms: { field: 'plate' }, aggs: { sel: { bucket_selector: { buckets_path: { c: '_count' } } } } } }, mapping), /Missing required field \[script\]/);
  });
});
