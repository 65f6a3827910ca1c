/**
 * The `completion` field type and suggester over HTTP: mapping, inputs and
 * weights in documents, prefix, fuzzy and regex suggestions reduced across
 * two shards, `_source` of the options, deletes, and the inputs read back
 * from segment files after a flush and a restart.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, tempDir, type TestServer } from '../helpers/server.ts';
import { rm } from 'node:fs/promises';

let server: TestServer;
let dir: string;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Option = { text: string; _index: string; _type: string; _id: string; _score: number; _source?: unknown };
const complete = async (suggestion: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Option[]> => {
  const r = await req('POST', '/music/_search', { ...extra, suggest: { s: suggestion } });
  assert.equal(r.status, 200, r.text);
  return (r.body as { suggest: { s: { options: Option[] }[] } }).suggest.s[0]!.options;
};
const brief = (options: Option[]) => options.map((o) => [o.text, o._id, o._score]);

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
  const mappings = { _doc: { properties: { suggest: { type: 'completion' }, title: { type: 'keyword' } } } };
  assert.equal((await req('PUT', '/music', { settings: { number_of_shards: 2 }, mappings })).status, 200);
  const docs: [string, unknown, string][] = [
    ['1', { input: ['Nevermind', 'Nirvana'], weight: 34 }, 'a'],
    ['2', [{ input: 'Nirvana Live', weight: 10 }, { input: 'Nevada', weight: 3 }], 'b'],
    ['3', 'Nirvana', 'c'],
    ['4', ['nirvana', { input: 'Nirvana', weight: '2' }], 'd'],
  ];
  for (const [id, suggest, title] of docs) assert.equal((await req('PUT', `/music/_doc/${id}?routing=${id}`, { suggest, title })).status, 201);
  await req('POST', '/music/_refresh');
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('completion field type', () => {
  test('the mapping prints every completion option with its default; contexts and other parameters are refused', async () => {
    const m = await req('GET', '/music/_mapping');
    assert.deepEqual((m.body as Record<string, { mappings: { _doc: { properties: Record<string, unknown> } } }>).music!.mappings._doc.properties.suggest, {
      type: 'completion',
      analyzer: 'simple',
      preserve_separators: true,
      preserve_position_increments: true,
      max_input_length: 50,
    });
    const contexts = await req('PUT', '/other', { mappings: { _doc: { properties: { s: { type: 'completion', contexts: [{ name: 'c', type: 'category' }] } } } } });
    assert.equal(contexts.status, 400);
    const unsupported = await req('PUT', '/other', { mappings: { _doc: { properties: { s: { type: 'completion', doc_values: false } } } } });
    assert.equal(unsupported.status, 400);
    assert.match(unsupported.text, /unsupported parameters/);
    const bad = await req('PUT', '/other', { mappings: { _doc: { properties: { s: { type: 'completion', max_input_length: 0 } } } } });
    assert.equal(bad.status, 400);
  });

  test('documents with a bad weight, an unknown key or a reserved character are refused with mapper_parsing_exception', async () => {
    for (const suggest of [{ input: 'x', weight: 2.5 }, { input: 'x', weight: -1 }, { input: 'x', wat: 1 }, 'a\u001fb', 12]) {
      const r = await req('PUT', '/music/_doc/bad', { suggest });
      assert.equal(r.status, 400, JSON.stringify(suggest));
      assert.equal((r.body as { error: { type: string } }).error.type, 'mapper_parsing_exception');
    }
    assert.equal((await req('GET', '/music/_doc/bad')).status, 404);
  });
});

describe('completion suggester', () => {
  test('a prefix completes each document once, by its best input, highest weight first, over both shards, with _source', async () => {
    const options = await complete({ prefix: 'nir', completion: { field: 'suggest' } }, { _source: ['title'] });
    assert.deepEqual(brief(options), [
      ['Nirvana', '1', 34],
      ['Nirvana Live', '2', 10],
      ['Nirvana', '4', 2],
      ['Nirvana', '3', 1],
    ]);
    assert.deepEqual(options[0], { text: 'Nirvana', _index: 'music', _type: '_doc', _id: '1', _score: 34, _source: { title: 'a' } });
  });

  test('size, skip_duplicates, _source false, text in place of prefix, and a prefix of two words', async () => {
    assert.deepEqual(brief(await complete({ prefix: 'nir', completion: { field: 'suggest', size: 1 } })), [['Nirvana', '1', 34]]);
    const dedup = await complete({ text: 'NIR', completion: { field: 'suggest', skip_duplicates: true } }, { _source: false });
    assert.deepEqual(brief(dedup), [
      ['Nirvana', '1', 34],
      ['Nirvana Live', '2', 10],
    ]);
    assert.equal(dedup[0]!._source, undefined);
    assert.deepEqual(brief(await complete({ prefix: 'nirvana l', completion: { field: 'suggest' } })), [['Nirvana Live', '2', 10]]);
    assert.deepEqual(await complete({ prefix: 'xyz', completion: { field: 'suggest' } }), []);
  });

  test('fuzzy completes a prefix with a typo; regex matches the start of the inputs', async () => {
    assert.deepEqual(brief(await complete({ prefix: 'nor', completion: { field: 'suggest', size: 2, fuzzy: { fuzziness: 1 } } })), [
      ['Nirvana', '1', 34],
      ['Nirvana Live', '2', 10],
    ]);
    assert.deepEqual(await complete({ prefix: 'nor', completion: { field: 'suggest' } }), [], 'not without fuzzy');
    assert.deepEqual(brief(await complete({ regex: 'n[ei]v', completion: { field: 'suggest' } })), [
      ['Nevermind', '1', 34],
      ['Nevada', '2', 3],
    ]);
  });

  test('typed_keys names it completion#; a field that is not a completion field fails the shards with 400', async () => {
    const r = await req('POST', '/music/_search?typed_keys=true', { size: 0, suggest: { s: { prefix: 'nev', completion: { field: 'suggest' } } } });
    assert.deepEqual(Object.keys((r.body as { suggest: object }).suggest), ['completion#s']);
    const bad = await req('POST', '/music/_search', { suggest: { s: { prefix: 'nev', completion: { field: 'title' } } } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /Field \[title\] is not a completion suggest field/);
    const contexts = await req('POST', '/music/_search', { suggest: { s: { prefix: 'nev', completion: { field: 'suggest', contexts: {} } } } });
    assert.equal(contexts.status, 400);
  });

  test('a multi-field of a completion field indexes each input; term suggestions on a completion field are refused', async () => {
    const mappings = { _doc: { properties: { s: { type: 'completion', fields: { kw: { type: 'keyword' } } } } } };
    assert.equal((await req('PUT', '/multi', { mappings })).status, 200);
    await req('PUT', '/multi/_doc/1?refresh=true', { s: { input: ['Alpha', 'Beta'], weight: 2 } });
    const hits = await req('POST', '/multi/_search', { query: { term: { 's.kw': 'Beta' } } });
    assert.equal((hits.body as { hits: { total: number } }).hits.total, 1);
    const term = await req('POST', '/multi/_search', { suggest: { t: { text: 'alpah', term: { field: 's' } } } });
    assert.equal(term.status, 400);
    assert.match(term.text, /is a completion field: use the completion suggester/);
  });

  test('inputs are read from the segment files after a flush and a restart; a deleted document is not suggested', async () => {
    assert.equal((await req('POST', '/music/_flush')).status, 200);
    await server.stop();
    server = await startServer([], dir);
    await req('GET', '/_cluster/health?wait_for_status=yellow&timeout=30s');
    assert.deepEqual(brief(await complete({ prefix: 'ne', completion: { field: 'suggest' } })), [
      ['Nevermind', '1', 34],
      ['Nevada', '2', 3],
    ]);
    assert.equal((await req('DELETE', '/music/_doc/1?routing=1&refresh=true')).status, 200);
    assert.deepEqual(brief(await complete({ prefix: 'ne', completion: { field: 'suggest' } })), [['Nevada', '2', 3]]);
  });
});
