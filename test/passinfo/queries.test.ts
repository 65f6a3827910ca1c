/**
 * The nine business queries against a search node, on a data set with
 * planted answers (planted.ts) loaded through the file import; every
 * expected answer is computed from the records in memory, not by the code
 * under test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { SearchClient } from '../../services/passinfo/search-client.ts';
import { DEFAULT_INDEX_NAMES, ensureIndices } from '../../services/passinfo/index-setup.ts';
import { importFile, type ImportSummary } from '../../services/passinfo/file-import.ts';
import { designation } from '../../services/passinfo/entry-designation.ts';
import { PassinfoQueries } from '../../services/passinfo/queries.ts';
import { platePassCounts } from '../../services/passinfo/plate-counts.ts';
import { buildHttpApi } from '../../services/passinfo/http-api.ts';
import type { PassRecord } from '../../services/passinfo/pass-record.ts';
import * as P from './planted.ts';

let server: TestServer;
let client: SearchClient;
let queries: PassinfoQueries;
let records: PassRecord[];
let summary: ImportSummary;
let rejectsFile: string;
const dirs: string[] = [];

before(async () => {
  server = await startServer();
  client = new SearchClient(server.url);
  queries = new PassinfoQueries(client);
  records = P.dataset();
  const dir = await tempDir('passinfo-import-');
  dirs.push(dir);
  const file = join(dir, 'passes.ndjson');
  rejectsFile = join(dir, 'rejects.ndjson');
  const bad = ['{"event_id":"BAD-1","plate":"京A1"}', 'not json at all'];
  await writeFile(file, [...records.map((r) => JSON.stringify(r)), ...bad].join('\n') + '\n');
  summary = await importFile({
    client,
    names: DEFAULT_INDEX_NAMES,
    file,
    rejectsFile,
    designation: designation(P.ENTRY_CHECKPOINTS, P.LOOK_BACK_DAYS),
    index: { shards: 2, replicas: 0 },
    batchSize: 3000,
  });
  await client.refresh('passinfo,passinfo-first-entry');
});

after(async () => {
  await queries?.close();
  await server?.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const inRange = (r: PassRecord, from: string, to: string): boolean => r.pass_time >= from && r.pass_time < to;

describe('index setup and file import', () => {
  test('the passes index sits behind the alias with plate.keyword mapped before any data', async () => {
    const { body } = await client.es.indices.getAlias({ name: 'passinfo' });
    assert.deepEqual(Object.keys(body as object), ['passinfo-v1']);
    const { body: mapping } = await client.es.indices.getMapping({ index: 'passinfo' });
    const props = (mapping as Record<string, { mappings: { passinfo: { properties: Record<string, { fields?: Record<string, { type: string }> }> } } }>)['passinfo-v1']!
      .mappings.passinfo.properties;
    assert.equal(props.plate!.fields!.keyword!.type, 'keyword');
    assert.equal((props.location as { type?: string }).type, 'geo_point');
  });

  test('setting up again changes nothing', async () => {
    await ensureIndices(client);
    assert.equal(await client.count('passinfo', { match_all: {} }), records.length);
  });

  test('every good line is indexed once and bad lines are written to the rejects file with the reason', async () => {
    assert.equal(summary.indexed, records.length);
    assert.equal(summary.rejected, 2);
    const rejects = (await readFile(rejectsFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { reason: string });
    assert.match(rejects[0]!.reason, /\[event_type\]|\[land_id\]|\[pass_time\]/);
    assert.match(rejects[1]!.reason, /not a JSON record/);
  });

  test('importing the same file again indexes nothing new', async () => {
    const dir = await tempDir('passinfo-again-');
    dirs.push(dir);
    const file = join(dir, 'again.csv');
    const fields = Object.keys(records[0]!);
    const cell = (r: PassRecord, f: string): string => (f === 'location' ? `${r.location.lat},${r.location.lon}` : String((r as unknown as Record<string, unknown>)[f] ?? ''));
    const csvLine = (r: PassRecord) => fields.map((f) => JSON.stringify(cell(r, f))).join(',');
    await writeFile(file, [fields.join(','), ...records.slice(0, 500).map(csvLine)].join('\n'));
    const again = await importFile({ client, names: DEFAULT_INDEX_NAMES, file });
    assert.deepEqual([again.indexed, again.duplicates, again.rejected], [0, 500, 0]);
  });
});

describe('1 and 2: fuzzy plate search', () => {
  test('an inner fragment finds exactly the passes whose plate contains it, newest first', async () => {
    const fragment = records[100]!.plate.slice(2, 5);
    const expected = records.filter((r) => r.plate.includes(fragment));
    const page = await queries.plates({ q: fragment, size: 50 });
    assert.equal(page.total, expected.length);
    const times = page.hits.map((h) => h.pass_time);
    assert.deepEqual(times, [...times].sort().reverse());
    assert.ok(page.hits.every((h) => h.plate.includes(fragment)));
  });

  test('several fragments must all appear; a trailing * is a prefix', async () => {
    const page = await queries.plates({ q: 'o100 0a', size: 100 });
    assert.deepEqual(new Set(page.hits.map((h) => h.plate)), new Set([P.TARGET]));
    const prefix = await queries.plates({ q: '京O4*', size: 100 });
    assert.equal(prefix.total, records.filter((r) => r.plate.startsWith('京O4')).length);
  });

  test('the next cursor pages through every hit without repeats', async () => {
    const fragment = records[0]!.plate.slice(1, 3);
    const expected = records.filter((r) => r.plate.includes(fragment)).length;
    const seen = new Set<string>();
    let after: string | undefined;
    for (;;) {
      const page = await queries.plates({ q: fragment, size: 200, after });
      for (const h of page.hits) seen.add(h.event_id);
      if (page.next === undefined) break;
      after = page.next;
    }
    assert.equal(seen.size, expected);
  });

  test('relevance puts the exact plate first', async () => {
    const page = await queries.plates({ q: P.TARGET, sort: 'relevance', size: 5 });
    assert.equal(page.hits[0]!.plate, P.TARGET);
  });

  test('exact filters and a time range narrow the fragment', async () => {
    const fragment = records[7]!.plate.slice(1, 3);
    const [from, to] = ['2026-10-03 00:00:00', '2026-10-20 00:00:00'];
    const expected = records.filter(
      (r) => r.plate.includes(fragment) && r.plate_color === 1 && [1, 2].includes(r.plate_category) && inRange(r, from, to),
    );
    const page = await queries.passes({ q: fragment, plate_color: [1], plate_category: [1, 2], from, to, size: 1000 });
    assert.equal(page.total, expected.length);
    assert.deepEqual(new Set(page.hits.map((h) => h.event_id)), new Set(expected.map((r) => r.event_id)));
  });
});

describe('3, 4, 5: trajectory, traffic counts, landing points', () => {
  const busiest = (): string => {
    const n = new Map<string, number>();
    for (const r of records) n.set(r.plate, (n.get(r.plate) ?? 0) + 1);
    return [...n].sort((a, b) => b[1] - a[1])[0]![0];
  };

  test('a trajectory is every pass of the plate in the range, in time order', async () => {
    const plate = busiest();
    const expected = records
      .filter((r) => r.plate === plate && inRange(r, '2026-10-01 00:00:00', '2026-10-31 00:00:00'))
      .sort((a, b) => (a.pass_time < b.pass_time ? -1 : a.pass_time > b.pass_time ? 1 : a.event_id < b.event_id ? -1 : 1));
    assert.ok(expected.length > 100, `busiest plate has ${expected.length} passes`);
    const t = await queries.trajectory({ plate, from: '2026-10-01', to: '2026-10-31' });
    assert.deepEqual(t.passes.map((p) => p.event_id), expected.map((r) => r.event_id));
  });

  test('traffic per checkpoint per day over a range matches a count of the records', async () => {
    const [from, to] = ['2026-10-04 00:00:00', '2026-10-06 00:00:00'];
    const expected = new Map<string, number>();
    for (const r of records) if (inRange(r, from, to)) expected.set(`${r.land_id} ${r.pass_time.slice(0, 10)}`, (expected.get(`${r.land_id} ${r.pass_time.slice(0, 10)}`) ?? 0) + 1);
    const res = await queries.traffic({ by: 'checkpoint_day', from, to });
    assert.deepEqual(new Map(res.rows.map((r) => [`${r.land_id} ${r.day}`, r.count])), expected);
    const perDay = await queries.traffic({ by: 'day', from, to });
    assert.deepEqual(perDay.rows.map((r) => r.count), [...new Set(res.rows.map((r) => r.day))].sort().map((d) => res.rows.filter((r) => r.day === d).reduce((a, r) => a + r.count, 0)));
  });

  test('landing points count a plate\'s passes per checkpoint', async () => {
    const plate = busiest();
    const expected = new Map<string, number>();
    for (const r of records) if (r.plate === plate) expected.set(r.land_id, (expected.get(r.land_id) ?? 0) + 1);
    const res = await queries.landingPoints({ plate });
    assert.deepEqual(new Map(res.points.map((p) => [p.land_id, p.count])), expected);
    const counts = res.points.map((p) => p.count);
    assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
  });
});

describe('6: region collision', () => {
  test('the plates seen in both regions, with their counts in each', async () => {
    const res = await queries.regionCollision({ regions: [P.REGION_1, P.REGION_2] });
    assert.deepEqual(Object.fromEntries(res.plates.map((p) => [p.plate, p.counts])), P.COLLISION);
    assert.deepEqual(res.plates[0]!.plate, '京O4000B');
  });

  test('fewer than two regions is refused', async () => {
    await assert.rejects(queries.regionCollision({ regions: [P.REGION_1] }), /needs 2 to 10 regions/);
  });
});

describe('passes per plate of a window (region collision, day/night)', () => {
  const window = { from: '2026-10-01 00:00:00', to: '2026-10-03 00:00:00' };
  const query = { bool: { filter: [{ range: { pass_time: { gte: window.from, lt: window.to } } }] } };
  const expected = (): Map<string, number> => {
    const m = new Map<string, number>();
    for (const r of records) if (inRange(r, window.from, window.to)) m.set(r.plate, (m.get(r.plate) ?? 0) + 1);
    return m;
  };

  test('one aggregation counts them when the plates fit in it', async () => {
    const want = expected();
    const got = await platePassCounts(client, DEFAULT_INDEX_NAMES.passes, query, { batchSize: 500 });
    assert.ok(want.size > 10, 'the window holds more than ten plates');
    assert.deepEqual(new Map([...got.counts].sort()), new Map([...want].sort()));
    assert.equal(got.passes, [...want.values()].reduce((a, b) => a + b, 0));
  });

  test('more plates than one aggregation returns are read by scroll, with the same counts', async () => {
    const want = expected();
    const got = await platePassCounts(client, DEFAULT_INDEX_NAMES.passes, query, { batchSize: 500, maxAggregated: 10 });
    assert.deepEqual(new Map([...got.counts].sort()), new Map([...want].sort()));
    assert.equal(got.passes, [...want.values()].reduce((a, b) => a + b, 0));
  });
});

describe('areas: traffic and region collision by polygon or circle', () => {
  const rad = Math.PI / 180;
  const meters = (a: { lat: number; lon: number }, b: { lat: number; lon: number }): number =>
    2 * 6371008.7714 * Math.asin(Math.sqrt(Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2));
  /** Ray casting, the textbook way. */
  const inPolygon = (p: { lat: number; lon: number }, poly: readonly [number, number][]): boolean => {
    let inside = false;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const [yi, xi] = poly[i]!;
      const [yj, xj] = poly[j]!;
      if (yi > p.lat !== yj > p.lat && p.lon < ((xj - xi) * (p.lat - yi)) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
  };
  /** The textbook geohash (bits alternate longitude, latitude; five to a character). */
  const geohash = (p: { lat: number; lon: number }, chars: number): string => {
    const range = { lat: [-90, 90], lon: [-180, 180] };
    let out = '';
    for (let c = 0, bit = 0; c < chars; c++) {
      let v = 0;
      for (let k = 0; k < 5; k++, bit++) {
        const key = bit % 2 === 0 ? 'lon' : 'lat';
        const mid = (range[key][0]! + range[key][1]!) / 2;
        const on = p[key] >= mid;
        v = v * 2 + (on ? 1 : 0);
        range[key][on ? 0 : 1] = mid;
      }
      out += '0123456789bcdefghjkmnpqrstuvwxyz'[v];
    }
    return out;
  };
  const countBy = <K>(list: readonly PassRecord[], key: (r: PassRecord) => K): Map<K, number> => {
    const m = new Map<K, number>();
    for (const r of list) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
    return m;
  };
  const [from, to] = ['2026-10-03 00:00:00', '2026-10-09 00:00:00'];
  const center = { lat: 39.92, lon: 116.42 };

  test('traffic within a circle counts exactly the passes of the checkpoints within it', async () => {
    const radius = 6000;
    const near = records.filter((r) => inRange(r, from, to) && meters(center, r.location) <= radius);
    // No checkpoint sits on the edge (the node's points are quantised to a centimetre).
    assert.ok(!records.some((r) => Math.abs(meters(center, r.location) - radius) < 1));
    assert.ok(near.length > 500 && near.length < records.length / 2, `${near.length} passes within`);
    const res = await queries.traffic({ by: 'checkpoint', circle: `${center.lat},${center.lon},6km`, from, to });
    assert.equal(res.total, near.length);
    assert.deepEqual(new Map(res.rows.map((r) => [r.land_id, r.count])), countBy(near, (r) => r.land_id));
  });

  test('traffic within a polygon, per day, matches a ray-casting count', async () => {
    const poly: [number, number][] = [[39.85, 116.3], [40.0, 116.35], [39.97, 116.5], [39.88, 116.45]];
    const inside = records.filter((r) => inRange(r, from, to) && inPolygon(r.location, poly));
    assert.ok(inside.length > 500, `${inside.length} passes inside`);
    const res = await queries.traffic({ by: 'day', polygon: poly.map(([a, b]) => `${a},${b}`).join(';'), from, to });
    assert.equal(res.total, inside.length);
    assert.deepEqual(new Map(res.rows.map((r) => [r.day, r.count])), countBy(inside, (r) => r.pass_time.slice(0, 10)));
  });

  test('traffic as a map grid: passes per geohash cell, each with the centroid of its passes', async () => {
    const inRangeAll = records.filter((r) => inRange(r, from, to));
    const res = await queries.traffic({ by: 'grid', precision: 5, from, to });
    const expected = countBy(inRangeAll, (r) => geohash(r.location, 5));
    assert.deepEqual(new Map(res.rows.map((r) => [r.geohash, r.count])), expected);
    const counts = res.rows.map((r) => r.count);
    assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
    const top = res.rows[0]!;
    const mine = inRangeAll.filter((r) => geohash(r.location, 5) === top.geohash);
    const mean = (f: (r: PassRecord) => number) => mine.reduce((a, r) => a + f(r), 0) / mine.length;
    assert.ok(Math.abs(top.lat! - mean((r) => r.location.lat)) < 1e-5 && Math.abs(top.lon! - mean((r) => r.location.lon)) < 1e-5);
    await assert.rejects(queries.traffic({ by: 'grid', precision: 11 }), /\[precision\] \[11\] must be an integer from 1 to 10/);
  });

  test('region collision over circles around the planted checkpoints matches a brute-force collision', async () => {
    const around = (land: string) => records.find((r) => r.land_id === land)!.location;
    const regions = [
      { circle: { ...around('L0901'), radius: '1500m' }, from: P.REGION_1.from, to: P.REGION_1.to },
      { circle: { ...around('L0912'), radius: '1.5km' }, from: P.REGION_2.from, to: P.REGION_2.to },
    ];
    const perRegion = regions.map((g) => countBy(records.filter((r) => inRange(r, g.from, g.to) && meters(g.circle, r.location) <= 1500), (r) => r.plate));
    const expected = new Map([...perRegion[0]!].filter(([p]) => perRegion[1]!.has(p)).map(([p, n]) => [p, [n, perRegion[1]!.get(p)!]]));
    assert.ok(expected.size >= 1, 'some plate passes both circles');
    const res = await queries.regionCollision({ regions });
    assert.equal(res.total, expected.size);
    assert.deepEqual(new Map(res.plates.map((p) => [p.plate, p.counts])), expected);
  });

  test('over HTTP: traffic takes circle and polygon parameters, collision takes them in its regions, bad areas are 400', async () => {
    const app = buildHttpApi(queries);
    try {
      const circle = await app.inject({ method: 'GET', url: `/traffic?circle=${center.lat},${center.lon},6km&from=${from}&to=${to}` });
      assert.equal(circle.statusCode, 200);
      assert.equal((circle.json() as { total: number }).total, records.filter((r) => inRange(r, from, to) && meters(center, r.location) <= 6000).length);
      const grid = await app.inject({ method: 'GET', url: '/traffic?by=grid&precision=4' });
      assert.equal(grid.statusCode, 200);
      assert.equal((grid.json() as { rows: { count: number }[] }).rows.reduce((a, r) => a + r.count, 0), records.length);
      const both = await app.inject({ method: 'GET', url: '/traffic?land_id=L0001&circle=39.9,116.4,1km' });
      assert.equal(both.statusCode, 400);
      assert.match((both.json() as { error: { message: string } }).error.message, /give one of land_id, polygon or circle/);
      const coll = await app.inject({
        method: 'POST',
        url: '/region-collision',
        payload: { regions: [{ polygon: [[39.9, 116.3], [40, 116.4]], from: P.REGION_1.from, to: P.REGION_1.to }, P.REGION_2] },
      });
      assert.equal(coll.statusCode, 400);
      assert.match((coll.json() as { error: { message: string } }).error.message, /^\[regions\[0\]\.polygon\] needs at least 3 distinct points/);
    } finally {
      await app.close();
    }
  });
});

