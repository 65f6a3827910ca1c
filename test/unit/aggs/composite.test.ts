import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareCompositeKeys, compareCompositeValues } from '../../../shared/engine/aggs/composite-key.ts';
import { mappingOf, rng, runAggs, split, type Doc } from './fixtures.ts';

describe('composite key order', () => {
  it('null first, numbers before strings, numbers by value, strings by code unit', () => {
    const values = ['b', 3, null, 'a', -1, 'B', 2.5];
    assert.deepEqual([...values].sort(compareCompositeValues), [null, -1, 2.5, 3, 'B', 'a', 'b']);
  });
  it('compares source by source, each in its own direction', () => {
    const keys = [
      ['a', 1],
      ['a', 2],
      ['b', 1],
      [null, 5],
    ];
    assert.deepEqual([...keys].sort((x, y) => compareCompositeKeys(x, y, [true, false])), [[null, 5], ['a', 2], ['a', 1], ['b', 1]]);
    assert.deepEqual([...keys].sort((x, y) => compareCompositeKeys(x, y, [false, true])), [['b', 1], ['a', 1], ['a', 2], [null, 5]]);
  });
});

describe('composite paging', () => {
  const mapping = mappingOf({ tag: 'keyword', n: 'long', x: 'double' });
  const next = rng(7);
  const docs: Doc[] = Array.from({ length: 400 }, () => {
    const d: Doc = { n: Math.floor(next() * 9) };
    const r = next();
    if (r < 0.2) d.tag = [`t${Math.floor(next() * 12)}`, `t${Math.floor(next() * 12)}`];
    else if (r < 0.9) d.tag = `t${Math.floor(next() * 12)}`;
    if (next() < 0.8) d.x = Math.round(next() * 1000) / 10;
    return d;
  });
  const shards = split(docs, 3, 2);

  function expected(): Map<string, number> {
    const out = new Map<string, number>();
    for (const d of docs) {
      const tags = d.tag === undefined ? [null] : [...new Set(Array.isArray(d.tag) ? d.tag : [d.tag])];
      const hist = d.x === undefined ? null : Math.floor((d.x as number) / 25) * 25;
      for (const t of tags) {
        const k = JSON.stringify([t, d.n, hist]);
        out.set(k, (out.get(k) ?? 0) + 1);
      }
    }
    return out;
  }

  for (const size of [1, 5, 64]) {
    it(`pages of ${size} over 3 shards × 2 segments return every key once, exact counts, in order`, () => {
      const sources = [
        { tag: { terms: { field: 'tag', missing_bucket: true } } },
        { n: { terms: { field: 'n', order: 'desc' } } },
        { h: { histogram: { field: 'x', interval: 25, missing_bucket: true } } },
      ];
      const got = new Map<string, number>();
      const order: unknown[][] = [];
      let after: Record<string, unknown> | undefined;
      for (let guard = 0; guard < 1000; guard++) {
        const out = runAggs({ c: { composite: { size, sources, ...(after ? { after } : {}) } } }, shards, mapping) as {
          c: { after_key?: Record<string, unknown>; buckets: { key: { tag: string | null; n: number; h: number | null }; doc_count: number }[] };
        };
        if (out.c.buckets.length === 0) break;
        assert.ok(out.c.buckets.length <= size);
        for (const b of out.c.buckets) {
          const k = JSON.stringify([b.key.tag, b.key.n, b.key.h]);
          assert.ok(!got.has(k), `key ${k} seen twice`);
          got.set(k, b.doc_count);
          order.push([b.key.tag, b.key.n, b.key.h]);
        }
        after = out.c.after_key;
      }
      assert.deepEqual(Object.fromEntries(got), Object.fromEntries(expected()));
      const sorted = [...order].sort((a, b) => compareCompositeKeys(a as never, b as never, [true, false, true]));
      assert.deepEqual(order, sorted);
    });
  }
});
