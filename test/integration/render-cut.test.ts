/**
 * A plain search of a small page renders each shard's hits with its query
 * phase, and a worker holding several shards of the search renders only the
 * hits its shards so far have not already put past the page
 * (shard-worker/render-cut.ts). The page must be the one the fetch phase
 * gives: the same hits, ties included, as the first hits of a page too big
 * to be rendered with the query phase.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

interface Hit {
  _id: string;
  _score: number;
  _source: { body: string };
}
const hitsOf = async (body: unknown): Promise<Hit[]> => {
  const r = await req('POST', '/cut/_search', body);
  assert.equal(r.status, 200, r.text.slice(0, 500));
  return (r.body as { hits: { hits: Hit[] } }).hits.hits;
};

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/cut', { settings: { number_of_shards: 5, number_of_replicas: 0 }, mappings: { _doc: { properties: { body: { type: 'text' } } } } })).status, 200);
  // Few distinct texts over 300 docs: many hits tie within a shard, and the shards' scores interleave.
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    const body = [...Array.from({ length: 1 + (i % 4) }, () => 'a'), ...Array.from({ length: (i * 7) % 5 }, (_, k) => `w${k}`), i % 3 === 0 ? 'b' : 'c'].join(' ');
    lines.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}` } }), JSON.stringify({ body }));
  }
  const bulk = await req('POST', '/cut/_bulk?refresh=true', lines.join('\n') + '\n');
  assert.equal((bulk.body as { errors: boolean }).errors, false);
});
after(async () => {
  await server.stop();
});

describe('a small page rendered with the query phase', () => {
  test('holds the hits the fetch phase gives, ties included', async () => {
    for (const query of [{ match: { body: 'a' } }, { match: { body: 'a b' } }, { match: { body: { query: 'a c', operator: 'and' } } }, { term: { body: 'b' } }]) {
      // 40 hits is past the query-and-fetch page: those are fetched after the merge, none cut.
      const all = await hitsOf({ query, size: 40 });
      assert.equal(all.length, 40);
      for (const [from, size] of [[0, 10], [0, 1], [0, 3], [2, 5], [5, 5], [9, 1]] as const) {
        for (const timeout of [undefined, '30s']) {
          const page = await hitsOf({ query, from, size, ...(timeout === undefined ? {} : { timeout }) });
          assert.deepEqual(page, all.slice(from, from + size), `${JSON.stringify(query)} from ${from} size ${size}${timeout === undefined ? '' : ' with a timeout'}`);
        }
      }
    }
  });
});