describe('7: first entry', () => {
  test('the planted plate\'s first pass at an entry checkpoint after more than the look-back window is a first entry, the next day\'s is not', async () => {
    const res = await queries.firstEntries({ land_id: ['L0001', 'L0002'], from: '2026-10-12', to: '2026-10-14', size: 10_000 });
    const mine = res.entries.filter((e) => e.plate === P.ENTERING);
    assert.deepEqual(mine.map((e) => [e.land_id, e.pass_time]), [['L0001', '2026-10-12 09:00:00']]);
  });

  test('the stored first entries are exactly those a brute-force look-back finds', async () => {
    const expected = P.bruteFirstEntries(records, P.ENTRY_CHECKPOINTS, P.LOOK_BACK_DAYS);
    const res = await queries.firstEntries({ size: 10_000 });
    assert.equal(res.total, expected.size);
    assert.deepEqual(new Set(res.entries.map((e) => e.event_id)), expected);
  });

  test('asking for a checkpoint that is not designated is a clear error', async () => {
    await assert.rejects(queries.firstEntries({ land_id: ['L0100'] }), (err: Error & { code?: string }) =>
      err.code === 'not_an_entry_checkpoint' && /\[L0100\] is not a designated entry checkpoint/.test(err.message),
    );
  });
});

describe('8: companions and similarity', () => {
  const day = { from: `${P.ROUTE_DAY} 00:00:00`, to: `${P.ROUTE_DAY} 23:59:59` };

  test('the plate that followed the target through all its checkpoints ranks first; partial and late ones do not qualify', async () => {
    const res = await queries.companions({ plate: P.TARGET, ...day, tolerance: 60, min_checkpoints: 3 });
    const expected = P.bruteCompanions(records, P.TARGET, 60, 3);
    assert.deepEqual(new Map(res.companions.map((c) => [c.plate, c.checkpoints])), expected);
    assert.equal(res.companions[0]!.plate, P.COMPANION);
    assert.equal(res.companions[0]!.checkpoints, 5);
    assert.ok(!res.companions.some((c) => c.plate === P.PARTIAL || c.plate === P.LATE));
  });

  test('similarity is 2·LCS/(|A|+|B|) with visits matched within the tolerance', async () => {
    const close = await queries.similarity({ plate_a: P.TARGET, plate_b: P.COMPANION, ...day, tolerance: 60 });
    assert.deepEqual([close.lcs, close.length_a, close.length_b, close.similarity], [5, 5, 6, 0.9091]);
    const late = await queries.similarity({ plate_a: P.TARGET, plate_b: P.LATE, ...day, tolerance: 60 });
    assert.equal(late.lcs, 0);
    const lenient = await queries.similarity({ plate_a: P.TARGET, plate_b: P.LATE, ...day, tolerance: 3600 });
    assert.equal(lenient.lcs, 5);
  });
});

