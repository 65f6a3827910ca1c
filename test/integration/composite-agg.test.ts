/**
 * `composite` over HTTP on an index of three shards: key order with mixed
 * directions, missing_bucket, formats, paging with `after_key` through every
 * bucket exactly once, sub-aggregations, typed_keys, and the refusals.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Bucket = { key: Record<string, unknown>; doc_count: number } & Record<string, unknown>;
type Composite = { after_key?: Record<string, unknown>; buckets: Bucket[] };
const search = async (body: unknown, query = ''): Promise<Record<string, Composite>> => {
  const r = await req('POST', `/plates/_search${query}`, body);
  assert.equal(r.status, 200, r.text);
  return (r.body as { aggregations: Record<string, Composite> }).aggregations;
};

/** 60 passes: plate P0..P19 (3 each), checkpoint c0..c2, speed, a date; plates P5 and P6 also get a second checkpoint. */
const PASSES: { plate: string; checkpoint: string[] | string; speed?: number; at: string }[] = [];
for (let i = 0; i < 60; i++) {
  const plate = `P${i % 20}`;
  const pass: { plate: string; checkpoint: string[] | string; speed?: number; at: string } = {
    plate,
    checkpoint: `c${i % 3}`,
    at: `2026-11-${String(1 + (i % 4)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00Z`,
  };
  if (i % 10 !== 0) pass.speed = 30 + (i % 7) * 10;
  PASSES.push(pass);
}

before(async () => {
  server = await startServer();
  const mappings = { _doc: { properties: { plate: { type: 'keyword' }, checkpoint: { type: 'keyword' }, speed: { type: 'long' }, at: { type: 'date' } } } };
  assert.equal((await req('PUT', '/plates', { settings: { number_of_shards: 3 }, mappings })).status, 200);
  const lines = PASSES.flatMap((p, i) => [JSON.stringify({ index: { _id: String(i) } }), JSON.stringify(p)]).join('\n') + '\n';
  const r = await http(server.url, 'POST', '/plates/_doc/_bulk?refresh=true', lines, { 'content-type': 'application/x-ndjson' });
  assert.equal(r.status, 200, r.text);
});
after(async () => {
  await server.stop();
});

/** Expected counts by key, computed from PASSES. */
function expectedCounts(keyOf: (p: (typeof PASSES)[number]) => string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of PASSES) for (const k of new Set(keyOf(p))) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

