/**
 * Issue 11, item 5 (regexp part): the `regexp` query, as Lucene runs it, an
 * automaton over the terms (here the linear-time engine): a pattern that takes
 * a backtracking engine exponential time answers at once; a pattern matches
 * a whole term; what the engine cannot run is a 400 before a shard sees it.
 * Before, `regexp` answered 400 "no [query] registered for [regexp]".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const A40 = `${'a'.repeat(40)}!`;
before(async () => {
  server = await startServer(['--node.processors', '1']);
  await http(server.url, 'PUT', '/rx', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { k: { type: 'keyword' }, t: { type: 'text' }, n: { type: 'long' } } } } });
  const docs = [
    { k: 'abc-123', t: 'Quick Brown fox', n: 1 },
    { k: 'abd-9', t: 'lazy dog', n: 2 },
    { k: A40, t: 'x', n: 3 },
    { k: 'zzz', t: 'brownish', n: 4 },
  ];
  const lines = docs.flatMap((d, i) => [JSON.stringify({ index: { _id: String(i + 1) } }), JSON.stringify(d)]);
  const r = await http(server.url, 'POST', '/rx/_doc/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal(r.status, 200, r.text);
});
after(() => server.stop());

async function ids(query: unknown): Promise<string[]> {
  const r = await http(server.url, 'POST', '/rx/_search', { query, sort: ['n'] });
  assert.equal(r.status, 200, r.text.slice(0, 300));
  return (r.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id);
}

test('a pattern matches whole keyword values', async () => {
  assert.deepEqual(await ids({ regexp: { k: 'ab.-[0-9]+' } }), ['1', '2']);
  assert.deepEqual(await ids({ regexp: { k: 'ab' } }), []);
  assert.deepEqual(await ids({ regexp: { k: { value: 'abc.*|z+', boost: 2, _name: 'r' } } }), ['1', '4']);
});

test('on a text field it matches the analyzed terms', async () => {
  assert.deepEqual(await ids({ regexp: { t: 'brown.*' } }), ['1', '4']);
  assert.deepEqual(await ids({ regexp: { t: 'Brown' } }), []);
});

test('Lucene syntax: @ is any string, # the empty language, $ and ^ are literals', async () => {
  assert.deepEqual(await ids({ regexp: { k: 'zz@' } }), ['4']);
  assert.deepEqual(await ids({ regexp: { k: '(a+)+$' } }), []);
});

test('(a+)+! against 40 a\'s and a ! answers at once', async () => {
  const started = Date.now();
  assert.deepEqual(await ids({ regexp: { k: '(a+)+!' } }), ['3']);
  assert.deepEqual(await ids({ regexp: { k: '(a|aa)+b' } }), []);
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
});

test('refusals: a numeric field, an unknown flag, a pattern that does not parse, one beyond 10,000 states', async () => {
  const numeric = await http(server.url, 'POST', '/rx/_search', { query: { regexp: { n: '1' } } });
  assert.equal(numeric.status, 400);
  assert.match(numeric.text, /Can only use regexp queries on keyword and text fields - not on \[n\] which is of type \[long\]/);
  const flag = await http(server.url, 'POST', '/rx/_search', { query: { regexp: { k: { value: 'a', flags: 'FOO' } } } });
  assert.equal(flag.status, 400);
  assert.equal((flag.body as { error: { reason: string } }).error.reason, 'Unknown regexp flag [FOO]');
  assert.equal((await http(server.url, 'POST', '/rx/_search', { query: { regexp: { k: '(ab' } } })).status, 400);
  const huge = await http(server.url, 'POST', '/rx/_search', { query: { regexp: { k: '(a{1000}){1000}' } } });
  assert.equal(huge.status, 400, huge.text.slice(0, 300));
});

test('_validate/query explains it as Lucene prints a RegexpQuery', async () => {
  const r = await http(server.url, 'POST', '/rx/_validate/query?explain', { query: { regexp: { k: 'ab.*' } } });
  assert.equal((r.body as { explanations: { explanation: string }[] }).explanations[0]!.explanation, 'k:/ab.*/');
});

test('highlighting marks the terms it matched', async () => {
  const r = await http(server.url, 'POST', '/rx/_search', { query: { regexp: { t: 'br.*' } }, highlight: { fields: { t: {} } }, sort: ['n'] });
  const hits = (r.body as { hits: { hits: { highlight: { t: string[] } }[] } }).hits.hits;
  assert.deepEqual(hits.map((h) => h.highlight.t[0]), ['Quick <em>Brown</em> fox', '<em>brownish</em>']);
});

test('query_string and q= read /.../ as a regexp (it found nothing before)', async () => {
  assert.deepEqual(await ids({ query_string: { query: 'k:/ab.-[0-9]+/' } }), ['1', '2']);
  assert.deepEqual(await ids({ query_string: { query: 't:/BR.*/ AND n:[1 TO 3]' } }), ['1']);
  const r = await http(server.url, 'GET', `/rx/_search?q=${encodeURIComponent('k:/z+/')}`);
  assert.deepEqual((r.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id), ['4']);
  const open = await http(server.url, 'POST', '/rx/_search', { query: { query_string: { query: 'k:/ab' } } });
  assert.equal(open.status, 400, open.text.slice(0, 300));
});
