/**
 * Highlighting as a search UI sees it: the plate n-gram field, text fields
 * with sentences, keywords, tags, fragments and their options.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';
import { PASSINFO_INDEX_BODY } from '../../bench/pass-records.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Hit = { _id: string; highlight?: Record<string, string[]> };
const hits = async (index: string, body: unknown): Promise<Hit[]> => {
  const r = await req('POST', `/${index}/_search`, body);
  assert.equal(r.status, 200, r.text);
  return (r.body as { hits: { hits: Hit[] } }).hits.hits;
};

const LONG =
  'Elasticsearch is a search engine. It is built on Lucene and answers queries quickly. ' +
  'Plates are searched by fragments with an n-gram analyzer, which makes every substring a term. ' +
  'The last sentence mentions nothing special at all.';

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/passinfo', PASSINFO_INDEX_BODY)).status, 200);
  await req('PUT', '/passinfo/passinfo/1?refresh=true', { plate: '京A12345', land_id: 'L0001' });
  await req('PUT', '/passinfo/passinfo/2?refresh=true', { plate: '沪B99887', land_id: 'L0002' });
  assert.equal((await req('PUT', '/articles', { mappings: { _doc: { properties: { body: { type: 'text' }, title: { type: 'text' }, tag: { type: 'keyword' }, tv: { type: 'text', term_vector: 'with_positions_offsets' } } } } })).status, 200);
  await req('PUT', '/articles/_doc/1?refresh=true', { body: LONG, title: 'Search <engines> & plates', tag: 'search', tv: 'quick brown fox' });
});
after(async () => {
  await server.stop();
});

describe('highlighting', () => {
  test('a plate fragment is highlighted as one span in the n-gram field (unified and plain)', async () => {
    for (const type of ['unified', 'plain']) {
      const [hit] = await hits('passinfo', { query: { match: { plate: { query: 'A12', operator: 'and' } } }, highlight: { type, fields: { plate: {} } } });
      assert.equal(hit!._id, '1');
      assert.deepEqual(hit!.highlight, { plate: ['京<em>A12</em>345'] }, type);
    }
  });

  test('the keyword sub-field highlights the whole value; a field the query does not touch is not highlighted', async () => {
    const [hit] = await hits('passinfo', { query: { bool: { should: [{ term: { 'plate.keyword': '京A12345' } }, { match: { plate: 'A12' } }] } }, highlight: { fields: { 'plate.keyword': {}, land_id: {} } } });
    assert.deepEqual(hit!.highlight, { 'plate.keyword': ['<em>京A12345</em>'] });
  });

  test('unified fragments are the sentences that match, in text order; plain cuts by fragment_size', async () => {
    const [u] = await hits('articles', { query: { match: { body: 'lucene analyzer' } }, highlight: { fields: { body: {} } } });
    assert.deepEqual(u!.highlight!.body, [
      'It is built on <em>Lucene</em> and answers queries quickly. ',
      'Plates are searched by fragments with an n-gram <em>analyzer</em>, which makes every substring a term. ',
    ]);
    const [p] = await hits('articles', { query: { match: { body: 'lucene analyzer' } }, highlight: { type: 'plain', fragment_size: 40, fields: { body: {} } } });
    assert.equal(p!.highlight!.body!.length, 2);
    for (const f of p!.highlight!.body!) assert.ok(f.length < 70 && /<em>(Lucene|analyzer)<\/em>/.test(f), f);
  });

  test('number_of_fragments 1 keeps the best fragment; order score puts the best first; 0 gives the whole value', async () => {
    const [one] = await hits('articles', { query: { match: { body: 'plates fragments lucene' } }, highlight: { number_of_fragments: 1, fields: { body: {} } } });
    assert.deepEqual(one!.highlight!.body, ['<em>Plates</em> are searched by <em>fragments</em> with an n-gram analyzer, which makes every substring a term. ']);
    const [whole] = await hits('articles', { query: { match: { body: 'lucene' } }, highlight: { number_of_fragments: 0, fields: { body: {} } } });
    assert.equal(whole!.highlight!.body![0], LONG.replace('Lucene', '<em>Lucene</em>'));
  });

  test('pre_tags, post_tags and the html encoder', async () => {
    const [hit] = await hits('articles', { query: { match: { title: 'engines plates' } }, highlight: { pre_tags: ['<b>'], post_tags: ['</b>'], encoder: 'html', fields: { title: {} } } });
    assert.deepEqual(hit!.highlight, { title: ['Search &lt;<b>engines</b>&gt; &amp; <b>plates</b>'] });
  });

  test('no_match_size shows the start of a field without matches; highlight_query and require_field_match', async () => {
    const [hit] = await hits('articles', {
      query: { match: { body: 'lucene' } },
      highlight: { fields: { title: { no_match_size: 15 }, body: { highlight_query: { match: { body: 'sentence' } } } } },
    });
    assert.deepEqual(hit!.highlight!.title, ['Search <engines']);
    assert.deepEqual(hit!.highlight!.body, ['The last <em>sentence</em> mentions nothing special at all.']);
    const [any] = await hits('articles', { query: { match: { title: 'plates' } }, highlight: { require_field_match: false, number_of_fragments: 1, fields: { body: {} } } });
    assert.match(any!.highlight!.body![0]!, /<em>Plates<\/em>/);
  });

  test('a phrase highlights where it occurs, wildcard field names expand to text and keyword fields', async () => {
    const [hit] = await hits('articles', { query: { multi_match: { query: 'search', fields: ['body', 'tag'] } }, highlight: { fields: { '*': {} } } });
    assert.deepEqual(Object.keys(hit!.highlight!).sort(), ['body', 'tag']);
    const [ph] = await hits('articles', { query: { match_phrase: { body: 'search engine' } }, highlight: { fields: { body: {} } } });
    assert.deepEqual(ph!.highlight!.body, ['Elasticsearch is a <em>search</em> <em>engine</em>. ']);
  });

  test('fvh needs term vectors with offsets, as in Elasticsearch; with them it is answered by the unified highlighter', async () => {
    const [hit] = await hits('articles', { query: { match: { tv: 'brown' } }, highlight: { type: 'fvh', fields: { tv: {} } } });
    assert.deepEqual(hit!.highlight, { tv: ['quick <em>brown</em> fox'] });
    const r = await req('POST', '/articles/_search', { query: { match: { body: 'lucene' } }, highlight: { type: 'fvh', fields: { body: {} } } });
    assert.equal(r.status, 400);
    assert.match(r.text, /should be indexed with term vector with position offsets to be used with fast vector highlighter/);
  });

  test('bad options are 400s', async () => {
    assert.equal((await req('POST', '/articles/_search', { highlight: { fields: { body: {} }, colour: 1 } })).status, 400);
    assert.equal((await req('POST', '/articles/_search', { highlight: { type: 'magic', fields: { body: {} } } })).status, 400);
  });
});
