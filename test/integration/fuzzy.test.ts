/**
 * `fuzziness` on match and multi_match, and the `fuzzy` query, over HTTP.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
const ids = async (query: unknown): Promise<string[]> => {
  const r = await req('POST', '/words/_search', { query, size: 20 });
  assert.equal(r.status, 200, r.text);
  return (r.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id);
};

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/words', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { w: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' } } } } })).status, 200);
  const docs: [string, string, string][] = [
    ['1', 'quick brown fox', 'quick'],
    ['2', 'quack', 'quack'],
    ['3', 'quickly', 'quickly'],
    ['4', 'slow turtle', 'slow'],
    ['5', 'brawn', 'brawn'],
  ];
  for (const [id, w, k] of docs) await req('PUT', `/words/_doc/${id}`, { w, k, n: Number(id) });
  await req('POST', '/words/_refresh');
});
after(async () => {
  await server.stop();
});

describe('fuzziness', () => {
  test('match with fuzziness AUTO finds a swapped letter (fuzzy_transpositions defaults to true); two edits reach further', async () => {
    assert.deepEqual(await ids({ match: { w: { query: 'quikc', fuzziness: 'AUTO' } } }), ['1']);
    assert.deepEqual((await ids({ match: { w: { query: 'quick', fuzziness: 2 } } })).sort(), ['1', '2', '3']);
  });

  test('without fuzziness nothing matches a misspelling; fuzziness 0 is exact; AUTO allows no edit on short terms', async () => {
    assert.deepEqual(await ids({ match: { w: 'quikc' } }), []);
    assert.deepEqual(await ids({ match: { w: { query: 'quack', fuzziness: 0 } } }), ['2']);
    assert.deepEqual(await ids({ match: { k: { query: 'sl', fuzziness: 'AUTO' } } }), []);
  });

  test('prefix_length keeps the first characters exact; max_expansions keeps the most similar terms', async () => {
    assert.deepEqual((await ids({ match: { w: { query: 'bruwn', fuzziness: 1 } } })).sort(), ['1', '5']);
    assert.deepEqual(await ids({ match: { w: { query: 'bruwn', fuzziness: 1, prefix_length: 3 } } }), []);
    assert.deepEqual(await ids({ match: { w: { query: 'quack', fuzziness: 2, max_expansions: 1 } } }), ['2']);
  });

  test('multi_match with fuzziness, on text and keyword fields', async () => {
    assert.deepEqual((await ids({ multi_match: { query: 'slaw', fields: ['w', 'k'], fuzziness: 1 } })).sort(), ['4']);
  });

  test('the fuzzy query: transpositions off by default in 6.x, on when asked; keyword fields too', async () => {
    assert.deepEqual(await ids({ fuzzy: { w: { value: 'quikc', fuzziness: 1 } } }), []);
    assert.deepEqual(await ids({ fuzzy: { w: { value: 'quikc', fuzziness: 1, transpositions: true } } }), ['1']);
    assert.deepEqual(await ids({ fuzzy: { k: { value: 'quickyl', fuzziness: 1 } } }), []);
    assert.deepEqual(await ids({ fuzzy: { k: { value: 'quickyl', fuzziness: 1, transpositions: true } } }), ['3']);
    assert.deepEqual((await ids({ fuzzy: { k: 'quickyl' } })).sort(), ['1', '3'], 'AUTO: two edits for seven characters');
  });

  test('numbers are refused as Elasticsearch refuses them; bad fuzziness is a 400', async () => {
    const r = await req('POST', '/words/_search', { query: { fuzzy: { n: { value: 3 } } } });
    assert.equal(r.status, 400);
    assert.match(r.text, /Can only use fuzzy queries on keyword and text fields - not on \[n\] which is of type \[long\]/);
    assert.equal((await req('POST', '/words/_search', { query: { match: { w: { query: 'x', fuzziness: 'very' } } } })).status, 400);
  });

  test('highlighting marks the fuzzy matches', async () => {
    const r = await req('POST', '/words/_search', { query: { match: { w: { query: 'quikc', fuzziness: 'AUTO' } } }, highlight: { fields: { w: {} } } });
    const hit = (r.body as { hits: { hits: { _id: string; highlight: { w: string[] } }[] } }).hits.hits.find((h) => h._id === '1')!;
    assert.deepEqual(hit.highlight.w, ['<em>quick</em> brown fox']);
  });
});
