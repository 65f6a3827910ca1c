/**
 * `ip` fields over HTTP: exact and CIDR terms, ranges in address order
 * (IPv4 below IPv6, as Lucene orders them), the `ip_range` aggregation with
 * `from`/`to` and `mask`, and Elasticsearch's errors for values that are not
 * addresses. Expected sets are written out by hand from the addresses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are JSON of many shapes
type Body = any;

/** id → address as the client sends it. */
const ADDRESSES: Record<string, string> = {
  a: '10.0.0.1',
  b: '10.0.0.200',
  c: '10.0.1.5',
  d: '192.168.1.1',
  e: '::1',
  f: '2001:db8::1',
  g: '0:0:0:0:0:ffff:a00:2', // 10.0.0.2, written as IPv4-mapped IPv6
};

const ids = async (query: unknown): Promise<string[]> => {
  const r = await req('POST', '/hosts/_search', { query, size: 20 });
  assert.equal(r.status, 200, r.text);
  return (r.body as Body).hits.hits.map((h: { _id: string }) => h._id).sort();
};

/**
 * id → address of the ordering tests: as text "10.0.0.10" sorts before
 * "10.0.0.9", "2001:db8::1" before "9.255.0.1" and "::1" after all digits;
 * as addresses (16 bytes, IPv4 mapped into IPv6) the order is the ids'.
 */
const ORDERED: [string, string][] = [
  ['o1', '::1'],
  ['o2', '9.255.0.1'],
  ['o3', '10.0.0.9'],
  ['o4', '10.0.0.10'],
  ['o5', '192.168.0.1'],
  ['o6', '2001:db8::1'],
  ['o7', 'fe80::1'],
];
const IN_ORDER = ORDERED.map(([, ip]) => ip);

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/hosts', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { ip: { type: 'ip' } } } } })).status, 200);
  for (const [id, ip] of Object.entries(ADDRESSES)) assert.equal((await req('PUT', `/hosts/_doc/${id}`, { ip })).status, 201);
  await req('POST', '/hosts/_refresh');
  const order = { settings: { number_of_shards: 3 }, mappings: { _doc: { properties: { ip: { type: 'ip' }, n: { type: 'integer' } } } } };
  assert.equal((await req('PUT', '/order', order)).status, 200);
  // two refreshes: the addresses are spread over segments as well as shards
  for (const [i, [id, ip]] of ORDERED.entries()) {
    // o3 is written in another spelling of the same address
    assert.equal((await req('PUT', `/order/_doc/${id}`, { ip: id === 'o3' ? '::ffff:10.0.0.9' : ip, n: i })).status, 201);
    if (i === 3) await req('POST', '/order/_refresh');
  }
  assert.equal((await req('PUT', '/order/_doc/none', { n: 99 })).status, 201);
  await req('POST', '/order/_refresh');
});
after(async () => {
  await server.stop();
});

