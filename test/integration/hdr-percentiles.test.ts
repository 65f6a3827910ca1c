/**
 * `percentiles` and `percentile_ranks` with `hdr` over HTTP on two shards:
 * Elasticsearch 6.8's values and key printing, typed_keys names, the
 * parameter refusals, and a negative value failing only its shard.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/speeds', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { kmh: { type: 'integer' }, plate: { type: 'keyword' } } } } })).status, 200);
  for (const [i, kmh] of [1, 51, 101, 151].entries()) await req('PUT', `/speeds/_doc/${i}?routing=r${i}`, { kmh, plate: 'AB' });
  await req('POST', '/speeds/_refresh');
});
after(async () => {
  await server.stop();
});

describe('hdr percentiles', () => {
  test('values, keys printed as Java doubles, hdr_percentiles typed key', async () => {
    const r = await req('POST', '/speeds/_search?typed_keys=true', { size: 0, aggs: { p: { percentiles: { field: 'kmh', percents: [1, 50, 99.9], hdr: { number_of_significant_value_digits: 3 } } } } });
    assert.equal(r.status, 200, r.text);
    const aggs = (r.body as { aggregations: Record<string, { values: Record<string, number> }> }).aggregations;
    assert.deepEqual(aggs['hdr_percentiles#p']!.values, { '1.0': 1, '50.0': 51.0302734375, '99.9': 151.1240234375 });
    assert.match(r.text, /"50\.0":51\.0302734375/, 'keys keep their ".0" in the body');
  });

  test('percentile_ranks with hdr, unkeyed; an empty bucket prints null', async () => {
    const r = await req('POST', '/speeds/_search?typed_keys=true', {
      size: 0,
      aggs: {
        r: { percentile_ranks: { field: 'kmh', values: [50, 99], keyed: false, hdr: {} } },
        none: { filter: { term: { plate: 'ZZ' } }, aggs: { p: { percentiles: { field: 'kmh', percents: [50], hdr: {} } } } },
      },
    });
    assert.equal(r.status, 200, r.text);
    const aggs = (r.body as { aggregations: Record<string, Record<string, unknown>> }).aggregations;
    assert.deepEqual(aggs['hdr_percentile_ranks#r']!.values, [{ key: 50, value: 25 }, { key: 99, value: 50 }]);
    assert.deepEqual((aggs['filter#none']!['hdr_percentiles#p'] as { values: unknown }).values, { '50.0': null });
  });

  test('refusals: digits outside 0..5, empty percents, both methods', async () => {
    const digits = await req('POST', '/speeds/_search', { aggs: { p: { percentiles: { field: 'kmh', hdr: { number_of_significant_value_digits: 6 } } } } });
    assert.equal(digits.status, 400);
    assert.match(digits.text, /\[numberOfSignificantValueDigits\] must be between 0 and 5/);
    const empty = await req('POST', '/speeds/_search', { aggs: { p: { percentiles: { field: 'kmh', percents: [], hdr: {} } } } });
    assert.equal(empty.status, 400);
    assert.match(empty.text, /\[percents\] must not be empty/);
    const both = await req('POST', '/speeds/_search', { aggs: { p: { percentiles: { field: 'kmh', hdr: {}, tdigest: {} } } } });
    assert.equal(both.status, 400);
  });

  test('a negative value fails its shard with array_index_out_of_bounds_exception; the other shard answers', async () => {
    await req('PUT', '/speeds/_doc/neg?routing=r0&refresh=true', { kmh: -10 });
    const r = await req('POST', '/speeds/_search', { size: 0, aggs: { p: { percentiles: { field: 'kmh', hdr: {} } } } });
    assert.equal(r.status, 200, r.text);
    const body = r.body as { _shards: { failed: number; failures: { reason: { type: string } }[] } };
    assert.equal(body._shards.failed, 1);
    assert.equal(body._shards.failures[0]!.reason.type, 'array_index_out_of_bounds_exception');
    await req('DELETE', '/speeds/_doc/neg?routing=r0&refresh=true');
  });
});
