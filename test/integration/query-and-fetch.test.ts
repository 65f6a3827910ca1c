/**
 * A small page is rendered by the shards with their query phase (no fetch
 * round trip; search-coordinator.ts, QUERY_AND_FETCH_HITS), a larger one is
 * fetched after the merge. Both must show the same hits: each case asks for
 * a page of at most 10 hits and for the same search with 40 hits, and
 * compares the page with the slice of the larger answer, byte for byte.
 * A one-shard index renders any page with its query phase: its pages are
 * checked against the order computed here from the documents.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

const WORDS = ['red fox', 'brown fox', 'lazy dog', 'quick brown dog', 'fox and dog', 'red'];
const docs = Array.from({ length: 60 }, (_, i) => ({
  id: `d${i}`,
  text: WORDS[i % WORDS.length]!,
  tag: `t${i % 4}`,
  n: (i * 37) % 60,
  when: `2026-10-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00Z`,
  nested: { a: i, b: `x${i}` },
}));

interface Hit {
  _id: string;
  [member: string]: unknown;
}
interface Answer {
  took: number;
  hits: { total: number; max_score: number | null; hits: Hit[] };
  [member: string]: unknown;
}

async function search(index: string, body: Record<string, unknown>, query = ''): Promise<{ answer: Answer; text: string }> {
  const r = await req('POST', `/${index}/_search${query}`, body);
  assert.equal(r.status, 200, r.text.slice(0, 500));
  return { answer: r.body as Answer, text: r.text };
}

before(async () => {
  server = await startServer();
  const mappings = { _doc: { properties: { text: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' }, when: { type: 'date' } } } };
  assert.equal((await req('PUT', '/multi', { settings: { number_of_shards: 3 }, mappings })).status, 200);
  assert.equal((await req('PUT', '/single', { settings: { number_of_shards: 1 }, mappings })).status, 200);
  const lines: string[] = [];
  for (const d of docs) {
    const { id, ...source } = d;
    lines.push(JSON.stringify({ index: { _index: 'multi', _type: '_doc', _id: id, ...(d.n % 5 === 0 ? { routing: `r${d.n}` } : {}) } }), JSON.stringify(source));
    lines.push(JSON.stringify({ index: { _index: 'single', _type: '_doc', _id: id } }), JSON.stringify(source));
  }
  const bulk = await req('POST', '/_bulk?refresh=true', lines.join('\n') + '\n');
  assert.equal((bulk.body as { errors: boolean }).errors, false, bulk.text.slice(0, 500));
});
after(async () => {
  await server.stop();
});

const cases: [string, Record<string, unknown>][] = [
  ['scored match', { query: { match: { text: 'fox dog' } } }],
  ['filter sorted by a number descending', { query: { bool: { filter: { term: { tag: 't1' } } } }, sort: [{ n: 'desc' }] }],
  ['sorted by a keyword then a date, with track_scores', { query: { match: { text: 'red' } }, sort: [{ tag: 'asc' }, { when: 'desc' }], track_scores: true }],
  ['sorted by _doc', { query: { match_all: {} }, sort: ['_doc'] }],
  ['sorted by _score then a number', { query: { match: { text: 'brown' } }, sort: ['_score', { n: 'asc' }] }],
  ['version, filtered _source, docvalue_fields', { query: { match: { text: 'fox' } }, version: true, _source: ['tag', 'nested.a'], docvalue_fields: ['n', 'tag'] }],
  ['_source false, stored routing shown', { query: { range: { n: { lt: 30 } } }, _source: false, sort: [{ n: 'asc' }] }],
  ['highlight and explain', { query: { match: { text: 'dog' } }, highlight: { fields: { text: {} } }, explain: true }],
  ['script_fields', { query: { match: { text: 'lazy' } }, script_fields: { twice: { script: { source: "doc['n'].value * 2" } } } }],
];

describe('a small page rendered with the query phase equals the same hits fetched after the merge', () => {
  for (const [name, body] of cases) {
    test(name, async () => {
      for (const [from, size] of [
        [0, 10],
        [0, 3],
        [4, 6],
      ] as const) {
        const small = await search('multi', { ...body, from, size });
        const large = await search('multi', { ...body, from: 0, size: 40 });
        assert.ok(large.answer.hits.hits.length > from, `${name}: the larger page has hits past ${from}`);
        assert.equal(small.answer.hits.total, large.answer.hits.total);
        assert.equal(small.answer.hits.max_score, large.answer.hits.max_score);
        const expected = large.answer.hits.hits.slice(from, from + size);
        assert.deepEqual(small.answer.hits.hits, expected, `${name} from ${from} size ${size}`);
        // Byte for byte: each hit's JSON text is the same (member order, number formatting).
        for (const h of expected) assert.ok(small.text.includes(JSON.stringify(h)), `${name}: hit ${h._id} as text`);
      }
    });
  }

  test('indices_boost: a boosted index still shows the boosted scores', async () => {
    const body = { query: { match: { text: 'fox' } }, indices_boost: [{ multi: 3 }] };
    const small = await search('multi,single', { ...body, size: 5 });
    const large = await search('multi,single', { ...body, size: 40 });
    assert.deepEqual(small.answer.hits.hits, large.answer.hits.hits.slice(0, 5));
    assert.equal(small.answer.hits.hits[0]!._index, 'multi');
  });

  test('a search over two indices (four shards) merges the rendered pages in order', async () => {
    const body = { query: { match_all: {} }, sort: [{ n: 'asc' }] };
    const small = await search('multi,single', { ...body, size: 8 });
    const large = await search('multi,single', { ...body, size: 40 });
    assert.deepEqual(small.answer.hits.hits, large.answer.hits.hits.slice(0, 8));
    // Each n is held by one doc of each index.
    assert.deepEqual(
      small.answer.hits.hits.map((h) => (h.sort as unknown[])[0]),
      [0, 0, 1, 1, 2, 2, 3, 3],
    );
  });
});

describe('one shard: every page comes with its query phase', () => {
  test('pages far into the list, sorted by a number, hold the documents in that order', async () => {
    const byN = [...docs].sort((a, b) => a.n - b.n);
    for (const [from, size] of [
      [0, 10],
      [25, 10],
      [50, 20],
      [10, 45],
    ] as const) {
      const { answer } = await search('single', { query: { match_all: {} }, sort: [{ n: 'asc' }], from, size });
      assert.equal(answer.hits.total, docs.length);
      assert.deepEqual(
        answer.hits.hits.map((h) => h._id),
        byN.slice(from, from + size).map((d) => d.id),
        `from ${from} size ${size}`,
      );
      assert.deepEqual(answer.hits.hits[0]!._source, (({ id: _id, ...s }) => s)(byN[from]!));
    }
  });

  test('a scroll still pages through every document once', async () => {
    const seen = new Set<string>();
    let r = await req('POST', '/single/_search?scroll=1m', { size: 7, sort: ['_doc'] });
    for (;;) {
      assert.equal(r.status, 200, r.text);
      const body = r.body as Answer & { _scroll_id: string };
      if (body.hits.hits.length === 0) break;
      for (const h of body.hits.hits) {
        assert.ok(!seen.has(h._id), `${h._id} seen twice`);
        seen.add(h._id);
      }
      r = await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: body._scroll_id });
    }
    assert.equal(seen.size, docs.length);
  });

  test('a fetch-phase failure still fails the request as before (a script error)', async () => {
    const body = { query: { match_all: {} }, size: 2, script_fields: { bad: { script: { source: "doc['missing_field'].value + 1" } } } };
    const single = await req('POST', '/single/_search', body);
    const multi = await req('POST', '/multi/_search', { ...body, size: 40 });
    assert.equal(single.status, multi.status);
    assert.equal((single.body as { error?: { type: string } }).error?.type, (multi.body as { error?: { type: string } }).error?.type);
  });
});
