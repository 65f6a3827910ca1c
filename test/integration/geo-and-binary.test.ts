/**
 * geo_point and binary fields over HTTP: every geo_point input form, the geo
 * queries (distance, bounding box, polygon), `_geo_distance` sort, and the
 * errors Elasticsearch 6.8 gives for bad points and for searching binary.
 * Expected distances come from the haversine formula on the points as given
 * (independent of the quantised values the engine keeps, within a meter).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Hit = { _id: string; sort?: number[] };
/** A response body read by path (the tests check the shape they read). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are JSON of many shapes
type Body = any;
const hits = async (index: string, body: unknown): Promise<Hit[]> => {
  const r = await req('POST', `/${index}/_search`, body);
  assert.equal(r.status, 200, r.text);
  return (r.body as { hits: { hits: Hit[] } }).hits.hits;
};
const ids = async (query: unknown): Promise<string[]> => (await hits('cities', { query, size: 20 })).map((h) => h._id).sort();

/** [lat, lon] of each city. */
const CITIES: Record<string, [number, number]> = {
  amsterdam: [52.374081, 4.91235],
  antwerp: [51.2229, 4.4052],
  paris: [48.861111, 2.336389],
  london: [51.5074, -0.1278],
  new_york: [40.7128, -74.006],
  fiji: [-17.7134, 178.065],
};

function haversineKm(a: [number, number], b: [number, number]): number {
  const rad = Math.PI / 180;
  const dLat = (b[0] - a[0]) * rad;
  const dLon = (b[1] - a[1]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(dLon / 2) ** 2;
  return (2 * 6371008.7714 * Math.asin(Math.sqrt(h))) / 1000;
}

/** The textbook geohash encoder (bits alternate longitude, latitude; five to a base-32 character). */
function geohash([lat, lon]: [number, number], chars: number): string {
  const alphabet = '0123456789bcdefghjkmnpqrstuvwxyz';
  const range = { lat: [-90, 90], lon: [-180, 180] };
  let out = '';
  let bits = '';
  for (let i = 0; bits.length < chars * 5; i++) {
    const [key, v] = i % 2 === 0 ? (['lon', lon] as const) : (['lat', lat] as const);
    const mid = (range[key][0]! + range[key][1]!) / 2;
    bits += v >= mid ? '1' : '0';
    range[key][v >= mid ? 0 : 1] = mid;
  }
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

before(async () => {
  server = await startServer();
  const created = await req('PUT', '/cities', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { loc: { type: 'geo_point' }, photo: { type: 'binary' } } } } });
  assert.equal(created.status, 200, created.text);
  // one city per input form
  const forms: Record<string, unknown> = {
    amsterdam: { lat: 52.374081, lon: 4.91235 },
    antwerp: '51.2229,4.4052',
    paris: [2.336389, 48.861111],
    london: { lat: '51.5074', lon: '-0.1278' },
    new_york: [40.7128, -74.006].reverse(),
    fiji: [{ lat: -17.7134, lon: 178.065 }],
  };
  for (const [id, loc] of Object.entries(forms)) {
    const r = await req('PUT', `/cities/_doc/${id}`, { loc, photo: 'aGVsbG8=' });
    assert.equal(r.status, 201, r.text);
  }
  await req('POST', '/cities/_refresh');
});
after(async () => {
  await server.stop();
});

