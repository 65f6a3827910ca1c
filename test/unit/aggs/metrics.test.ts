import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mappingOf, rng, runAggs, split, type Doc } from './fixtures.ts';

const mapping = mappingOf({ int_field: 'integer', double_field: 'double', string_field: 'keyword', ts: 'date', plate: 'keyword', n: 'long' });
const yamlDocs: Doc[] = [1, 51, 101, 151].map((v) => ({ int_field: v, double_field: v, string_field: 'foo' }));

describe('numeric metrics', () => {
  it('avg, sum, min, max, stats as the YAML suites assert, over several shards', () => {
    const out = runAggs(
      {
        a: { avg: { field: 'int_field' } },
        s: { sum: { field: 'double_field' } },
        mn: { min: { field: 'int_field' } },
        mx: { max: { field: 'int_field' } },
        st: { stats: { field: 'int_field' } },
        vc: { value_count: { field: 'string_field' } },
      },
      split(yamlDocs, 3, 2),
      mapping,
    );
    assert.deepEqual(out, {
      a: { value: 76 },
      s: { value: 304 },
      mn: { value: 1 },
      mx: { value: 151 },
      st: { count: 4, min: 1, max: 151, avg: 76, sum: 304 },
      vc: { value: 4 },
    });
    const filtered = runAggs({ st: { stats: { field: 'int_field' } } }, split(yamlDocs, 2, 1), mapping, { query: { range: { int_field: { gte: 50 } } } });
    assert.deepEqual(filtered.st, { count: 3, min: 51, max: 151, avg: 101, sum: 303 });
  });

  it('no values: avg/min/max null, sum 0, stats nulls; missing parameter; meta', () => {
    const out = runAggs(
      {
        a: { avg: { field: 'nope' } },
        s: { sum: { field: 'nope' } },
        mn: { min: { field: 'nope' } },
        st: { stats: { field: 'nope' } },
        am: { avg: { field: 'nope', missing: 1 } },
        sm: { stats: { field: 'nope', missing: 1 } },
        withMeta: { meta: { foo: 'bar' }, avg: { field: 'int_field' } },
      },
      [[yamlDocs]],
      mapping,
    );
    assert.deepEqual(out.a, { value: null });
    assert.deepEqual(out.s, { value: 0 });
    assert.deepEqual(out.mn, { value: null });
    assert.deepEqual(out.st, { count: 0, min: null, max: null, avg: null, sum: 0 });
    assert.deepEqual(out.am, { value: 1 });
    assert.deepEqual(out.sm, { count: 4, min: 1, max: 1, avg: 1, sum: 4 });
    assert.deepEqual(out.withMeta, { meta: { foo: 'bar' }, value: 76 });
  });

  it('extended_stats and value_as_string on dates', () => {
    const out = runAggs(
      { e: { extended_stats: { field: 'n' } }, m: { max: { field: 'ts' } } },
      [[[{ n: 2, ts: '2024-01-01T00:00:00Z' }, { n: 4, ts: '2024-01-02T00:00:00Z' }, { n: 4 }, { n: 4 }, { n: 5 }, { n: 5 }, { n: 7 }, { n: 9 }]]],
      mapping,
    );
    assert.deepEqual(out.e, {
      count: 8,
      min: 2,
      max: 9,
      avg: 5,
      sum: 40,
      sum_of_squares: 232,
      variance: 4,
      std_deviation: 2,
      std_deviation_bounds: { upper: 9, lower: 1 },
    });
    assert.deepEqual(out.m, { value: Date.UTC(2024, 0, 2), value_as_string: '2024-01-02T00:00:00.000Z' });
  });
});

describe('cardinality', () => {
  it('YAML values: ints, doubles, strings, missing', () => {
    const out = runAggs(
      {
        i: { cardinality: { field: 'int_field' } },
        d: { cardinality: { field: 'double_field', precision_threshold: 100 } },
        s: { cardinality: { field: 'string_field' } },
        m: { cardinality: { field: 'missing_field', missing: 'foo' } },
        u: { cardinality: { field: 'missing_field' } },
      },
      split(yamlDocs, 2, 2),
      mapping,
    );
    assert.deepEqual(out, { i: { value: 4 }, d: { value: 4 }, s: { value: 1 }, m: { value: 1 }, u: { value: 0 } });
  });

  it('is exact below the precision threshold and close above it, sketches merged across shards', () => {
    const docs: Doc[] = [];
    for (let i = 0; i < 2500; i++) docs.push({ plate: `P${i % 2000}`, n: i % 1500 });
    const exact = runAggs({ p: { cardinality: { field: 'plate' } }, n: { cardinality: { field: 'n' } } }, split(docs, 5, 2), mapping) as Record<
      string,
      { value: number }
    >;
    assert.equal(exact.n!.value, 1500);
    // linear counting keeps 25-bit encodings of the hashes: two of 2000 strings may share one, as in Elasticsearch
    assert.ok(Math.abs(exact.p!.value - 2000) <= 2, `${exact.p!.value}`);
    const big: Doc[] = [];
    const r = rng(7);
    for (let i = 0; i < 60000; i++) big.push({ plate: `X${Math.floor(r() * 40000)}` });
    const truth = new Set(big.map((d) => d.plate)).size;
    const approx = (runAggs({ p: { cardinality: { field: 'plate' } } }, split(big, 5, 1), mapping).p as { value: number }).value;
    assert.ok(Math.abs(approx - truth) / truth < 0.03, `estimate ${approx} vs ${truth}`);
  });
});