describe('ip queries', () => {
  test('term: one address in any of its spellings, or a CIDR block', async () => {
    assert.deepEqual(await ids({ term: { ip: '10.0.0.2' } }), ['g']);
    assert.deepEqual(await ids({ term: { ip: '::ffff:10.0.0.1' } }), ['a']);
    assert.deepEqual(await ids({ term: { ip: '10.0.0.0/24' } }), ['a', 'b', 'g']);
    assert.deepEqual(await ids({ term: { ip: '10.0.0.0/8' } }), ['a', 'b', 'c', 'g']);
    assert.deepEqual(await ids({ term: { ip: '2001:db8::/32' } }), ['f']);
    assert.deepEqual(await ids({ match: { ip: '10.0.1.0/24' } }), ['c']);
  });

  test('terms mixes addresses and blocks', async () => {
    assert.deepEqual(await ids({ terms: { ip: ['10.0.1.0/24', '::1'] } }), ['c', 'e']);
    assert.deepEqual(await ids({ terms: { ip: ['192.168.1.1', '10.0.0.200'] } }), ['b', 'd']);
  });

  test('range compares addresses, not text; IPv6 sorts above IPv4', async () => {
    // as text "10.0.0.200" > "10.0.0.2" > "10.0.0.10"; as addresses 10.0.0.2 < 10.0.0.10 < 10.0.0.200
    assert.deepEqual(await ids({ range: { ip: { gte: '10.0.0.2', lte: '10.0.0.10' } } }), ['g']);
    assert.deepEqual(await ids({ range: { ip: { gt: '10.0.0.2', lt: '10.0.1.5' } } }), ['b']);
    assert.deepEqual(await ids({ range: { ip: { gt: '192.168.0.0' } } }), ['d', 'f']);
    assert.deepEqual(await ids({ range: { ip: { lt: '0.0.0.0' } } }), ['e']);
  });

  test('values that are not addresses are 400s; prefix and wildcard are refused', async () => {
    const bad = await req('POST', '/hosts/_search', { query: { term: { ip: 'nope' } } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /'nope' is not an IP string literal\./);
    const prefix = await req('POST', '/hosts/_search', { query: { range: { ip: { gte: '10.0.0.0/8' } } } });
    assert.equal(prefix.status, 400);
    const len = await req('POST', '/hosts/_search', { query: { term: { ip: '10.0.0.0/33' } } });
    assert.match(len.text, /Illegal prefix length \[33\]/);
    const wildcard = await req('POST', '/hosts/_search', { query: { prefix: { ip: '10' } } });
    assert.equal((wildcard.body as Body).error.root_cause[0].reason, 'Can only use prefix queries on keyword and text fields - not on [ip] which is of type [ip]');
  });

  test('a bad address in a document is a mapper_parsing_exception', async () => {
    const r = await req('PUT', '/hosts/_doc/bad', { ip: '10.0.0.300' });
    assert.equal(r.status, 400);
    assert.equal((r.body as Body).error.reason, 'failed to parse field [ip] of type [ip]');
  });
});

describe('ip_range aggregation', () => {
  test('from/to and mask ranges, ordered by their bounds, with sub-aggregations', async () => {
    const r = await req('POST', '/hosts/_search?size=0&typed_keys', {
      aggs: {
        r: {
          ip_range: { field: 'ip', ranges: [{ to: '10.0.0.5' }, { from: '10.0.0.5', to: '10.0.1.0' }, { mask: '10.0.0.0/25' }, { from: '192.168.0.0', key: 'high' }] },
          aggs: { n: { value_count: { field: 'ip' } } },
        },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((r.body as Body).aggregations['ip_range#r'].buckets, [
      { key: '*-10.0.0.5', to: '10.0.0.5', doc_count: 3, 'value_count#n': { value: 3 } }, // ::1, 10.0.0.1, 10.0.0.2
      { key: '10.0.0.0/25', from: '10.0.0.0', to: '10.0.0.128', doc_count: 2, 'value_count#n': { value: 2 } },
      { key: '10.0.0.5-10.0.1.0', from: '10.0.0.5', to: '10.0.1.0', doc_count: 1, 'value_count#n': { value: 1 } },
      { key: 'high', from: '192.168.0.0', doc_count: 2, 'value_count#n': { value: 2 } }, // 192.168.1.1, 2001:db8::1
    ]);
  });

  test('keyed ranges', async () => {
    const r = await req('POST', '/hosts/_search?size=0', { aggs: { r: { ip_range: { field: 'ip', keyed: true, ranges: [{ mask: '10.0.0.0/8' }] } } } });
    assert.deepEqual((r.body as Body).aggregations.r.buckets, { '10.0.0.0/8': { from: '10.0.0.0', to: '11.0.0.0', doc_count: 4 } });
  });
});

describe('ip ordering: sorts, search_after and bucket keys in address order (IPv4 as IPv4-mapped IPv6)', () => {
  const search = async (body: unknown): Promise<Body> => {
    const r = await req('POST', '/order/_search', body);
    assert.equal(r.status, 200, r.text);
    return r.body as Body;
  };

  test('sort ascending and descending orders addresses, prints them as addresses, and puts a doc without one last', async () => {
    const asc = await search({ sort: [{ ip: 'asc' }], size: 20 });
    assert.deepEqual(
      asc.hits.hits.map((h: Body) => [h._id, h.sort[0]]),
      [...ORDERED.map(([id, ip]) => [id, ip]), ['none', null]],
    );
    const desc = await search({ sort: [{ ip: { order: 'desc' } }], size: 20 });
    assert.deepEqual(
      desc.hits.hits.map((h: Body) => h.sort[0]),
      [...[...IN_ORDER].reverse(), null],
    );
  });

  test('a sort missing value is an address in the order', async () => {
    const r = await search({ sort: [{ ip: { order: 'asc', missing: '10.0.0.50' } }], size: 20 });
    assert.deepEqual(
      r.hits.hits.map((h: Body) => h._id),
      ['o1', 'o2', 'o3', 'o4', 'none', 'o5', 'o6', 'o7'],
    );
  });

  test('search_after pages with the printed sort values, ascending and descending', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let after: unknown[] | null = null;
      for (let page = 0; page < 10; page++) {
        const body: Body = { size: 2, query: { exists: { field: 'ip' } }, sort: [{ ip: order }] };
        if (after !== null) body.search_after = after;
        const hits = (await search(body)).hits.hits;
        if (hits.length === 0) break;
        for (const h of hits) seen.push(h.sort[0]);
        after = hits[hits.length - 1].sort;
      }
      assert.deepEqual(seen, order === 'asc' ? IN_ORDER : [...IN_ORDER].reverse());
    }
    const other = await search({ size: 3, sort: [{ ip: 'asc' }], search_after: ['::ffff:10.0.0.9'] });
    assert.deepEqual(
      other.hits.hits.map((h: Body) => h._id),
      ['o4', 'o5', 'o6'],
    );
    const bad = await req('POST', '/order/_search', { sort: [{ ip: 'asc' }], search_after: ['nope'] });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /'nope' is not an IP string literal\./);
  });

  test('a scroll sorted on an ip field reads every address once, in order', async () => {
    const first = await req('POST', '/order/_search?scroll=1m', { size: 2, query: { exists: { field: 'ip' } }, sort: [{ ip: 'asc' }] });
    assert.equal(first.status, 200, first.text);
    let body = first.body as Body;
    const seen: string[] = [];
    while (body.hits.hits.length > 0) {
      for (const h of body.hits.hits) seen.push(h.sort[0]);
      const next = await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: body._scroll_id });
      assert.equal(next.status, 200, next.text);
      body = next.body as Body;
    }
    assert.deepEqual(seen, IN_ORDER);
  });

  test('terms buckets ordered by _key follow address order and print addresses', async () => {
    for (const asc of [true, false]) {
      const r = await search({ size: 0, aggs: { t: { terms: { field: 'ip', size: 20, order: { _key: asc ? 'asc' : 'desc' } } } } });
      assert.deepEqual(
        r.aggregations.t.buckets.map((b: Body) => [b.key, b.doc_count]),
        (asc ? IN_ORDER : [...IN_ORDER].reverse()).map((ip) => [ip, 1]),
      );
    }
    const inc = await search({ size: 0, aggs: { t: { terms: { field: 'ip', include: ['::ffff:10.0.0.10', '::1'], missing: '0.0.0.0' } } } });
    assert.deepEqual(
      inc.aggregations.t.buckets.map((b: Body) => b.key),
      ['::1', '10.0.0.10'],
    );
    const missing = await search({ size: 0, aggs: { t: { terms: { field: 'ip', missing: '0.0.0.1', size: 1, order: { _key: 'asc' } } } } });
    assert.deepEqual(missing.aggregations.t.buckets, [{ key: '::1', doc_count: 1 }]);
    const missingDesc = await search({ size: 0, aggs: { t: { terms: { field: 'ip', missing: '255.255.255.255', size: 2, order: { _key: 'desc' } } } } });
    assert.deepEqual(
      missingDesc.aggregations.t.buckets.map((b: Body) => b.key),
      ['fe80::1', '2001:db8::1'],
    );
  });

  test('composite pages over ip keys in address order; after_key is an address and is accepted back', async () => {
    const seen: string[] = [];
    let after: Body = null;
    for (let page = 0; page < 10; page++) {
      const composite: Body = { size: 3, sources: [{ ip: { terms: { field: 'ip' } } }] };
      if (after !== null) composite.after = after;
      const agg = (await search({ size: 0, aggs: { c: { composite } } })).aggregations.c;
      if (agg.buckets.length === 0) break;
      for (const b of agg.buckets) seen.push(b.key.ip);
      after = agg.after_key;
      assert.equal(after.ip, agg.buckets[agg.buckets.length - 1].key.ip);
    }
    assert.deepEqual(seen, IN_ORDER);
  });

  test('docvalue_fields, top_hits sort values and script doc values print addresses', async () => {
    const r = await search({
      query: { term: { ip: '10.0.0.9' } },
      docvalue_fields: ['ip'],
      script_fields: { s: { script: { source: "doc['ip'].value" } } },
      aggs: { top: { top_hits: { size: 2, sort: [{ ip: 'desc' }], _source: false } } },
    });
    assert.deepEqual(r.hits.hits[0].fields, { ip: ['10.0.0.9'], s: ['10.0.0.9'] });
    const all = await search({ size: 0, aggs: { top: { top_hits: { size: 3, sort: [{ ip: 'desc' }], _source: false } } } });
    assert.deepEqual(
      all.aggregations.top.hits.hits.map((h: Body) => [h._id, h.sort[0]]),
      [
        ['o7', 'fe80::1'],
        ['o6', '2001:db8::1'],
        ['o5', '192.168.0.1'],
      ],
    );
  });

  test('a term query on an address is a constant-score match (InetAddressPoint.newExactQuery); collapse on ip is refused', async () => {
    const r = await search({ query: { term: { ip: { value: '10.0.0.9', boost: 2 } } } });
    assert.deepEqual(
      r.hits.hits.map((h: Body) => [h._id, h._score]),
      [['o3', 2]],
    );
    const c = await req('POST', '/order/_search', { collapse: { field: 'ip' } });
    assert.equal(c.status, 400, c.text);
    assert.match(c.text, /unknown type for collapse field `ip`, only keywords and numbers are accepted/);
  });
});
