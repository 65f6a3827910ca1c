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

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/hosts', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { ip: { type: 'ip' } } } } })).status, 200);
  for (const [id, ip] of Object.entries(ADDRESSES)) assert.equal((await req('PUT', `/hosts/_doc/${id}`, { ip })).status, 201);
  await req('POST', '/hosts/_refresh');
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
