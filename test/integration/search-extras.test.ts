/**
 * `_explain` and `explain: true`, `_termvectors` / `_mtermvectors`,
 * `_field_caps` and `_validate/query`, as a user sees them over HTTP.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

before(async () => {
  server = await startServer();
  const mappings = {
    _doc: {
      properties: {
        text: { type: 'text', term_vector: 'with_positions_offsets' },
        title: { type: 'text' },
        tag: { type: 'keyword' },
        n: { type: 'long' },
        body: { type: 'text', index: false },
      },
    },
  };
  assert.equal((await req('PUT', '/docs', { settings: { number_of_shards: 1 }, mappings })).status, 200);
  await req('PUT', '/docs/_doc/1', { text: 'The quick brown fox is brown.', title: 'foxes', tag: 'a', n: 1 });
  await req('PUT', '/docs/_doc/2', { text: 'A lazy dog', title: 'dogs and foxes', tag: 'b', n: 2 });
  await req('PUT', '/docs/_doc/3?refresh=true', { text: ['brown dog', 'quick'], tag: 'a', n: 3 });
  assert.equal((await req('PUT', '/other', { mappings: { _doc: { properties: { tag: { type: 'text' }, n: { type: 'integer' } } } } })).status, 200);
});
after(async () => {
  await server.stop();
});

describe('_explain and explain: true', () => {
  test("a search hit's _explanation adds up to its _score", async () => {
    const r = await req('POST', '/docs/_search', { query: { bool: { should: [{ match: { text: 'brown' } }, { match: { title: 'foxes' } }] } }, explain: true });
    assert.equal(r.status, 200, r.text);
    const hits = (r.body as { hits: { hits: { _id: string; _score: number; _shard: string; _explanation: { value: number; description: string; details: { value: number }[] } }[] } }).hits.hits;
    assert.ok(hits.length >= 2);
    for (const h of hits) {
      assert.equal(h._shard, '[docs][0]');
      assert.ok(Math.abs(h._explanation.value - h._score) < 1e-6, `${h._id}: ${h._explanation.value} vs ${h._score}`);
      const sum = h._explanation.details.reduce((s, d) => s + d.value, 0);
      assert.ok(Math.abs(sum - h._score) < 1e-5);
    }
    const term = hits.find((h) => h._id === '1')!._explanation.details[0] as unknown as { description: string; details: { description: string; details: { description: string }[] }[] };
    assert.match(term.description, /^weight\(text:brown in \d+\) \[PerFieldSimilarity\], result of:$/);
    assert.match(term.details[0]!.details.map((d) => d.description).join('|'), /idf, computed as log\(1 \+ \(docCount - docFreq \+ 0\.5\) \/ \(docFreq \+ 0\.5\)\) from:\|tfNorm/);
  });

  test('_explain of a matching document, a non-matching one and a missing one', async () => {
    const yes = await req('POST', '/docs/_doc/1/_explain', { query: { term: { tag: 'a' } } });
    assert.equal(yes.status, 200, yes.text);
    assert.equal((yes.body as { matched: boolean }).matched, true);
    assert.equal(typeof (yes.body as { explanation: { value: number } }).explanation.value, 'number');
    const no = await req('POST', '/docs/_doc/2/_explain', { query: { term: { tag: 'a' } } });
    assert.equal(no.status, 200);
    assert.equal((no.body as { matched: boolean }).matched, false);
    const missing = await req('POST', '/docs/_doc/99/_explain', { query: { match_all: {} } });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { _index: 'docs', _type: '_doc', _id: '99', matched: false });
  });
});

describe('_termvectors', () => {
  test('terms with frequencies, positions and offsets from the analyzed source; field statistics from the shard', async () => {
    const r = await req('GET', '/docs/_doc/1/_termvectors?term_statistics=true');
    assert.equal(r.status, 200, r.text);
    const tv = (r.body as { found: boolean; term_vectors: { text: { field_statistics: Record<string, number>; terms: Record<string, { term_freq: number; doc_freq: number; ttf: number; tokens: { position: number; start_offset: number; end_offset: number }[] }> } } });
    assert.equal(tv.found, true);
    const text = tv.term_vectors.text;
    assert.deepEqual(Object.keys(text.terms), ['brown', 'fox', 'is', 'quick', 'the']);
    assert.deepEqual(text.terms.brown!.tokens, [
      { position: 2, start_offset: 10, end_offset: 15 },
      { position: 5, start_offset: 23, end_offset: 28 },
    ]);
    assert.equal(text.terms.brown!.term_freq, 2);
    // brown: twice in doc 1, once in doc 3 ("brown dog").
    assert.equal(text.terms.brown!.doc_freq, 2);
    assert.equal(text.terms.brown!.ttf, 3);
    assert.deepEqual(text.field_statistics, { sum_doc_freq: 11, doc_count: 3, sum_ttf: 12 });
  });

  test('a multi-valued field continues positions with the 100 gap and offsets with a gap of 1', async () => {
    const r = await req('POST', '/docs/_doc/3/_termvectors', { fields: ['text'], field_statistics: false });
    const terms = (r.body as { term_vectors: { text: { terms: Record<string, { tokens: { position: number; start_offset: number }[] }> } } }).term_vectors.text.terms;
    assert.deepEqual(terms.quick!.tokens, [{ position: 102, start_offset: 10, end_offset: 15 }]);
  });

  test('an artificial document; a missing one is found: false', async () => {
    const art = await req('POST', '/docs/_doc/_termvectors', { doc: { title: 'red red fox' }, fields: ['title'] });
    assert.equal(art.status, 200, art.text);
    const terms = (art.body as { term_vectors: { title: { terms: Record<string, { term_freq: number }> } } }).term_vectors.title.terms;
    assert.equal(terms.red!.term_freq, 2);
    const missing = await req('GET', '/docs/_doc/nope/_termvectors');
    assert.equal(missing.status, 200);
    assert.equal((missing.body as { found: boolean }).found, false);
  });

  test('_mtermvectors by ids and by docs', async () => {
    const r = await req('POST', '/docs/_doc/_mtermvectors', { ids: ['1', '2'] });
    assert.equal(r.status, 200, r.text);
    const docs = (r.body as { docs: { _id: string; found: boolean }[] }).docs;
    assert.deepEqual(docs.map((d) => [d._id, d.found]), [['1', true], ['2', true]]);
    const m = await req('POST', '/_mtermvectors', { docs: [{ _index: 'docs', _type: '_doc', _id: '1', fields: ['tag'] }, { _index: 'nope', _type: '_doc', _id: '1' }] });
    const mdocs = (m.body as { docs: { term_vectors?: { tag: { terms: Record<string, unknown> } }; error?: { type: string } }[] }).docs;
    assert.deepEqual(Object.keys(mdocs[0]!.term_vectors!.tag.terms), ['a']);
    assert.equal(mdocs[1]!.error!.type, 'index_not_found_exception');
  });
});

describe('_field_caps', () => {
  test('types, searchable and aggregatable, merged across indices', async () => {
    const r = await req('GET', '/docs,other/_field_caps?fields=tag,n,text,body,_id');
    assert.equal(r.status, 200, r.text);
    const f = (r.body as { fields: Record<string, Record<string, Record<string, unknown>>> }).fields;
    assert.deepEqual(f.text, { text: { type: 'text', searchable: true, aggregatable: false } });
    assert.deepEqual(f.body, { text: { type: 'text', searchable: false, aggregatable: false } });
    assert.deepEqual(f.tag, {
      keyword: { type: 'keyword', searchable: true, aggregatable: true, indices: ['docs'] },
      text: { type: 'text', searchable: true, aggregatable: false, indices: ['other'] },
    });
    assert.deepEqual(Object.keys(f.n!).sort(), ['integer', 'long']);
    assert.deepEqual(f._id, { _id: { type: '_id', searchable: true, aggregatable: true } });
    assert.equal((await req('GET', '/_field_caps')).status, 400);
  });
});

describe('_validate/query', () => {
  test('valid, invalid, and explained as Lucene prints the query', async () => {
    const ok = await req('POST', '/docs/_validate/query?explain=true', { query: { bool: { must: { match: { text: 'Quick Brown' } }, filter: { term: { tag: 'a' } } } } });
    assert.equal(ok.status, 200, ok.text);
    const body = ok.body as { valid: boolean; explanations: { index: string; valid: boolean; explanation: string }[] };
    assert.equal(body.valid, true);
    assert.equal(body.explanations[0]!.explanation, '+(text:quick text:brown) #tag:a');
    const bad = await req('POST', '/docs/_validate/query', { query: { range: { n: { gte: 'not a number' } } } });
    assert.equal(bad.status, 200);
    assert.equal((bad.body as { valid: boolean }).valid, false);
    const unparsable = await req('POST', '/docs/_validate/query', { query: { no_such_query: {} } });
    assert.equal((unparsable.body as { valid: boolean }).valid, false);
  });
});

describe('terms lookup', () => {
  test('a terms query takes its values from another document at search time', async () => {
    await req('PUT', '/lookup/_doc/wanted?refresh=true', { tags: ['a'], nested: [{ t: 'b' }] });
    const r = await req('POST', '/docs/_search', { query: { terms: { tag: { index: 'lookup', type: '_doc', id: 'wanted', path: 'tags' } } } });
    assert.equal(r.status, 200, r.text);
    const ids = (r.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id).sort();
    assert.deepEqual(ids, ['1', '3']);
    const viaArray = await req('POST', '/docs/_count', { query: { terms: { tag: { index: 'lookup', id: 'wanted', path: 'nested.t' } } } });
    assert.equal((viaArray.body as { count: number }).count, 1);
    const missing = await req('POST', '/docs/_count', { query: { terms: { tag: { index: 'lookup', id: 'nope', path: 'tags' } } } });
    assert.equal((missing.body as { count: number }).count, 0);
    const bad = await req('POST', '/docs/_search', { query: { terms: { tag: { index: 'lookup', id: 'wanted' } } } });
    assert.equal(bad.status, 400);
  });
});

describe('script_fields', () => {
  test('scripts compute fields from doc values and _source, stored scripts included', async () => {
    assert.equal((await req('PUT', '/_scripts/double-n', { script: { lang: 'painless', source: "doc['n'].value * params.f" } })).status, 200);
    const r = await req('POST', '/docs/_search', {
      query: { ids: { values: ['1', '3'] } },
      sort: ['n'],
      script_fields: {
        twice: { script: { id: 'double-n', params: { f: 2 } } },
        tag_up: { script: "doc['tag'].value.toUpperCase()" },
        words: { script: "params._source.text instanceof List ? params._source.text.size() : 1" },
      },
    });
    assert.equal(r.status, 200, r.text);
    const hits = (r.body as { hits: { hits: { _id: string; fields: Record<string, unknown[]>; _source?: unknown }[] } }).hits.hits;
    assert.deepEqual(hits.map((h) => h.fields), [
      { twice: [2], tag_up: ['A'], words: [1] },
      { twice: [6], tag_up: ['A'], words: [2] },
    ]);
  });

  test('a text field without fielddata is refused; ignore_failure leaves the field out', async () => {
    const bad = await req('POST', '/docs/_search', { script_fields: { t: { script: "doc['text'].value" } } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /Fielddata is disabled on text fields by default/);
    const ok = await req('POST', '/docs/_search', { query: { ids: { values: ['1'] } }, script_fields: { t: { script: "doc['text'].value", ignore_failure: true } } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((ok.body as { hits: { hits: { fields?: unknown }[] } }).hits.hits[0]!.fields, undefined);
  });
});

describe('exists and term on metadata fields', () => {
  test('exists on _id, _uid, _index, _type, _seq_no and _version matches every document; on _routing those stored with one, before and after a flush', async () => {
    assert.equal((await req('PUT', '/meta', { settings: { number_of_shards: 2 } })).status, 200);
    await req('PUT', '/meta/_doc/1', { a: 1 });
    await req('PUT', '/meta/_doc/2?routing=r1', { a: 2 });
    await req('PUT', '/meta/_doc/3', { a: 3 });
    await req('POST', '/meta/_refresh');
    const count = async (field: string) => {
      const r = await req('POST', '/meta/_search', { query: { exists: { field } } });
      assert.equal(r.status, 200, r.text);
      return (r.body as { hits: { total: number } }).hits.total;
    };
    for (const field of ['_id', '_uid', '_index', '_type', '_seq_no', '_version']) assert.equal(await count(field), 3, field);
    assert.equal(await count('_routing'), 1);
    await req('POST', '/meta/_flush');
    assert.equal(await count('_routing'), 1, 'after a flush');
    const routed = await req('POST', '/meta/_search', { query: { exists: { field: '_routing' } } });
    assert.equal((routed.body as { hits: { hits: { _id: string }[] } }).hits.hits[0]!._id, '2');
  });

  test('exists and term on _source answer 400 query_shard_exception: the _source field is not searchable', async () => {
    for (const query of [{ exists: { field: '_source' } }, { term: { _source: 'x' } }]) {
      const r = await req('POST', '/docs/_search', { query });
      assert.equal(r.status, 400, r.text);
      const err = r.body as { error: { root_cause: { type: string; reason: string }[] } };
      assert.equal(err.error.root_cause[0]!.type, 'query_shard_exception');
      assert.equal(err.error.root_cause[0]!.reason, 'The _source field is not searchable');
    }
  });
});
