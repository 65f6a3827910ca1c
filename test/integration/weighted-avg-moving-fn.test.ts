/**
 * `weighted_avg` and `moving_fn` over HTTP on two shards: values, typed_keys
 * names, the window and script refusals, and 7.x's `shift` refused.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

before(async () => {
  server = await startServer();
  const mappings = { _doc: { properties: { day: { type: 'date' }, kmh: { type: 'double' }, cars: { type: 'long' } } } };
  assert.equal((await req('PUT', '/traffic', { settings: { number_of_shards: 2 }, mappings })).status, 200);
  const rows: [string, number, number][] = [
    ['2026-11-01', 50, 1],
    ['2026-11-01', 70, 3],
    ['2026-11-02', 60, 2],
    ['2026-11-04', 80, 4],
    ['2026-11-05', 40, 1],
  ];
  for (const [i, [day, kmh, cars]] of rows.entries()) await req('PUT', `/traffic/_doc/${i}?routing=r${i}`, { day, kmh, cars });
  await req('POST', '/traffic/_refresh');
});
after(async () => {
  await server.stop();
});

describe('weighted_avg', () => {
  test('Σ value × weight / Σ weight across shards, typed key weighted_avg, null without weights', async () => {
    const r = await req('POST', '/traffic/_search?typed_keys=true', {
      size: 0,
      aggs: { w: { weighted_avg: { value: { field: 'kmh' }, weight: { field: 'cars' } } }, none: { weighted_avg: { value: { field: 'kmh' }, weight: { field: 'nope' } } } },
    });
    assert.equal(r.status, 200, r.text);
    const aggs = (r.body as { aggregations: Record<string, { value: number | null }> }).aggregations;
    assert.equal(aggs['weighted_avg#w']!.value, (50 * 1 + 70 * 3 + 60 * 2 + 80 * 4 + 40 * 1) / 11);
    assert.equal(aggs['weighted_avg#none']!.value, null);
  });

  test('weight.missing stands in for docs without a weight; an unknown parameter is refused', async () => {
    const r = await req('POST', '/traffic/_search', { size: 0, aggs: { w: { weighted_avg: { value: { field: 'kmh' }, weight: { field: 'nope', missing: 2 } } } } });
    assert.equal((r.body as { aggregations: { w: { value: number } } }).aggregations.w.value, 60);
    const bad = await req('POST', '/traffic/_search', { size: 0, aggs: { w: { weighted_avg: { value: { field: 'kmh' }, weight: { field: 'cars' }, sigma: 1 } } } });
    assert.equal(bad.status, 400);
  });
});

describe('moving_fn', () => {
  const histo = (mov: unknown) => ({
    size: 0,
    aggs: { d: { date_histogram: { field: 'day', interval: 'day' }, aggs: { avg: { avg: { field: 'kmh' } }, mov } } },
  });

  test('unweightedAvg over a window of 2 previous buckets; the empty day is skipped', async () => {
    const r = await req('POST', '/traffic/_search?typed_keys=true', histo({ moving_fn: { buckets_path: 'avg', window: 2, script: 'MovingFunctions.unweightedAvg(values)' } }));
    assert.equal(r.status, 200, r.text);
    const buckets = (r.body as { aggregations: { 'date_histogram#d': { buckets: Record<string, { value: number | null } | undefined>[] } } }).aggregations['date_histogram#d'].buckets;
    assert.deepEqual(
      buckets.map((b) => b['simple_value#mov']?.value),
      [null, 60, undefined, 60, 70],
      'first bucket: empty window (NaN → null); day 3 has no docs: no value',
    );
  });

  test('script params and MovingFunctions with arguments', async () => {
    const r = await req('POST', '/traffic/_search', histo({ moving_fn: { buckets_path: 'avg', window: 10, script: { source: 'MovingFunctions.ewma(values, params.a)', params: { a: 0.5 } } } }));
    const buckets = (r.body as { aggregations: { d: { buckets: { mov?: { value: number | null } }[] } } }).aggregations.d.buckets;
    assert.deepEqual(buckets.map((b) => b.mov?.value), [null, 60, undefined, 60, 70]);
  });

  test('refusals: window, unknown function, shift (7.x)', async () => {
    const window = await req('POST', '/traffic/_search', histo({ moving_fn: { buckets_path: 'avg', window: 0, script: 'MovingFunctions.max(values)' } }));
    assert.equal(window.status, 400);
    assert.match(window.text, /\[window\] must be a positive, non-zero integer\./);
    const unknown = await req('POST', '/traffic/_search', histo({ moving_fn: { buckets_path: 'avg', window: 2, script: 'MovingFunctions.windowMax(values)' } }));
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /Unknown call \[windowMax\] with \[1\] arguments on type \[MovingFunctions\]/);
    const shift = await req('POST', '/traffic/_search', histo({ moving_fn: { buckets_path: 'avg', window: 2, shift: 1, script: 'MovingFunctions.max(values)' } }));
    assert.equal(shift.status, 400);
    assert.match(shift.text, /\[moving_fn\] unknown field \[shift\]/);
  });
});
