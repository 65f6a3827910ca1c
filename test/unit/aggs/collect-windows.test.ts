/**
 * A segment larger than the collection window (COLLECT_WINDOW docs) is
 * handed to the aggregators a window at a time: every doc counted once,
 * whether the query matched all of it, some of it (a bitset) or `global`
 * reads its live docs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COLLECT_WINDOW } from '../../../shared/engine/aggs/collect.ts';
import { mappingOf, runAggs, type Doc } from './fixtures.ts';

const mapping = mappingOf({ str: 'keyword', n: 'long' });

describe('collection in windows', () => {
  it('counts every doc of a segment past the window once: all docs, a filtered part, and under global', () => {
    const total = COLLECT_WINDOW + 5_000;
    const docs: Doc[] = [];
    for (let i = 0; i < total; i++) docs.push({ str: `v${i % 7}`, n: i });
    const aggs = {
      t: { terms: { field: 'str' } },
      s: { sum: { field: 'n' } },
      c: { cardinality: { field: 'n', precision_threshold: 1000 } },
      g: { global: {}, aggs: { all: { value_count: { field: 'n' } } } },
    };
    const sum = (from: number, to: number) => ((to - 1 + from) * (to - from)) / 2;
    const whole = runAggs(aggs, [[docs]], mapping);
    assert.deepEqual((whole.t as { buckets: { key: string; doc_count: number }[] }).buckets.map((b) => [b.key, b.doc_count]), [0, 1, 2, 3, 4, 5, 6].map((k) => [`v${k}`, Math.floor(total / 7) + (k < total % 7 ? 1 : 0)]));
    assert.equal((whole.s as { value: number }).value, sum(0, total));
    // straddling the window's end: docs COLLECT_WINDOW - 100 .. COLLECT_WINDOW + 100
    const from = COLLECT_WINDOW - 100;
    const part = runAggs(aggs, [[docs]], mapping, { query: { range: { n: { gte: from, lt: COLLECT_WINDOW + 100 } } } });
    assert.equal((part.s as { value: number }).value, sum(from, COLLECT_WINDOW + 100));
    assert.equal((part.c as { value: number }).value, 200);
    assert.equal(((part.g as { all: { value: number } }).all).value, total);
  });
});
