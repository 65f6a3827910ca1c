/**
 * `auto_date_histogram` over HTTP on two shards: the interval chosen for the
 * `buckets` asked (`interval` in the response), empty buckets filled, runs
 * of days merged into weeks, sub-aggregations, typed_keys, and 7.x's
 * `minimum_interval` refused.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Histo = { interval: string; buckets: { key_as_string: string; doc_count: number; v?: { value: number } }[] };

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/passes', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { at: { type: 'date' }, v: { type: 'long' } } } } })).status, 200);
  const days = ['2020-03-01', '2020-03-02', '2020-03-08', '2020-03-09', '2020-03-09T13:30:00Z'];
  for (const [i, at] of days.entries()) await req('PUT', `/passes/_doc/${i}?routing=r${i}`, { at, v: i + 1 });
  await req('POST', '/passes/_refresh');
});
after(async () => {
  await server.stop();
});

const histo = async (params: Record<string, unknown>, subs?: unknown): Promise<Histo> => {
  const r = await req('POST', '/passes/_search?typed_keys=true', { size: 0, aggs: { h: { auto_date_histogram: { field: 'at', ...params }, ...(subs ? { aggs: subs } : {}) } } });
  assert.equal(r.status, 200, r.text);
  const h = (r.body as { aggregations: Record<string, Histo> }).aggregations['auto_date_histogram#h'];
  assert.ok(h, 'typed key auto_date_histogram');
  return h;
};

describe('auto_date_histogram', () => {
  test('two buckets: days merged by 7, interval 7d, sub-aggregations merged with them', async () => {
    const h = await histo({ buckets: 2 }, { v: { sum: { field: 'v' } } });
    assert.equal(h.interval, '7d');
    assert.deepEqual(
      h.buckets.map((b) => [b.key_as_string, b.doc_count, (b as unknown as Record<string, { value: number }>)['sum#v']!.value]),
      [
        ['2020-03-01T00:00:00.000Z', 2, 3],
        ['2020-03-08T00:00:00.000Z', 3, 12],
      ],
    );
  });

  test('ten buckets: one a day, the empty days filled with 0', async () => {
    const h = await histo({ buckets: 10, format: 'yyyy-MM-dd' });
    assert.equal(h.interval, '1d');
    assert.deepEqual(h.buckets.map((b) => b.key_as_string), ['2020-03-01', '2020-03-02', '2020-03-03', '2020-03-04', '2020-03-05', '2020-03-06', '2020-03-07', '2020-03-08', '2020-03-09']);
    assert.deepEqual(h.buckets.map((b) => b.doc_count), [1, 1, 0, 0, 0, 0, 0, 1, 2]);
  });

  test('time_zone moves the day boundaries', async () => {
    const h = await histo({ buckets: 10, time_zone: '-12:00', format: 'yyyy-MM-dd' });
    assert.equal(h.buckets[h.buckets.length - 1]!.key_as_string, '2020-03-09');
    assert.equal(h.buckets[0]!.key_as_string, '2020-02-29');
  });

  test('minimum_interval is Elasticsearch 7\'s: an unknown field here', async () => {
    const r = await req('POST', '/passes/_search', { size: 0, aggs: { h: { auto_date_histogram: { field: 'at', minimum_interval: 'day' } } } });
    assert.equal(r.status, 400);
    assert.match(r.text, /\[auto_date_histogram\] unknown field \[minimum_interval\]/);
  });
});