describe('percentiles', () => {
  it('default percents interpolate between sorted values; keyed and array forms; empty → null', () => {
    const out = runAggs({ p: { percentiles: { field: 'int_field' } } }, split(yamlDocs, 2, 1), mapping).p as { values: Record<string, number> };
    const want: Record<string, number> = { '1.0': 2.5, '5.0': 8.5, '25.0': 38.5, '50.0': 76, '75.0': 113.5, '95.0': 143.5, '99.0': 149.5 };
    assert.deepEqual(Object.keys(out.values), Object.keys(want));
    for (const k of Object.keys(want)) assert.ok(Math.abs(out.values[k]! - want[k]!) < 1e-9, `${k}: ${out.values[k]}`);
    const arr = runAggs({ p: { percentiles: { field: 'int_field', percents: [50], keyed: false } } }, [[yamlDocs]], mapping);
    assert.deepEqual(arr.p, { values: [{ key: 50, value: 76 }] });
    const empty = runAggs({ p: { percentiles: { field: 'nope', percents: [50] } } }, [[yamlDocs]], mapping);
    assert.deepEqual(empty.p, { values: { '50.0': null } });
  });

  it('large inputs stay within a percent of the exact quantile', () => {
    const docs: Doc[] = [];
    const r = rng(3);
    for (let i = 0; i < 20000; i++) docs.push({ n: Math.floor(r() * 100000) });
    const sorted = docs.map((d) => d.n as number).sort((a, b) => a - b);
    const out = runAggs({ p: { percentiles: { field: 'n', percents: [50, 99] } } }, split(docs, 3, 2), mapping).p as { values: Record<string, number> };
    assert.ok(Math.abs(out.values['50.0']! - sorted[10000]!) < 1000);
    assert.ok(Math.abs(out.values['99.0']! - sorted[19800]!) < 300);
  });
});

describe('top_hits', () => {
  it('best docs per bucket by a sort, with _index/_type/_id/_source and sort values', () => {
    const docs: Doc[] = [
      { plate: 'A', n: 3 },
      { plate: 'A', n: 1 },
      { plate: 'B', n: 2 },
      { plate: 'A', n: 2 },
    ];
    const out = runAggs(
      { t: { terms: { field: 'plate' }, aggs: { top: { top_hits: { size: 2, sort: [{ n: { order: 'asc' } }], _source: ['n'] } } } } },
      [[docs]],
      mapping,
      { typedKeys: true },
    ) as { 'sterms#t': { buckets: { key: string; 'top_hits#top': { hits: { total: number; max_score: null; hits: unknown[] } } }[] } };
    const a = out['sterms#t'].buckets[0]!['top_hits#top'];
    assert.equal(a.hits.total, 3);
    assert.equal(a.hits.max_score, null);
    assert.deepEqual(a.hits.hits, [
      { _index: 'idx', _type: 'doc', _id: 's0g0d1', _score: null, _source: { n: 1 }, sort: [1] },
      { _index: 'idx', _type: 'doc', _id: 's0g0d3', _score: null, _source: { n: 2 }, sort: [2] },
    ]);
  });

  it('default: by score, size 3, merged across shards', () => {
    const docs: Doc[] = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }];
    const out = runAggs({ top: { top_hits: {} } }, split(docs, 2, 1), mapping).top as { hits: { total: number; max_score: number; hits: { _id: string; _score: number }[] } };
    assert.equal(out.hits.total, 4);
    assert.equal(out.hits.max_score, 1);
    assert.deepEqual(out.hits.hits.map((h) => h._id), ['s0g0d0', 's0g0d1', 's1g0d0']);
  });
});

describe('median_absolute_deviation', () => {
  it('is the median distance to the median, across shards; null without values', () => {
    const mapping = mappingOf({ v: 'double' });
    const docs = [1, 1, 2, 2, 4, 6, 9].map((v) => ({ v }));
    const out = runAggs({ m: { median_absolute_deviation: { field: 'v' } }, none: { median_absolute_deviation: { field: 'nope' } } }, split(docs, 2, 2), mapping, { typedKeys: true }) as Record<string, { value: number | null }>;
    // median 2; distances 1 1 0 0 2 4 7 → median 1
    assert.equal(out['median_absolute_deviation#m']!.value, 1);
    assert.equal(out['median_absolute_deviation#none']!.value, null);
  });
});