describe('9: day-hidden / night-out', () => {
  test('per day, exactly the plates seen at night and never by day', async () => {
    const res = await queries.dayNight({ from: '2026-10-06', to: '2026-10-09', size: 100_000 });
    assert.deepEqual(res.days.map((d) => d.day), ['2026-10-06', '2026-10-07', '2026-10-08']);
    for (const d of res.days) assert.deepEqual(new Set(d.plates.map((p) => p.plate)), P.bruteDayHidden(records, d.day), d.day);
    const oct7 = res.days[1]!.plates.map((p) => p.plate);
    assert.ok(oct7.includes(P.NIGHT_ONLY));
    assert.ok(!oct7.includes(P.NIGHT_AND_DAY));
  });
});

describe('HTTP API', () => {
  test('endpoints answer the queries; errors carry the catalogue status', async () => {
    const app = buildHttpApi(queries);
    try {
      const traj = await app.inject({ method: 'GET', url: `/plates/${encodeURIComponent(P.ENTERING)}/trajectory` });
      assert.equal(traj.statusCode, 200);
      assert.equal((traj.json() as { total: number }).total, 3);
      const bad = await app.inject({ method: 'GET', url: '/first-entries?land_id=L0100' });
      assert.equal(bad.statusCode, 400);
      assert.equal((bad.json() as { error: { code: string } }).error.code, 'not_an_entry_checkpoint');
      const coll = await app.inject({ method: 'POST', url: '/region-collision', payload: { regions: [P.REGION_1, P.REGION_2] } });
      assert.equal((coll.json() as { total: number }).total, 3);
      const range = await app.inject({ method: 'GET', url: '/traffic?from=2026-10-05&to=2026-10-01' });
      assert.equal(range.statusCode, 400);
    } finally {
      await app.close();
    }
  });
});
