import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mappingOf, rng, runAggs, split, type Doc } from './fixtures.ts';

const mapping = mappingOf({ ts: 'date', v: 'long', land: 'keyword' });
type Buckets = { buckets: { key: number; key_as_string?: string; doc_count: number; [k: string]: unknown }[] };

describe('date_histogram', () => {
  it('buckets per day with empty days filled between min and max (min_doc_count 0)', () => {
    const docs: Doc[] = [
      { ts: '2024-01-01T10:00:00Z' },
      { ts: '2024-01-01T23:59:59Z' },
      { ts: '2024-01-03T00:00:00Z' },
      { ts: '2024-01-05T08:00:00Z' },
    ];
    const out = runAggs({ h: { date_histogram: { field: 'ts', interval: 'day' } } }, split(docs, 2, 2), mapping).h as Buckets;
    assert.deepEqual(
      out.buckets.map((b) => [b.key_as_string, b.doc_count]),
      [
        ['2024-01-01T00:00:00.000Z', 2],
        ['2024-01-02T00:00:00.000Z', 0],
        ['2024-01-03T00:00:00.000Z', 1],
        ['2024-01-04T00:00:00.000Z', 0],
        ['2024-01-05T00:00:00.000Z', 1],
      ],
    );
    assert.equal(out.buckets[0]!.key, Date.UTC(2024, 0, 1));
    const sparse = runAggs({ h: { date_histogram: { field: 'ts', interval: '1d', min_doc_count: 1 } } }, split(docs, 2, 2), mapping).h as Buckets;
    assert.equal(sparse.buckets.length, 3);
  });

  it('calendar months, fixed 12h intervals, offset and keyed output', () => {
    const docs: Doc[] = [{ ts: '2010-03-12T01:07:45Z' }, { ts: '2010-03-12T04:11:00Z' }, { ts: '2010-04-27T03:43:34Z' }];
    const m = runAggs({ h: { date_histogram: { field: 'ts', interval: 'month' } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(m.buckets.map((b) => [b.key, b.doc_count]), [[Date.UTC(2010, 2, 1), 2], [Date.UTC(2010, 3, 1), 1]]);
    const h = runAggs({ h: { date_histogram: { field: 'ts', interval: '12h', min_doc_count: 1 } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(h.buckets.map((b) => b.key), [Date.UTC(2010, 2, 12), Date.UTC(2010, 3, 27)]);
    const o = runAggs({ h: { date_histogram: { field: 'ts', interval: 'day', offset: '+2h', min_doc_count: 1 } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(o.buckets.map((b) => [b.key, b.doc_count]), [
      [Date.UTC(2010, 2, 11, 2), 1],
      [Date.UTC(2010, 2, 12, 2), 1],
      [Date.UTC(2010, 3, 27, 2), 1],
    ]);
    const k = runAggs({ h: { date_histogram: { field: 'ts', interval: 'month', keyed: true } } }, [[docs]], mapping).h as {
      buckets: Record<string, { doc_count: number }>;
    };
    assert.deepEqual(Object.keys(k.buckets), ['2010-03-01T00:00:00.000Z', '2010-04-01T00:00:00.000Z']);
  });

  it('time zones shift bucket starts and key_as_string', () => {
    const docs: Doc[] = [{ ts: '2024-01-01T23:30:00Z' }, { ts: '2024-01-02T00:30:00Z' }];
    const utc = runAggs({ h: { date_histogram: { field: 'ts', interval: 'day' } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(utc.buckets.map((b) => b.doc_count), [1, 1]);
    const plus = runAggs({ h: { date_histogram: { field: 'ts', interval: 'day', time_zone: '+01:00' } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(plus.buckets.map((b) => [b.key, b.key_as_string, b.doc_count]), [
      [Date.UTC(2024, 0, 1, 23), '2024-01-02T00:00:00.000+01:00', 2],
    ]);
    // Europe/Paris around the spring DST change: days are 23h long
    const dst: Doc[] = [{ ts: '2024-03-30T12:00:00Z' }, { ts: '2024-03-31T12:00:00Z' }, { ts: '2024-04-01T12:00:00Z' }];
    const paris = runAggs({ h: { date_histogram: { field: 'ts', interval: 'day', time_zone: 'Europe/Paris' } } }, [[dst]], mapping).h as Buckets;
    assert.deepEqual(paris.buckets.map((b) => b.key), [Date.UTC(2024, 2, 29, 23), Date.UTC(2024, 2, 30, 23), Date.UTC(2024, 2, 31, 22)]);
  });

  it('extended_bounds add empty buckets before and after the data', () => {
    const docs: Doc[] = [{ ts: '2024-01-03T10:00:00Z' }];
    const out = runAggs(
      { h: { date_histogram: { field: 'ts', interval: 'day', extended_bounds: { min: '2024-01-01', max: '2024-01-05' } } } },
      [[docs]],
      mapping,
    ).h as Buckets;
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), [
      [Date.UTC(2024, 0, 1), 0],
      [Date.UTC(2024, 0, 2), 0],
      [Date.UTC(2024, 0, 3), 1],
      [Date.UTC(2024, 0, 4), 0],
      [Date.UTC(2024, 0, 5), 0],
    ]);
    const none = runAggs(
      { h: { date_histogram: { field: 'ts', interval: 'day', extended_bounds: { min: 'now-2d/d', max: 'now/d' } } } },
      [[[]]],
      mapping,
    ).h as Buckets;
    assert.equal(none.buckets.length, 3);
  });

  it('sub-aggregations per bucket, empty buckets get empty metrics, order by _count desc', () => {
    const docs: Doc[] = [
      { ts: '2024-01-01T01:00:00Z', v: 1 },
      { ts: '2024-01-01T02:00:00Z', v: 3 },
      { ts: '2024-01-03T02:00:00Z', v: 10 },
    ];
    const out = runAggs({ h: { date_histogram: { field: 'ts', interval: 'day' }, aggs: { s: { sum: { field: 'v' } }, a: { avg: { field: 'v' } } } } }, split(docs, 2, 1), mapping)
      .h as Buckets;
    assert.deepEqual(out.buckets.map((b) => [b.doc_count, b.s, b.a]), [
      [2, { value: 4 }, { value: 2 }],
      [0, { value: 0 }, { value: null }],
      [1, { value: 10 }, { value: 10 }],
    ]);
    const byCount = runAggs({ h: { date_histogram: { field: 'ts', interval: 'day', order: { _count: 'desc' } } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(byCount.buckets.map((b) => b.doc_count), [2, 1, 0]);
  });
});

describe('histogram', () => {
  it('floors values to the interval with offset and fills gaps', () => {
    const docs: Doc[] = [{ v: 1 }, { v: 4 }, { v: 12 }, { v: 13 }, { v: -3 }];
    const out = runAggs({ h: { histogram: { field: 'v', interval: 5 } } }, split(docs, 2, 2), mapping).h as Buckets;
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), [[-5, 1], [0, 2], [5, 0], [10, 2]]);
    const off = runAggs({ h: { histogram: { field: 'v', interval: 5, offset: 1, min_doc_count: 1 } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(off.buckets.map((b) => [b.key, b.doc_count]), [[-4, 1], [1, 2], [11, 2]]);
    const eb = runAggs({ h: { histogram: { field: 'v', interval: 10, extended_bounds: { min: -20, max: 30 } } } }, [[docs]], mapping).h as Buckets;
    assert.deepEqual(eb.buckets.map((b) => b.key), [-20, -10, 0, 10, 20, 30]);
  });
});

describe('range and date_range', () => {
  it('ranges sorted by from, keys as Java prints doubles, keyed', () => {
    const docs: Doc[] = [{ v: 5 }, { v: 50 }, { v: 150 }, { v: 100 }, {}];
    const out = runAggs({ r: { range: { field: 'v', ranges: [{ from: 100 }, { to: 100 }, { from: 10, to: 100, key: 'mid' }] } } }, split(docs, 2, 1), mapping);
    assert.deepEqual(out.r, {
      buckets: [
        { key: '*-100.0', to: 100, doc_count: 2 },
        { key: 'mid', from: 10, to: 100, doc_count: 1 },
        { key: '100.0-*', from: 100, doc_count: 2 },
      ],
    });
    const keyed = runAggs({ r: { range: { field: 'v', keyed: true, ranges: [{ to: 10 }] } } }, [[docs]], mapping).r as { buckets: Record<string, unknown> };
    assert.deepEqual(keyed.buckets, { '*-10.0': { to: 10, doc_count: 1 } });
  });

  it('date_range with date math and formatted bounds', () => {
    const docs: Doc[] = [{ ts: '2024-01-14T10:00:00Z' }, { ts: '2024-01-10T00:00:00Z' }, { ts: '2023-12-01T00:00:00Z' }];
    // now = 2024-01-15T12:00Z
    const out = runAggs({ r: { date_range: { field: 'ts', ranges: [{ from: 'now-7d/d' }, { to: '2024-01-01' }] } } }, [[docs]], mapping).r as {
      buckets: { key: string; from?: number; from_as_string?: string; to_as_string?: string; doc_count: number }[];
    };
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), [
      ['*-2024-01-01T00:00:00.000Z', 1],
      ['2024-01-08T00:00:00.000Z-*', 2],
    ]);
    assert.equal(out.buckets[1]!.from_as_string, '2024-01-08T00:00:00.000Z');
  });

  it('date_range reads numeric bounds with the format, as a range query does (epoch_second: seconds)', () => {
    const docs: Doc[] = [{ ts: '2024-01-01T10:00:00Z' }, { ts: '2024-01-02T10:00:00Z' }];
    const day = Date.UTC(2024, 0, 1) / 1000;
    const out = runAggs({ r: { date_range: { field: 'ts', format: 'epoch_second', ranges: [{ from: day, to: day + 86400 }] } } }, [[docs]], mapping).r as {
      buckets: { key: string; from: number; to: number; doc_count: number }[];
    };
    assert.deepEqual(out.buckets.map((b) => [b.key, b.from, b.to, b.doc_count]), [[`${day}-${day + 86400}`, day * 1000, (day + 86400) * 1000, 1]]);
  });
});

describe('histogram below a bucket aggregation', () => {
  type Nested = { buckets: { key: string; doc_count: number; h: { buckets: { key: number; doc_count: number }[] } }[] };

  /** Per term, per bucket key (floor of value / interval × interval), the docs: computed from the docs alone. */
  function expected(docs: readonly Doc[], interval: number): Map<string, [number, number][]> {
    const out = new Map<string, Map<number, number>>();
    for (const d of docs) {
      const values = d.v === undefined || d.v === null ? [] : Array.isArray(d.v) ? d.v : [d.v];
      const keys = new Set(values.map((v) => Math.floor((v as number) / interval) * interval));
      const m = out.get(d.str as string) ?? new Map<number, number>();
      out.set(d.str as string, m);
      for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
    }
    return new Map([...out].map(([t, m]) => [t, [...m].sort((a, b) => a[0] - b[0])]));
  }

  function check(docs: readonly Doc[], interval: number): void {
    const mapping = mappingOf({ str: 'keyword', v: 'long' });
    const out = runAggs(
      { t: { terms: { field: 'str', size: 100 }, aggs: { h: { histogram: { field: 'v', interval, min_doc_count: 1 } } } } },
      split(docs, 3, 2),
      mapping,
    ).t as Nested;
    const want = expected(docs, interval);
    assert.equal(out.buckets.length, want.size);
    for (const b of out.buckets) assert.deepEqual(b.h.buckets.map((x) => [x.key, x.doc_count]), want.get(b.key), b.key);
  }

  it('counts per parent bucket and key, single- and multi-valued', () => {
    const r = rng(3);
    const single: Doc[] = [];
    for (let i = 0; i < 4000; i++) single.push({ str: `t${Math.floor(r() * 40)}`, v: Math.floor(r() * 1000) - 300 });
    check(single, 50);
    const multi: Doc[] = [];
    for (let i = 0; i < 2000; i++) multi.push({ str: `t${Math.floor(r() * 40)}`, v: i % 7 === 0 ? [] : [Math.floor(r() * 500), Math.floor(r() * 500), 7] });
    check(multi, 25);
  });

  it('keys too spread for one table of parent × key still count right', () => {
    // 64 parents × a million one-wide keys is past the flat table's size
    const r = rng(5);
    const docs: Doc[] = [];
    for (let i = 0; i < 3000; i++) docs.push({ str: `t${Math.floor(r() * 64)}`, v: i < 1500 ? Math.floor(r() * 100) : Math.floor(r() * 1_000_000) });
    check(docs, 1);
  });
});