describe('composite', () => {
  test('pages of 7 through plate × checkpoint read every bucket once, in key order, with exact counts', async () => {
    const seen: string[] = [];
    const counts = new Map<string, number>();
    let afterKey: Record<string, unknown> | undefined;
    for (let page = 0; page < 20; page++) {
      const body = { size: 0, aggs: { c: { composite: { size: 7, sources: [{ plate: { terms: { field: 'plate' } } }, { cp: { terms: { field: 'checkpoint', order: 'desc' } } }], ...(afterKey ? { after: afterKey } : {}) } } } };
      const c = (await search(body)).c!;
      if (c.buckets.length === 0) {
        assert.equal(c.after_key, undefined, 'an empty page has no after_key');
        break;
      }
      assert.deepEqual(c.after_key, c.buckets[c.buckets.length - 1]!.key, 'after_key is the last key of the page');
      for (const b of c.buckets) {
        const k = `${String(b.key.plate)}|${String(b.key.cp)}`;
        seen.push(k);
        counts.set(k, b.doc_count);
      }
      afterKey = c.after_key;
    }
    const want = expectedCounts((p) => [`${p.plate}|${String(p.checkpoint)}`]);
    const sorted = [...want.keys()].sort((a, b) => {
      const [pa, ca] = a.split('|') as [string, string];
      const [pb, cb] = b.split('|') as [string, string];
      return pa < pb ? -1 : pa > pb ? 1 : ca < cb ? 1 : ca > cb ? -1 : 0;
    });
    assert.deepEqual(seen, sorted, 'every key once, plate ascending then checkpoint descending');
    assert.deepEqual(Object.fromEntries(counts), Object.fromEntries(want));
  });

  test('histogram and date_histogram sources with format, missing_bucket and typed_keys', async () => {
    const body = {
      size: 0,
      aggs: {
        c: {
          composite: {
            size: 100,
            sources: [{ day: { date_histogram: { field: 'at', interval: '1d', format: 'yyyy-MM-dd' } } }, { speed: { histogram: { field: 'speed', interval: 20, missing_bucket: true } } }],
          },
        },
      },
    };
    const a = await search(body, '?typed_keys=true');
    const c = a['composite#c']!;
    const want = expectedCounts((p) => [`${p.at.slice(0, 10)}|${p.speed === undefined ? 'null' : String(Math.floor(p.speed / 20) * 20)}`]);
    const got = c.buckets.map((b) => `${String(b.key.day)}|${String(b.key.speed)}`);
    assert.equal(got.length, want.size);
    for (const b of c.buckets) assert.equal(b.doc_count, want.get(`${String(b.key.day)}|${String(b.key.speed)}`));
    assert.equal(c.buckets[0]!.key.day, '2026-11-01');
    assert.equal(c.buckets[0]!.key.speed, null, 'the missing bucket sorts first');
    const next = await search({ size: 0, aggs: { c: { composite: { ...body.aggs.c.composite, after: { day: '2026-11-03', speed: null } } } } });
    assert.deepEqual(next.c!.buckets[0]!.key, { day: '2026-11-03', speed: 20 }, 'after parses the formatted date and the null key');
  });

  test('dates without a format are keyed as epoch millis', async () => {
    const a = await search({ size: 0, aggs: { c: { composite: { size: 1, sources: [{ d: { date_histogram: { field: 'at', interval: 'day' } } }] } } } });
    assert.deepEqual(a.c!.buckets[0]!.key, { d: Date.parse('2026-11-01T00:00:00Z') });
  });

  test('sub-aggregations are collected for the buckets of the page only', async () => {
    const a = await search({ size: 0, aggs: { c: { composite: { size: 2, sources: [{ cp: { terms: { field: 'checkpoint' } } }] }, aggs: { fast: { max: { field: 'speed' } }, plates: { cardinality: { field: 'plate' } } } } } });
    const bs = a.c!.buckets;
    assert.deepEqual(bs.map((b) => b.key.cp), ['c0', 'c1']);
    for (const b of bs) {
      const mine = PASSES.filter((p) => p.checkpoint === b.key.cp);
      assert.equal(b.doc_count, mine.length);
      assert.equal((b.fast as { value: number }).value, Math.max(...mine.map((p) => p.speed ?? -1)));
      assert.equal((b.plates as { value: number }).value, new Set(mine.map((p) => p.plate)).size);
    }
  });

  test('refusals: under a terms parent, an after of the wrong size, a size over search.max_buckets', async () => {
    const under = await req('POST', '/plates/_search', { aggs: { t: { terms: { field: 'plate' }, aggs: { c: { composite: { sources: [{ p: { terms: { field: 'plate' } } }] } } } } } });
    assert.equal(under.status, 400);
    assert.match(under.text, /\[composite\] aggregation cannot be used with a parent aggregation of type: \[TermsAggregatorFactory\]/);
    const wrongAfter = await req('POST', '/plates/_search', { aggs: { c: { composite: { after: { p: 'P1', q: 1 }, sources: [{ p: { terms: { field: 'plate' } } }] } } } });
    assert.equal(wrongAfter.status, 400);
    assert.match(wrongAfter.text, /\[after\] has 2 value\(s\) but \[sources\] has 1/);
    const big = await req('POST', '/plates/_search', { aggs: { c: { composite: { size: 1000000000, sources: [{ p: { terms: { field: 'plate' } } }] } } } });
    assert.match(big.text, /Trying to create too many buckets/);
    const noSources = await req('POST', '/plates/_search', { aggs: { c: { composite: { size: 1 } } } });
    assert.equal(noSources.status, 400);
    assert.match(noSources.text, /Required \[sources\]/);
  });
});