describe('geo_point', () => {
  test('the mapping prints geo_point and binary with the parameters given', async () => {
    const r = await req('PUT', '/geo_params', { mappings: { _doc: { properties: { p: { type: 'geo_point', ignore_malformed: true, ignore_z_value: false }, b: { type: 'binary', store: true } } } } });
    assert.equal(r.status, 200, r.text);
    const m = await req('GET', '/geo_params/_mapping');
    assert.deepEqual((m.body as Body).geo_params.mappings._doc.properties, {
      b: { type: 'binary', store: true },
      p: { type: 'geo_point', ignore_malformed: true, ignore_z_value: false },
    });
    const bad = await req('PUT', '/geo_bad', { mappings: { _doc: { properties: { p: { type: 'geo_point', analyzer: 'standard' } } } } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /Mapping definition for \[p\] has unsupported parameters: {2}\[analyzer : standard\]/);
  });

  test('geo_distance finds the cities within the distance, whatever form the point was given in', async () => {
    const center: [number, number] = [52.0, 4.5];
    for (const km of [100, 400, 1000]) {
      const expected = Object.keys(CITIES).filter((c) => haversineKm(center, CITIES[c]!) <= km).sort();
      assert.deepEqual(await ids({ geo_distance: { distance: `${km}km`, loc: { lat: 52.0, lon: 4.5 } } }), expected, `${km} km`);
    }
    // the same circle given as [lon, lat], "lat,lon" and a number with a unit
    assert.deepEqual(await ids({ geo_distance: { distance: 400, unit: 'km', loc: [4.5, 52.0] } }), ['amsterdam', 'antwerp', 'london', 'paris']);
    assert.deepEqual(await ids({ geo_distance: { distance: '400000m', loc: '52.0,4.5' } }), ['amsterdam', 'antwerp', 'london', 'paris']);
    // a circle around a point just east of the dateline reaches Fiji on the other side
    const fijiKm = haversineKm([-17.7, -179.9], CITIES.fiji!);
    assert.ok(fijiKm > 200 && fijiKm < 220, String(fijiKm));
    assert.deepEqual(await ids({ geo_distance: { distance: '220km', loc: { lat: -17.7, lon: -179.9 } } }), ['fiji']);
    assert.deepEqual(await ids({ geo_distance: { distance: '200km', loc: { lat: -17.7, lon: -179.9 } } }), []);
  });

  test('geo_bounding_box keeps the points inside, also across the dateline', async () => {
    assert.deepEqual(await ids({ geo_bounding_box: { loc: { top_left: { lat: 53, lon: 0 }, bottom_right: { lat: 48, lon: 5 } } } }), ['amsterdam', 'antwerp', 'paris']);
    // from 170°E eastwards to 3°E: Fiji, the Americas, London and Paris, not Amsterdam (4.9°E)
    assert.deepEqual(await ids({ geo_bounding_box: { loc: { top: 60, left: 170, bottom: -20, right: 3 } } }), ['fiji', 'london', 'new_york', 'paris']);
  });

  test('geo_polygon keeps the points inside the polygon (closed or not)', async () => {
    const benelux = [[3, 50], [7, 50], [7, 54], [3, 54]];
    assert.deepEqual(await ids({ geo_polygon: { loc: { points: benelux } } }), ['amsterdam', 'antwerp']);
    assert.deepEqual(await ids({ geo_polygon: { loc: { points: [...benelux, benelux[0]] } } }), ['amsterdam', 'antwerp']);
  });

  test('_geo_distance sort orders by distance and reports it in the unit asked', async () => {
    const origin: [number, number] = [52.0, 4.5];
    const got = await hits('cities', { size: 10, sort: [{ _geo_distance: { loc: [4.5, 52.0], order: 'asc', unit: 'km' } }] });
    const expected = Object.keys(CITIES).sort((a, b) => haversineKm(origin, CITIES[a]!) - haversineKm(origin, CITIES[b]!));
    assert.deepEqual(got.map((h) => h._id), expected);
    for (const h of got) assert.ok(Math.abs(h.sort![0]! - haversineKm(origin, CITIES[h._id]!)) < 0.01, `${h._id}: ${h.sort![0]}`);
    const desc = await hits('cities', { size: 1, sort: [{ _geo_distance: { loc: { lat: 52, lon: 4.5 }, order: 'desc' } }] });
    assert.equal(desc[0]!._id, 'fiji');
  });

  test('bad points are refused with Elasticsearch errors, or dropped with ignore_malformed', async () => {
    const lat = await req('PUT', '/cities/_doc/bad', { loc: { lat: 95, lon: 0 } });
    assert.equal(lat.status, 400);
    assert.equal((lat.body as Body).error.reason, 'failed to parse field [loc] of type [geo_point]');
    assert.equal((lat.body as Body).error.caused_by.reason, 'illegal latitude value [95.0] for loc');
    const missing = await req('PUT', '/cities/_doc/bad', { loc: { lat: 5 } });
    assert.equal((missing.body as Body).error.caused_by.reason, 'field [lon] missing');
    const z = await req('PUT', '/geo_params/_doc/1', { p: [1, 2, 3] });
    assert.equal(z.status, 201, 'ignore_malformed drops the point with a z value');
    await req('POST', '/geo_params/_refresh');
    const found = await req('POST', '/geo_params/_search', { query: { exists: { field: 'p' } } });
    assert.equal((found.body as Body).hits.total, 0);
  });

  test('a coordinate of 200,000 digits and a letter is refused at once (the number check does not backtrack)', async () => {
    const t0 = performance.now();
    const r = await req('PUT', '/cities/_doc/long', { loc: `${'1'.repeat(200_000)}x,2` });
    assert.equal(r.status, 400);
    assert.equal((r.body as Body).error.caused_by.reason, 'latitude must be a number');
    assert.ok(performance.now() - t0 < 2000, `${performance.now() - t0} ms`);
  });

  test('queries on the wrong fields answer as Elasticsearch does', async () => {
    const term = await req('POST', '/cities/_search', { query: { term: { loc: 'x' } } });
    assert.equal(term.status, 400);
    assert.equal((term.body as Body).error.root_cause[0].reason, 'Geo fields do not support exact searching, use dedicated geo queries instead: [loc]');
    const unmapped = await req('POST', '/cities/_search', { query: { geo_distance: { distance: '1km', nope: [0, 0] } } });
    assert.equal((unmapped.body as Body).error.root_cause[0].reason, 'failed to find geo_point field [nope]');
    const ignored = await req('POST', '/cities/_search', { query: { geo_distance: { distance: '1km', nope: [0, 0], ignore_unmapped: true } } });
    assert.equal((ignored.body as Body).hits.total, 0);
    const distance = await req('POST', '/cities/_search', { query: { geo_distance: { distance: '-1km', loc: [0, 0] } } });
    assert.equal((distance.body as Body).error.reason, 'distance must be greater than zero');
    const polygon = await req('POST', '/cities/_search', { query: { geo_polygon: { loc: { points: [[0, 0], [1, 1]] } } } });
    assert.equal((polygon.body as Body).error.reason, 'too few points defined for geo_polygon query');
  });

  test('points survive a flush (segment files) and a merge', async () => {
    await req('POST', '/cities/_flush');
    await req('POST', '/cities/_forcemerge?max_num_segments=1');
    assert.deepEqual(await ids({ geo_distance: { distance: '100km', loc: [4.5, 52.0] } }), ['amsterdam', 'antwerp']);
  });
});

describe('binary', () => {
  test('a base64 value is kept in _source and counts for exists; bad base64 is a mapper_parsing_exception', async () => {
    const doc = await req('GET', '/cities/_doc/paris');
    assert.equal((doc.body as Body)._source.photo, 'aGVsbG8=');
    assert.equal((await hits('cities', { query: { exists: { field: 'photo' } } })).length, 6);
    const bad = await req('PUT', '/cities/_doc/bad', { photo: 'a!' });
    assert.equal(bad.status, 400);
    assert.equal((bad.body as Body).error.reason, 'failed to parse field [photo] of type [binary]');
  });

  test('binary fields cannot be searched', async () => {
    const r = await req('POST', '/cities/_search', { query: { term: { photo: 'aGVsbG8=' } } });
    assert.equal(r.status, 400);
    assert.equal((r.body as Body).error.root_cause[0].reason, 'Binary fields do not support searching');
  });
});

describe('geo aggregations', () => {
  type Aggs = Record<string, Body>;
  const aggs = async (body: unknown, path = '/cities/_search?size=0'): Promise<Aggs> => {
    const r = await req('POST', path, body);
    assert.equal(r.status, 200, r.text);
    return (r.body as Body).aggregations as Aggs;
  };
  const near = (a: number, b: number): boolean => Math.abs(a - b) < 1e-6;

  test('geo_bounds: the box around the points, wrapped across the dateline when that is narrower', async () => {
    const a = await aggs({ aggs: { europe: { filter: { geo_distance: { distance: '600km', loc: [4.5, 52] } }, aggs: { b: { geo_bounds: { field: 'loc' } } } }, all: { geo_bounds: { field: 'loc' } } } });
    const eu = a.europe.b.bounds;
    assert.ok(near(eu.top_left.lat, 52.374081) && near(eu.top_left.lon, -0.1278), JSON.stringify(eu));
    assert.ok(near(eu.bottom_right.lat, 48.861111) && near(eu.bottom_right.lon, 4.91235), JSON.stringify(eu));
    // New York (-74) to Fiji (178): 252 degrees east of New York, or 108 across the dateline from Fiji eastwards? No:
    // the box from 2.3°E (Paris) westwards over the dateline to 0.13°W is wider, so Elasticsearch keeps -74..178
    const all = a.all.bounds;
    assert.ok(near(all.top_left.lon, -74.006) && near(all.bottom_right.lon, 178.065), JSON.stringify(all));
    assert.ok(near(all.top_left.lat, 52.374081) && near(all.bottom_right.lat, -17.7134));
    const none = await aggs({ query: { ids: { values: ['none'] } }, aggs: { b: { geo_bounds: { field: 'loc' } } } });
    assert.deepEqual(none.b, {});
  });

  test('geo_centroid: the mean point and the count', async () => {
    const a = await aggs({ aggs: { c: { geo_centroid: { field: 'loc' } } } });
    const lats = Object.values(CITIES).map((c) => c[0]);
    const lons = Object.values(CITIES).map((c) => c[1]);
    const mean = (xs: number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
    assert.equal(a.c.count, 6);
    assert.ok(Math.abs(a.c.location.lat - mean(lats)) < 1e-6 && Math.abs(a.c.location.lon - mean(lons)) < 1e-6, JSON.stringify(a.c));
  });

  test('geohash_grid: buckets by cell, most documents first, with sub-aggregations', async () => {
    const a = await aggs({ aggs: { grid: { geohash_grid: { field: 'loc', precision: 2 }, aggs: { c: { geo_centroid: { field: 'loc' } } } } } });
    const buckets = a.grid.buckets as { key: string; doc_count: number; c: Body }[];
    // Amsterdam and Antwerp share u1, the other four have cells of their own (ties: cell descending)
    assert.deepEqual(buckets.map((b) => [b.key, b.doc_count]), [['u1', 2], ['u0', 1], ['ru', 1], ['gc', 1], ['dr', 1]]);
    assert.deepEqual(['amsterdam', 'antwerp', 'paris', 'fiji', 'london', 'new_york'].map((c) => geohash(CITIES[c]!, 2)), ['u1', 'u1', 'u0', 'ru', 'gc', 'dr']);
    assert.equal(buckets[0]!.c.count, 2);
    assert.equal('sum_other_doc_count' in a.grid, false);
    const bad = await req('POST', '/cities/_search', { aggs: { g: { geohash_grid: { field: 'loc', precision: 13 } } } });
    assert.equal(bad.status, 400);
    assert.equal((bad.body as Body).error.reason, 'Invalid geohash aggregation precision of 13. Must be between 1 and 12.');
  });

  test('geo_distance aggregation: range buckets over the distance from the origin, in the unit asked', async () => {
    const a = await aggs({ aggs: { d: { geo_distance: { field: 'loc', origin: '52, 4.5', unit: 'km', ranges: [{ to: 100 }, { from: 100, to: 500 }, { from: 500 }] } } } }, '/cities/_search?size=0&typed_keys');
    const origin: [number, number] = [52, 4.5];
    const count = (lo: number, hi: number): number => Object.values(CITIES).filter((c) => haversineKm(origin, c) >= lo && haversineKm(origin, c) < hi).length;
    assert.deepEqual(a['geo_distance#d'].buckets, [
      { key: '*-100.0', to: 100, doc_count: count(-Infinity, 100) },
      { key: '100.0-500.0', from: 100, to: 500, doc_count: count(100, 500) },
      { key: '500.0-*', from: 500, doc_count: count(500, Infinity) },
    ]);
  });

  test('geo aggregations on a field that is not a geo_point are refused', async () => {
    const r = await req('POST', '/cities/_search', { aggs: { b: { geo_bounds: { field: 'photo' } } } });
    assert.equal(r.status, 400);
    assert.equal((r.body as Body).error.reason, 'Expected geo_point type on field [photo], but got [binary]');
  });
});
