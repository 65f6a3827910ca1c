/**
 * The coordinator's merge of shard results whose hits each have one number
 * as sort value, from the column they travel in (sort-rows.ts withSortRows):
 * the same page as from the rows, ties across shards by shard then position,
 * and no rows made for the hits the page leaves out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { mergeTopHits } from '../../../shared/engine/search/merge-top-hits.ts';
import type { ShardQueryResult } from '../../../shared/engine/search/types.ts';
import { packSortRows, withSortRows } from '../../../services/node/shard-worker/sort-rows.ts';
import { prng } from '../../../services/passinfo/pass-record-generator.ts';

function shardLists(seed: number, desc: boolean): number[][] {
  const r = prng(seed);
  // Few distinct times: ties inside a shard and across shards.
  return Array.from({ length: 5 }, () =>
    Array.from({ length: 300 }, () => 1.7e12 + Math.floor(r() * 50) * 1000).sort((a, b) => (desc ? b - a : a - b)),
  );
}

function asRows(keys: number[]): ShardQueryResult {
  return { totalHits: keys.length, maxScore: NaN, docs: Int32Array.from(keys, (_, i) => i * 2), scores: new Float32Array(keys.length).fill(NaN), sortValues: keys.map((k) => [k]), terminatedEarly: null, matches: null };
}

for (const desc of [false, true]) {
  test(`a page merged from sort columns equals the page merged from rows (${desc ? 'desc' : 'asc'})`, () => {
    const search = parseSearchBody({ sort: [{ pass_time: desc ? 'desc' : 'asc' }], size: 400 }, {});
    const lists = shardLists(desc ? 2 : 1, desc);
    const fromRows = mergeTopHits(search, lists.map(asRows), 10, 400);
    let rowsMade = 0;
    const fromColumns = lists.map((keys) => {
      const base = asRows(keys);
      const wire = { ...base, sortValues: packSortRows(base.sortValues!) };
      const result = withSortRows(wire);
      assert.ok(result.sortColumn !== undefined);
      return new Proxy(result, {
        get(target, key) {
          if (key === 'sortValues') rowsMade++;
          return Reflect.get(target, key) as unknown;
        },
      }) as ShardQueryResult;
    });
    assert.deepEqual(mergeTopHits(search, fromColumns, 10, 400), fromRows);
    assert.equal(rowsMade, 0);
  });
}
