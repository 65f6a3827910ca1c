/**
 * Suggesters over HTTP: `suggest` in `_search` and `_msearch` with the term
 * and phrase suggesters, reduced across two shards, with `typed_keys`, and
 * Elasticsearch's errors for bad suggestions.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Entry = { text: string; offset: number; length: number; options: Record<string, unknown>[] };
const suggest = async (body: unknown, query = ''): Promise<Record<string, Entry[]>> => {
  const r = await req('POST', `/words/_search${query}`, body);
  assert.equal(r.status, 200, r.text);
  return (r.body as { suggest: Record<string, Entry[]> }).suggest;
};

const docs = ['the quick brown fox', 'the quick brown dog', 'quick brawn', 'a lazy dog', 'quick foxes'];
const names = ['Ruth', 'Jackie', 'Stephanie', 'Natalie', 'Ruthie'];

before(async () => {
  server = await startServer();
  const mappings = { _doc: { properties: { body: { type: 'text' }, name: { type: 'keyword' } } } };
  assert.equal((await req('PUT', '/words', { settings: { number_of_shards: 2 }, mappings })).status, 200);
  for (let i = 0; i < docs.length; i++) await req('PUT', `/words/_doc/${i}?routing=${i % 2 ? 'a' : 'b'}`, { body: docs[i], name: names[i] });
  await req('POST', '/words/_refresh');
});
after(async () => {
  await server.stop();
});

describe('term suggester', () => {
  test('the documents are on both shards (so each suggestion below is reduced from two)', async () => {
    for (const shard of [0, 1]) {
      const r = await req('POST', `/words/_search?preference=_shards:${shard}`, { size: 0, query: { match: { body: 'quick' } } });
      assert.ok((r.body as { hits: { total: number } }).hits.total > 0, `shard ${shard} holds a doc with quick`);
    }
  });

  test('one entry per token with its offset and length; options by score, then frequency summed over shards', async () => {
    const s = await suggest({ size: 0, suggest: { fix: { text: 'quikc brwn', term: { field: 'body' } } } });
    assert.deepEqual(s, {
      fix: [
        { text: 'quikc', offset: 0, length: 5, options: [{ text: 'quick', score: 0.8, freq: 4 }] },
        {
          text: 'brwn',
          offset: 6,
          length: 4,
          options: [
            { text: 'brown', score: 0.75, freq: 2 },
            { text: 'brawn', score: 0.75, freq: 1 },
          ],
        },
      ],
    });
  });

  test('global text, size, sort by frequency, suggest_mode always, another string_distance; typed_keys names the type', async () => {
    const s = await suggest(
      {
        size: 0,
        suggest: {
          text: 'brwn quick',
          a: { term: { field: 'body', size: 1 } },
          b: { term: { field: 'body', suggest_mode: 'always', sort: 'frequency', max_term_freq: 10, min_word_length: 2 } },
          c: { term: { field: 'body', string_distance: 'levenshtein' } },
        },
      },
      '?typed_keys=true',
    );
    assert.deepEqual(Object.keys(s), ['term#a', 'term#b', 'term#c']);
    assert.deepEqual(s['term#a']![0]!.options, [{ text: 'brown', score: 0.75, freq: 2 }]);
    assert.deepEqual(s['term#a']![1]!.options, [], 'quick is in the index: missing mode suggests nothing');
    assert.deepEqual(s['term#b']![0]!.options.map((o) => [o.text, o.freq]), [['brown', 2], ['brawn', 1]]);
    assert.deepEqual(s['term#b']![1]!.options, [], 'no other term within two edits of quick');
    assert.deepEqual(s['term#c']![0]!.options, [
      { text: 'brown', score: 0.8, freq: 2 },
      { text: 'brawn', score: 0.8, freq: 1 },
    ]);
  });

  test('a search with only suggest answers hits and suggest; hits are unaffected by the suggestion', async () => {
    const r = await req('POST', '/_search', { suggest: { s: { text: 'dgo', term: { field: 'body', min_word_length: 3 } } } });
    assert.equal(r.status, 200, r.text);
    const b = r.body as { hits: { total: number }; suggest: Record<string, Entry[]> };
    assert.equal(b.hits.total, 5);
    assert.deepEqual(b.suggest.s![0]!.options, [{ text: 'dog', score: 0.6666666, freq: 2 }]);
  });
});

describe('phrase suggester', () => {
  test('corrections of one word at a time (max_errors 1), better than the text itself, best first, highlighted', async () => {
    const s = await suggest({
      size: 0,
      suggest: { p: { text: 'the quikc brwn fox', phrase: { field: 'body', highlight: { pre_tag: '<em>', post_tag: '</em>' } } } },
    });
    const entry = s.p![0]!;
    assert.deepEqual([entry.text, entry.offset, entry.length], ['the quikc brwn fox', 0, 18]);
    assert.deepEqual(
      entry.options.map((o) => [o.text, o.highlighted]),
      [
        ['the quick brwn fox', 'the <em>quick</em> brwn fox'],
        ['the quikc brown fox', 'the quikc <em>brown</em> fox'],
        ['the quikc brawn fox', 'the quikc <em>brawn</em> fox'],
      ],
    );
    const scores = entry.options.map((o) => o.score as number);
    assert.ok(scores[0]! > scores[1]! && scores[1] === scores[2], JSON.stringify(scores));
  });

  test('max_errors 2 and confidence 0 correct both words; size cuts the options; no highlight without tags', async () => {
    const s = await suggest({ size: 0, suggest: { p: { text: 'the quikc brwn fox', phrase: { field: 'body', max_errors: 2, confidence: 0, size: 2 } } } });
    assert.deepEqual(s.p![0]!.options.map((o) => o.text), ['the quick brown fox', 'the quick brawn fox']);
    assert.equal(s.p![0]!.options[0]!.highlighted, undefined);
  });

  test('a text with nothing to correct has no options; a keyword field is one token', async () => {
    const s = await suggest({ size: 0, suggest: { ok: { text: 'quick brown', phrase: { field: 'body' } }, kw: { text: 'Ruht', phrase: { field: 'name' } } } }, '?typed_keys');
    assert.deepEqual(s['phrase#ok']![0]!.options, []);
    assert.deepEqual(s['phrase#kw']![0]!.options.map((o) => o.text), ['Ruth']);
  });

  test('direct generators with their own options, and the laplace model', async () => {
    const s = await suggest({
      size: 0,
      suggest: {
        p: {
          text: 'quikc fox',
          phrase: { field: 'body', smoothing: { laplace: { alpha: 0.7 } }, direct_generator: [{ field: 'body', suggest_mode: 'always', max_edits: 1 }] },
        },
      },
    });
    assert.equal(s.p![0]!.options[0]!.text, 'quick fox');
  });
});

describe('suggest in _msearch and errors', () => {
  test('msearch with typed_keys names each suggestion by its type', async () => {
    const body = [
      JSON.stringify({ index: 'words' }),
      JSON.stringify({ size: 0, suggest: { t: { text: 'quikc', term: { field: 'body' } } } }),
      JSON.stringify({ index: 'words' }),
      JSON.stringify({ size: 0, suggest: { p: { text: 'Ruht', phrase: { field: 'name' } } } }),
    ].join('\n') + '\n';
    const r = await http(server.url, 'POST', '/_msearch?typed_keys=true', body, { 'content-type': 'application/x-ndjson' });
    assert.equal(r.status, 200, r.text);
    const responses = (r.body as { responses: { suggest: Record<string, Entry[]> }[] }).responses;
    assert.deepEqual(responses[0]!.suggest['term#t']![0]!.options, [{ text: 'quick', score: 0.8, freq: 4 }]);
    assert.equal(responses[1]!.suggest['phrase#p']![0]!.options[0]!.text, 'Ruth');
  });

  const bad = async (body: unknown): Promise<{ status: number; type: string; root: string; reason: string }> => {
    const r = await req('POST', '/words/_search', body);
    const e = (r.body as { error: { type: string; reason: string; root_cause: { type: string; reason: string }[] } }).error;
    return { status: r.status, type: e.type, root: e.root_cause[0]!.type, reason: e.root_cause[0]!.reason };
  };

  test('parse errors answer 400 at once; shard-level errors as search_phase_execution_exception', async () => {
    assert.deepEqual(await bad({ suggest: { s: { text: 'x', foo: { field: 'body' } } } }), {
      status: 400,
      type: 'named_object_not_found_exception',
      root: 'named_object_not_found_exception',
      reason: '[1:35] unable to parse SuggestionBuilder with name [foo]: parser not found',
    });
    assert.deepEqual((await bad({ suggest: { s: { text: 'x', term: { size: 2 } } } })).reason, 'the required field option [field] is missing');
    assert.deepEqual((await bad({ suggest: { s: { text: 'x', term: { field: 'body', max_edits: 3 } } } })).reason, 'maxEdits must be between 1 and 2');
    assert.deepEqual((await bad({ suggest: { s: { text: 'x', term: { field: 'body', nope: 1 } } } })).reason, "suggester[term] doesn't support field [nope]");
    assert.deepEqual((await bad({ suggest: { s: { text: 'x' } } })).reason, 'missing suggestion object');
    assert.deepEqual((await bad({ suggest: { s: { text: 'x', phrase: { field: 'body', collate: { query: {} } } } } })).status, 400);
    assert.deepEqual(await bad({ suggest: { s: { text: 'x', term: { field: 'nope' } } } }), {
      status: 400,
      type: 'search_phase_execution_exception',
      root: 'illegal_argument_exception',
      reason: 'no mapping found for field [nope]',
    });
    assert.deepEqual((await bad({ suggest: { s: { term: { field: 'body' } } } })).reason, 'The required text option is missing');
  });
});

describe('phrase suggester limits', () => {
  test('a suggestion that would score more than 500,000 phrases is refused with a 400 instead of holding the shard', async () => {
    await req('PUT', '/many', { settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { t: { type: 'text' } } } } });
    const words = ['abcd', 'abce', 'abcf', 'abcg', 'abch', 'abci', 'abcj', 'abck', 'abcl', 'abcm', 'abcn', 'abco'];
    await req('PUT', '/many/_doc/1?refresh=true', { t: words.join(' ') });
    const text = 'abcz abcy abcx abcw abcv abcu abcs abcr abcq';
    const body = (maxErrors: number) => ({
      size: 0,
      suggest: { p: { text, phrase: { field: 't', max_errors: maxErrors, shard_size: 20, confidence: 0, direct_generator: [{ field: 't', size: 20, min_word_length: 1, max_term_freq: 10 }] } } },
    });
    const ok = await req('POST', '/many/_search', body(1));
    assert.equal(ok.status, 200, ok.text);
    const r = await req('POST', '/many/_search', body(9));
    assert.equal(r.status, 400, r.text);
    assert.match(r.text, /would score \d+ candidate phrases, more than this engine's limit of 500000/);
  });
});
