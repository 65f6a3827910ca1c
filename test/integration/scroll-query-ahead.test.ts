/**
 * A scroll sorted by `_doc` runs each shard's next query phase with the
 * fetch of the page before (ShardFetchRequest.queryNext), and a shard whose
 * hits missed a page answers the next from the query phase it already ran:
 * a page then costs one round trip to the shard workers instead of two.
 * The pages must be what the two-phase path shows: every case compares the
 * scroll's pages, joined, with one plain search of the whole index in the
 * same order, byte for byte, over shards of uneven size (routing), several
 * segments, deletes, and writes made while the scroll runs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

const COUNT = 260;

interface Page {
  _scroll_id: string;
  hits: { total: number; max_score: number | null; hits: { _id: string }[] };
}

/** The `hits.hits` array of a search response as the node wrote it (its members, without the brackets). */
function hitsText(text: string): string {
  const at = text.indexOf('"hits":[');
  assert.ok(at >= 0, text.slice(0, 300));
  // `hits.hits` is the response's last member here: `...]}}`.
  return text.slice(at + '"hits":['.length, text.lastIndexOf(']}}'));
}

async function bulk(lines: unknown[]): Promise<void> {
  const r = await req('POST', '/_bulk', lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  assert.equal((r.body as { errors: boolean }).errors, false, r.text.slice(0, 500));
}

before(async () => {
  server = await startServer();
  const mappings = { _doc: { properties: { n: { type: 'long' }, tag: { type: 'keyword' } } } };
  assert.equal((await req('PUT', '/pages', { settings: { number_of_shards: 3, number_of_replicas: 0 }, mappings })).status, 200);
  // Three segments a shard; a third of the documents routed to one value, so one shard holds far more than the others.
  for (let part = 0; part < 3; part++) {
    const lines: unknown[] = [];
    for (let i = part; i < COUNT; i += 3) {
      lines.push({ index: { _index: 'pages', _type: '_doc', _id: `d${i}`, ...(i % 3 === 0 ? { routing: 'heavy' } : {}) } }, { n: i, tag: `t${i % 7}`, text: 'x'.repeat(i % 50) });
    }
    await bulk(lines);
    assert.equal((await req('POST', '/pages/_refresh')).status, 200);
  }
  // A few deletes in each segment, under the share of deletes that has a segment merged away (which renumbers
  // its docs between the plain search and the scroll).
  await bulk([0, 54, 108, 162, 216, 1, 100, 199, 2, 101, 200].map((i) => ({ delete: { _index: 'pages', _type: '_doc', _id: `d${i}`, ...(i % 3 === 0 ? { routing: 'heavy' } : {}) } })));
  assert.equal((await req('POST', '/pages/_refresh')).status, 200);
  // Committed now: a commit writes the segments without their deleted docs, which renumbers the docs
  // of a later view (the plain search and the scroll would not see the same doc numbers).
  assert.equal((await req('POST', '/pages/_flush')).status, 200);
});
after(async () => {
  await server.stop();
});

/**
 * Reads a whole scroll; `during` runs after the first page (writes the scroll must not see). `keepAlive`
 * gives each page request's keep-alive (by page number).
 */
async function readScroll(body: Record<string, unknown>, during?: () => Promise<void>, keepAlive: (page: number) => string = () => '1m'): Promise<{ pages: Page[]; texts: string[] }> {
  const pages: Page[] = [];
  const texts: string[] = [];
  let r = await req('POST', '/pages/_search?scroll=1m', body);
  assert.equal(r.status, 200, r.text.slice(0, 500));
  for (;;) {
    const page = r.body as Page;
    pages.push(page);
    texts.push(hitsText(r.text));
    if (page.hits.hits.length === 0) break;
    if (pages.length === 1) await during?.();
    r = await req('POST', '/_search/scroll', { scroll: keepAlive(pages.length), scroll_id: page._scroll_id });
    assert.equal(r.status, 200, r.text.slice(0, 500));
  }
  await req('DELETE', '/_search/scroll', { scroll_id: [pages[0]!._scroll_id] });
  return { pages, texts };
}

describe('scroll sorted by _doc, the next query phase run with the fetch', () => {
  for (const [name, sort] of [
    ['ascending', ['_doc']],
    ['descending', [{ _doc: 'desc' }]],
  ] as const) {
    test(`its pages (${name}) join into the whole index in the order a plain search shows, byte for byte`, async () => {
      const plain = await req('POST', '/pages/_search', { size: 1000, sort });
      assert.equal(plain.status, 200);
      const total = (plain.body as Page).hits.total;
      assert.ok(total > 200);
      for (const size of [1, 7, 50]) {
        const { pages, texts } = await readScroll({ size, sort });
        const shown = pages.flatMap((p) => p.hits.hits);
        assert.equal(shown.length, total, `size ${size}`);
        assert.equal(texts.filter((t) => t !== '').join(','), hitsText(plain.text), `size ${size}`);
        // Every page but the last two (the partial one and the empty one) is full; the total and the id never change.
        for (const p of pages.slice(0, -2)) assert.equal(p.hits.hits.length, size);
        assert.equal(pages[pages.length - 1]!.hits.hits.length, 0);
        for (const p of pages) {
          assert.equal(p.hits.total, total);
          assert.equal(p._scroll_id, pages[0]!._scroll_id);
        }
      }
    });
  }

  test('pages prepared ahead and dropped (the keep-alive changed) leave no page out', async () => {
    // A page prepared ahead ran its shards' next query phases from cursors the scroll never reached: the
    // page computed afresh must not take them.
    const plain = await req('POST', '/pages/_search', { size: 1000, sort: ['_doc'] });
    const { pages, texts } = await readScroll({ size: 13, sort: ['_doc'] }, undefined, (page) => (page % 2 === 0 ? '1m' : '2m'));
    assert.equal(texts.filter((t) => t !== '').join(','), hitsText(plain.text));
    assert.equal(pages.flatMap((p) => p.hits.hits).length, (plain.body as Page).hits.total);
  });

  test('writes and deletes made while it runs stay out of its pages', async () => {
    const before = await req('POST', '/pages/_search', { size: 1000, sort: ['_doc'] });
    const { pages, texts } = await readScroll({ size: 9, sort: ['_doc'] }, async () => {
      const lines: unknown[] = [];
      for (let i = 1; i < COUNT; i += 4) lines.push({ delete: { _index: 'pages', _type: '_doc', _id: `d${i}`, ...(i % 3 === 0 ? { routing: 'heavy' } : {}) } });
      for (let i = COUNT; i < COUNT + 40; i++) lines.push({ index: { _index: 'pages', _type: '_doc', _id: `d${i}` } }, { n: i });
      await bulk(lines);
      assert.equal((await req('POST', '/pages/_refresh')).status, 200);
    });
    assert.equal(texts.filter((t) => t !== '').join(','), hitsText(before.text));
    assert.equal(pages[0]!.hits.total, (before.body as Page).hits.total);
    const now = await req('GET', '/pages/_count');
    assert.notEqual((now.body as { count: number }).count, (before.body as Page).hits.total);
  });

  test('a cleared scroll answers 404 search_context_missing_exception at its next page', async () => {
    const first = await req('POST', '/pages/_search?scroll=1m', { size: 5, sort: ['_doc'] });
    const id = (first.body as Page)._scroll_id;
    assert.equal((await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: id })).status, 200);
    const cleared = await req('DELETE', '/_search/scroll', { scroll_id: [id] });
    assert.equal(cleared.status, 200);
    assert.equal((cleared.body as { num_freed: number }).num_freed, 3);
    const gone = await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: id });
    assert.equal(gone.status, 404);
    assert.equal((gone.body as { error: { root_cause: { type: string }[] } }).error.root_cause[0]!.type, 'search_context_missing_exception');
  });
});
