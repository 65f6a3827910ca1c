import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectShardAggs } from '../../../shared/engine/aggs/collect.ts';
import { fieldDataCache } from '../../../shared/engine/aggs/field-data-cache.ts';
import { reduceAggs } from '../../../shared/engine/aggs/reduce.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { aggContext, buildSegment, mappingOf, matchSet, rng, runAggs, split, viewOf, type Doc } from './fixtures.ts';

const mapping = mappingOf({ str: 'keyword', num: 'long', dbl: 'double', flag: 'boolean', date: 'date', text: 'text', n: 'long' });

type Terms = { doc_count_error_upper_bound: number; sum_other_doc_count: number; buckets: { key: unknown; key_as_string?: string; doc_count: number }[] };

describe('terms', () => {
  it('counts keyword values across segments and shards, count desc then key asc', () => {
    const docs: Doc[] = [];
    const r = rng(1);
    for (let i = 0; i < 500; i++) docs.push({ str: `v${Math.floor(r() * r() * 20)}` });
    const expected = new Map<string, number>();
    for (const d of docs) expected.set(d.str as string, (expected.get(d.str as string) ?? 0) + 1);
    const want = [...expected].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
    const out = runAggs({ t: { terms: { field: 'str' } } }, split(docs, 3, 2), mapping).t as Terms;
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), want);
    const inTop = want.reduce((a, [, c]) => a + c, 0);
    assert.equal(out.sum_other_doc_count, 500 - inTop);
    assert.equal(out.buckets[0]!.key_as_string, undefined);
  });

  it('counts the same whether few docs match among many values (sparse), many do (dense) or the count turns dense midway', () => {
    const docs: Doc[] = [];
    const r = rng(7);
    // 3,000 distinct plates, some frequent; a tenth of the docs without one. One shard of four segments: no shard_size approximation
    for (let i = 0; i < 9000; i++) docs.push(r() < 0.1 ? { n: i } : { str: `p${Math.floor(r() * r() * 3000)}`, n: i });
    const brute = (from: number, to: number, size: number, missing?: string) => {
      const counts = new Map<string, number>();
      for (const d of docs) {
        const n = d.n as number;
        if (n < from || n >= to) continue;
        const key = (d.str as string | undefined) ?? missing;
        if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const all = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const top = all.slice(0, size);
      return { buckets: top, other: all.reduce((a, [, c]) => a + c, 0) - top.reduce((a, [, c]) => a + c, 0) };
    };
    // 60 docs (sparse throughout), ~600 (turns dense after the first segments), everything (dense)
    for (const [from, to, size, missing] of [
      [100, 160, 5, undefined],
      [100, 160, 1000, undefined],
      [2000, 2600, 7, undefined],
      [0, 9000, 10, undefined],
      [100, 160, 5, 'zz-missing'],
      [2000, 2600, 50, 'zz-missing'],
    ] as const) {
      const terms = { field: 'str', size, ...(missing === undefined ? {} : { missing }) };
      const out = runAggs({ t: { terms } }, split(docs, 1, 4), mapping, { query: { range: { n: { gte: from, lt: to } } } }).t as Terms;
      const want = brute(from, to, size, missing);
      assert.deepEqual(
        out.buckets.map((b) => [b.key, b.doc_count]),
        want.buckets,
        `docs ${from}-${to} size ${size} missing ${missing}`,
      );
      assert.equal(out.sum_other_doc_count, want.other, `other of docs ${from}-${to} size ${size}`);
    }
  });

  it('YAML basic: two buckets, no key_as_string on keywords', () => {
    const out = runAggs({ str_terms: { terms: { field: 'str' } } }, [[[{ str: 'abc' }, { str: 'abc' }, { str: 'bcd' }]]], mapping).str_terms as Terms;
    assert.deepEqual(out, {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 'abc', doc_count: 2 },
        { key: 'bcd', doc_count: 1 },
      ],
    });
  });

  it('boolean keys are 1/0 with key_as_string true/false; dates print with the field format', () => {
    const b = runAggs({ b: { terms: { field: 'flag' } } }, [[[{ flag: true }, { flag: false }, { flag: true }]]], mapping).b as Terms;
    assert.deepEqual(b.buckets, [
      { key: 1, key_as_string: 'true', doc_count: 2 },
      { key: 0, key_as_string: 'false', doc_count: 1 },
    ]);
    const d = runAggs({ d: { terms: { field: 'date' } } }, [[[{ date: '2016-05-03' }, { date: '2014-09-01' }, { date: '2016-05-03' }]]], mapping)
      .d as Terms;
    assert.deepEqual(d.buckets, [
      { key: 1462233600000, key_as_string: '2016-05-03T00:00:00.000Z', doc_count: 2 },
      { key: 1409529600000, key_as_string: '2014-09-01T00:00:00.000Z', doc_count: 1 },
    ]);
    const inc = runAggs({ d: { terms: { field: 'date', include: ['2016-05-03'] } } }, [[[{ date: '2016-05-03' }, { date: '2014-09-01' }]]], mapping)
      .d as Terms;
    assert.deepEqual(inc.buckets.map((x) => x.key_as_string), ['2016-05-03T00:00:00.000Z']);
  });

  it('numeric keys: longs and doubles mixed across shards become doubles', () => {
    const longMapping = mappingOf({ number: 'long' });
    const dblMapping = mappingOf({ number: 'double' });
    // one "index" with longs, one with doubles: collect separately, reduce together
    const a = runAggs({ t: { terms: { field: 'number' } } }, [[[{ number: 100 }, { number: 10 }]]], longMapping);
    assert.equal((a.t as Terms).buckets.length, 2);
    const b = runAggs({ t: { terms: { field: 'number' } } }, [[[{ number: 100 }, { number: 10 }, { number: 14.6 }]]], dblMapping);
    assert.deepEqual((b.t as Terms).buckets.map((x) => x.key), [10, 14.6, 100]);
  });

  it('partitions follow Elasticsearch hashes (YAML expectations)', () => {
    const docs = [[[{ str: 'abc' }, { str: 'abc' }, { str: 'bcd' }]]];
    const p0 = runAggs({ t: { terms: { field: 'str', include: { partition: 0, num_partitions: 2 } } } }, docs, mapping).t as Terms;
    const p1 = runAggs({ t: { terms: { field: 'str', include: { partition: 1, num_partitions: 2 } } } }, docs, mapping).t as Terms;
    assert.deepEqual(p0.buckets.map((b) => b.key), ['bcd']);
    assert.deepEqual(p1.buckets.map((b) => b.key), ['abc']);
    const ints = [[[{ num: 1234 }, { num: 5678 }, { num: 1234 }]]];
    const i0 = runAggs({ t: { terms: { field: 'num', include: { partition: 0, num_partitions: 2 } } } }, ints, mapping).t as Terms;
    const i1 = runAggs({ t: { terms: { field: 'num', include: { partition: 1, num_partitions: 2 } } } }, ints, mapping).t as Terms;
    assert.deepEqual(i0.buckets.map((b) => b.key), [5678]);
    assert.deepEqual(i1.buckets.map((b) => b.key), [1234]);
  });

  it('include/exclude by regex and by values', () => {
    const docs = [[[{ str: 'apple' }, { str: 'apricot' }, { str: 'banana' }, { str: 'avocado' }]]];
    const re = runAggs({ t: { terms: { field: 'str', include: 'ap.*', exclude: ['apricot'] } } }, docs, mapping).t as Terms;
    assert.deepEqual(re.buckets.map((b) => b.key), ['apple']);
  });

  it('missing, unmapped with value_type, and min_doc_count 0', () => {
    const docs: Doc[][][] = [[[{ str: 'a' }, {}, { str: 'b' }], [{}, { str: 'a' }]]];
    const m = runAggs({ t: { terms: { field: 'str', missing: 'N/A' } } }, docs, mapping).t as Terms;
    assert.deepEqual(m.buckets.map((b) => [b.key, b.doc_count]), [['N/A', 2], ['a', 2], ['b', 1]]);
    const u = runAggs({ t: { terms: { field: 'nope', value_type: 'boolean', missing: true } } }, [[[{}]]], mapping).t as Terms;
    assert.deepEqual(u.buckets, [{ key: 1, key_as_string: 'true', doc_count: 1 }]);
    const ud = runAggs({ t: { terms: { field: 'nope', value_type: 'date', missing: '2016-05-11' } } }, [[[{}]]], mapping).t as Terms;
    assert.deepEqual(ud.buckets, [{ key: 1462924800000, key_as_string: '2016-05-11T00:00:00.000Z', doc_count: 1 }]);
    const un = runAggs({ t: { terms: { field: 'nope' } } }, [[[{ str: 'x' }]]], mapping, { typedKeys: true });
    assert.deepEqual(un, { 'sterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] } });
    const zero = runAggs({ t: { terms: { field: 'str', min_doc_count: 0 } } }, docs, mapping, { query: { term: { str: 'a' } } }).t as Terms;
    assert.deepEqual(zero.buckets.map((b) => [b.key, b.doc_count]), [['a', 2], ['b', 0]]);
  });

  it('order by _key, by _count asc and by a sub-aggregation metric', () => {
    const docs: Doc[] = [
      { str: 'a', n: 10 },
      { str: 'a', n: 20 },
      { str: 'b', n: 100 },
      { str: 'c', n: 1 },
      { str: 'c', n: 2 },
      { str: 'c', n: 3 },
    ];
    const shards = split(docs, 2, 1);
    const key = runAggs({ t: { terms: { field: 'str', order: { _term: 'desc' } } } }, shards, mapping).t as Terms;
    assert.deepEqual(key.buckets.map((b) => b.key), ['c', 'b', 'a']);
    const asc = runAggs({ t: { terms: { field: 'str', order: { _count: 'asc' } } } }, shards, mapping).t as Terms;
    assert.deepEqual(asc.buckets.map((b) => b.key), ['b', 'a', 'c']);
    const byAvg = runAggs({ t: { terms: { field: 'str', order: { avg_n: 'desc' } }, aggs: { avg_n: { avg: { field: 'n' } } } } }, shards, mapping)
      .t as Terms;
    assert.deepEqual(byAvg.buckets.map((b) => b.key), ['b', 'a', 'c']);
    const byStats = runAggs(
      { t: { terms: { field: 'str', order: { 's.max': 'asc' } }, aggs: { s: { stats: { field: 'n' } } } } },
      shards,
      mapping,
    ).t as Terms;
    assert.deepEqual(byStats.buckets.map((b) => b.key), ['c', 'a', 'b']);
  });

  it('doc_count_error_upper_bound and sum_other_doc_count as Elasticsearch computes them', () => {
    // shard 1: a:10 b:8 c:6 d:1 ; shard 2: b:9 d:8 c:2 a:1 ; size 2, shard_size 2
    const s1: Doc[] = [...Array(10).fill({ str: 'a' }), ...Array(8).fill({ str: 'b' }), ...Array(6).fill({ str: 'c' }), { str: 'd' }];
    const s2: Doc[] = [...Array(9).fill({ str: 'b' }), ...Array(8).fill({ str: 'd' }), ...Array(2).fill({ str: 'c' }), { str: 'a' }];
    const out = runAggs(
      { t: { terms: { field: 'str', size: 2, shard_size: 2, show_term_doc_count_error: true } } },
      [[s1], [s2]],
      mapping,
    ).t as { doc_count_error_upper_bound: number; sum_other_doc_count: number; buckets: { key: string; doc_count: number; doc_count_error_upper_bound: number }[] };
    // shard tops: s1 → a10 b8 (other 7, error 8); s2 → b9 d8 (other 3, error 8)
    // merged: b17 a10 d8 → top 2: b17, a10; d8 falls off → other 7+3+8 = 18
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count, b.doc_count_error_upper_bound]), [
      ['b', 17, 0],
      ['a', 10, 8],
    ]);
    assert.equal(out.doc_count_error_upper_bound, 16);
    assert.equal(out.sum_other_doc_count, 18);
    const one = runAggs({ t: { terms: { field: 'str', size: 2, shard_size: 2 } } }, [[s1]], mapping).t as Terms;
    assert.equal(one.doc_count_error_upper_bound, 0);
    const asc = runAggs({ t: { terms: { field: 'str', size: 2, shard_size: 2, order: { _count: 'asc' } } } }, [[s1], [s2]], mapping).t as Terms;
    assert.equal(asc.doc_count_error_upper_bound, -1);
  });

  it('multi-valued keywords count a doc once per value; nested terms', () => {
    const docs: Doc[] = [{ str: ['x', 'y'], num: 1 }, { str: ['y'], num: 1 }, { str: 'x', num: 2 }];
    const out = runAggs({ t: { terms: { field: 'str' }, aggs: { n: { terms: { field: 'num' } } } } }, split(docs, 2, 1), mapping, { typedKeys: true });
    assert.deepEqual(out, {
      'sterms#t': {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'x', doc_count: 2, 'lterms#n': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 1, doc_count: 1 }, { key: 2, doc_count: 1 }] } },
          { key: 'y', doc_count: 2, 'lterms#n': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 1, doc_count: 2 }] } },
        ],
      },
    });
  });

  it('a shard cut at shard_size keeps every bucket above the cut-off count and the lowest keys at it', () => {
    // 400 keys, counts 1..4 with many ties: one shard, so the buckets are exact
    const docs: Doc[] = [];
    const r = rng(7);
    for (let k = 0; k < 400; k++) {
      const n = 1 + Math.floor(r() * 4);
      for (let i = 0; i < n; i++) docs.push({ str: `k${String(Math.floor(r() * 1e6)).padStart(6, '0')}-${k}` });
    }
    const counts = new Map<string, number>();
    for (const d of docs) counts.set(d.str as string, (counts.get(d.str as string) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const size of [1, 37, 150, 399, 400, 500]) {
      const out = runAggs({ t: { terms: { field: 'str', size } } }, split(docs, 1, 3), mapping, { ctx: { numberOfShards: 1 } }).t as Terms;
      const want = ranked.slice(0, size);
      assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), want, `size ${size}`);
      assert.equal(out.sum_other_doc_count, docs.length - want.reduce((a, [, c]) => a + c, 0));
      assert.equal(out.doc_count_error_upper_bound, 0);
    }
  });

  it('terms below terms cut each parent bucket at its own shard_size, ties by key', () => {
    const docs: Doc[] = [];
    const r = rng(11);
    for (let i = 0; i < 3000; i++) docs.push({ num: Math.floor(r() * 4), str: `v${Math.floor(r() * 60)}` });
    const out = runAggs({ t: { terms: { field: 'num' }, aggs: { s: { terms: { field: 'str', size: 7 } } } } }, split(docs, 1, 2), mapping, {
      ctx: { numberOfShards: 1 },
    }).t as { buckets: { key: number; doc_count: number; s: Terms }[] };
    assert.equal(out.buckets.length, 4);
    for (const b of out.buckets) {
      const counts = new Map<string, number>();
      for (const d of docs) if (d.num === b.key) counts.set(d.str as string, (counts.get(d.str as string) ?? 0) + 1);
      const want = [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, 7);
      assert.deepEqual(b.s.buckets.map((x) => [x.key, x.doc_count]), want, `num ${b.key}`);
      assert.equal(b.s.sum_other_doc_count, b.doc_count - want.reduce((a, [, c]) => a + c, 0));
    }
  });

  it('over every doc, counts kept from a first search answer the next: counts past 65,535 as below it', () => {
    // 70,000 docs of "big", 3 of "small", in two segments: the kept counts must hold a count of 70,000
    const segments: Doc[][] = [[], []];
    for (let i = 0; i < 70_000; i++) segments[i % 2]!.push({ str: 'big' });
    segments[0]!.push({ str: 'small' }, { str: 'small' });
    segments[1]!.push({ str: 'small' });
    let base = 0;
    const views = segments.map((docs, i) => {
      const view = viewOf(buildSegment(docs, mapping, `wide${i}`), base);
      base += docs.length;
      return view;
    });
    const specs = parseAggregations({ t: { terms: { field: 'str' } } }, mapping);
    const search = () => {
      const state = collectShardAggs(specs, views.map((v) => matchSet(v, { match_all: {} })), aggContext(mapping));
      return (reduceAggs(specs, [state], { typedKeys: false }).t as Terms).buckets.map((b) => [b.key, b.doc_count]);
    };
    fieldDataCache.clear();
    assert.deepEqual(search(), [['big', 70_000], ['small', 3]], 'cold');
    const kept = fieldDataCache.size;
    assert.deepEqual(search(), [['big', 70_000], ['small', 3]], 'warm');
    assert.equal(fieldDataCache.size, kept, 'the warm search read what the cold one kept');
  });
});
