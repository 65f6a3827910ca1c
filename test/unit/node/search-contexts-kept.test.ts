/**
 * A scroll context keeps the query phase its shard ran ahead with the fetch
 * of a page (search-contexts.ts, KeptQuery): the next page may take it only
 * while the context's cursor is the one it was run from and for the page
 * size it was run for, and the node holds a bounded amount of them.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SearchContexts } from '../../../services/node/search/search-contexts.ts';
import type { ShardCursor, ShardQueryResult } from '../../../shared/engine/search/types.ts';

const released: number[] = [];
const owner = { release: (id: number) => released.push(id) };
const contexts = new SearchContexts(1000);
after(() => contexts.close());

function result(docs: number[]): ShardQueryResult {
  return { totalHits: docs.length, maxScore: NaN, docs: Int32Array.from(docs), scores: new Float32Array(docs.length).fill(NaN), sortValues: null, terminatedEarly: null, matches: null };
}

function cursor(doc: number): ShardCursor {
  return { sortValues: [doc], score: NaN, doc };
}

describe('a query phase kept with a scroll context', () => {
  test('is taken while the cursor is the one it ran from, for its page size', () => {
    const id = contexts.open(owner, 60_000);
    const first = result([0, 1, 2]);
    contexts.keep(id, { after: null, size: 3, result: first });
    assert.equal(contexts.kept(id, 3), first);
    assert.equal(contexts.kept(id, 4), null, 'another page size');
    const c = cursor(2);
    const next = result([3, 4, 5]);
    contexts.keep(id, { after: c, size: 3, result: next });
    assert.equal(contexts.kept(id, 3), null, 'the cursor has not moved to it yet');
    contexts.advance(id, c);
    assert.equal(contexts.kept(id, 3), next);
    // An equal cursor that is not the one it ran from (another page's) does not take it.
    contexts.advance(id, cursor(2));
    assert.equal(contexts.kept(id, 3), null);
  });

  test('goes with its context', () => {
    const id = contexts.open(owner, 60_000);
    contexts.keep(id, { after: null, size: 2, result: result([7, 8]) });
    assert.equal(contexts.free(id), true);
    assert.equal(contexts.kept(id, 2), null);
    assert.ok(released.includes(id));
  });

  test('is not kept past the node budget, and the budget comes back when contexts go', () => {
    // 10,000 hits: 80 KB each; the budget (16 MiB) holds about 200 of them.
    const big = () => result(Array.from({ length: 10_000 }, (_, i) => i));
    const ids: number[] = [];
    for (let i = 0; i < 260; i++) {
      const id = contexts.open(owner, 60_000);
      ids.push(id);
      contexts.keep(id, { after: null, size: 10_000, result: big() });
    }
    const keptCount = ids.filter((id) => contexts.kept(id, 10_000) !== null).length;
    assert.ok(keptCount >= 150 && keptCount < 260, `kept ${keptCount}`);
    const last = ids[ids.length - 1]!;
    assert.equal(contexts.kept(last, 10_000), null);
    for (const id of ids.slice(0, 100)) contexts.free(id);
    contexts.keep(last, { after: null, size: 10_000, result: big() });
    assert.notEqual(contexts.kept(last, 10_000), null);
    for (const id of ids.slice(100)) contexts.free(id);
  });
});
