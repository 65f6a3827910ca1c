import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mappingOf, rng, runAggs, split, type Doc } from './fixtures.ts';

describe('adjacency_matrix', () => {
  it('counts every single and pair of 6 filters as brute force does, over shards and segments', () => {
    const mapping = mappingOf({ t: 'keyword' });
    const next = rng(3);
    const tags = ['f', 'b', 'e', 'a', 'd', 'c'];
    const docs: Doc[] = Array.from({ length: 300 }, () => ({ t: tags.filter(() => next() < 0.35) }));
    const filters = Object.fromEntries(tags.map((t) => [t, { term: { t } }]));
    const out = runAggs({ m: { adjacency_matrix: { filters } } }, split(docs, 3, 2), mapping) as { m: { buckets: { key: string; doc_count: number }[] } };
    const want = new Map<string, number>();
    const sorted = [...tags].sort();
    for (const d of docs) {
      const has = sorted.filter((t) => (d.t as string[]).includes(t));
      for (let i = 0; i < has.length; i++) {
        want.set(has[i]!, (want.get(has[i]!) ?? 0) + 1);
        for (let j = i + 1; j < has.length; j++) want.set(`${has[i]}&${has[j]}`, (want.get(`${has[i]}&${has[j]}`) ?? 0) + 1);
      }
    }
    const keys = [...want.keys()].sort();
    assert.deepEqual(out.m.buckets.map((b) => b.key), keys);
    assert.deepEqual(Object.fromEntries(out.m.buckets.map((b) => [b.key, b.doc_count])), Object.fromEntries(want));
  });
});
