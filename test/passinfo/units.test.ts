/** The pure parts of the pass-record application: validation, CSV, pass times, trajectory similarity, companion windows. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validatePassRecord } from '../../services/passinfo/pass-record.ts';
import { passRecordCodec } from '../../services/passinfo/pass-record-codec.ts';
import { splitCsvLine } from '../../services/passinfo/file-import.ts';
import { parsePassTime, parseClock } from '../../services/passinfo/pass-time.ts';
import { lcsWithTolerance, trajectorySimilarity } from '../../services/passinfo/trajectory-similarity.ts';
import { passWindows } from '../../services/passinfo/companions.ts';
import { generatePassRecords } from '../../bench/pass-records.ts';
import { checkpointLocation, CITY_CENTER, CITY_RADIUS_KM } from '../../services/passinfo/checkpoint-map.ts';
import { areaClause } from '../../services/passinfo/area.ts';
import type { PassinfoError } from '../../services/passinfo/errors.ts';

function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371.0087714 * Math.asin(Math.sqrt(h));
}

const record = generatePassRecords({ count: 1 }).next().value!;
const at = (land: string, s: number) => ({ land, t: s * 1000 });

describe('pass records', () => {
  test('a generated record is valid and survives the Avro codec, its location given back from its checkpoint', () => {
    const v = validatePassRecord(record);
    assert.equal(v.ok, true);
    assert.ok(v.ok);
    const decoded = { ...passRecordCodec.decode(passRecordCodec.encode(v.record)) } as Record<string, unknown>;
    // The topic's schema has no location: ingest places the pass at its checkpoint.
    assert.equal(decoded.location, undefined);
    assert.deepEqual(validatePassRecord(decoded), { ok: true, record: v.record });
  });

  test('a record keeps its own location; a bad one is refused with the reason', () => {
    const own = validatePassRecord({ ...record, location: { lat: 40, lon: 116.5 } });
    assert.ok(own.ok);
    assert.deepEqual(own.record.location, { lat: 40, lon: 116.5 });
    assert.deepEqual(validatePassRecord({ ...record, location: { lat: 91, lon: 0 } }), { ok: false, reason: '[location.lat] [91] is not a latitude from -90 to 90' });
    assert.deepEqual(validatePassRecord({ ...record, location: '40,116' }), { ok: false, reason: '[location] must be an object {lat, lon}' });
  });

  test('checkpoints stand at fixed places within the city radius of its centre', () => {
    assert.deepEqual(checkpointLocation('L0001'), checkpointLocation('L0001'));
    assert.deepEqual(record.location, checkpointLocation(record.land_id));
    const places = new Set<string>();
    for (let i = 1; i <= 200; i++) {
      const p = checkpointLocation(`L${String(i).padStart(4, '0')}`);
      places.add(`${p.lat},${p.lon}`);
      const km = haversineKm(p.lat, p.lon, CITY_CENTER.lat, CITY_CENTER.lon);
      assert.ok(km <= CITY_RADIUS_KM + 0.01, `L${i} is ${km} km out`);
    }
    assert.equal(places.size, 200);
  });

  test('validation names the field and the value it refuses', () => {
    assert.deepEqual(validatePassRecord({ ...record, pass_time: '2026-02-30 10:00:00' }), {
      ok: false,
      reason: '[pass_time] [2026-02-30 10:00:00] is not a date of format yyyy-MM-dd HH:mm:ss',
    });
    assert.deepEqual(validatePassRecord({ ...record, speed: 1.5 }), { ok: false, reason: '[speed] [1.5] is not an integer' });
    assert.deepEqual(validatePassRecord({ ...record, plate: ' ' }), { ok: false, reason: '[plate] is missing or empty' });
    assert.deepEqual(validatePassRecord([]), { ok: false, reason: 'not an object' });
  });

  test('CSV lines split on commas outside double quotes', () => {
    assert.deepEqual(splitCsvLine('a,"b,c","d ""e""",'), ['a', 'b,c', 'd "e"', '']);
  });

  test('pass times read as UTC whatever the machine zone; impossible dates are refused', () => {
    assert.equal(parsePassTime('2026-10-01 00:00:00'), Date.UTC(2026, 9, 1));
    assert.equal(parsePassTime('2026-10-01T00:00:00'), null);
    assert.equal(parseClock('night', '22:30'), 22 * 60 + 30);
    assert.throws(() => parseClock('night', '25:00'), /is not a time of day/);
  });
});

describe('trajectory similarity', () => {
  test('LCS matches visits at the same checkpoint within the tolerance, in order', () => {
    const a = [at('L1', 0), at('L2', 100), at('L3', 200), at('L4', 300)];
    const b = [at('L1', 10), at('L3', 190), at('L2', 250), at('L4', 330)];
    assert.equal(lcsWithTolerance(a, b, 20), 2); // L1, L3 (L2 is 150 s off, L4 30 s off)
    assert.equal(lcsWithTolerance(a, b, 200), 3); // L1, then L2 or L3 (not both: out of order), L4
    assert.deepEqual(trajectorySimilarity(a, b, 200), { lcs: 3, length_a: 4, length_b: 4, similarity: 0.75 });
  });

  test('one visit is matched once even when several are within tolerance', () => {
    const a = [at('L1', 0)];
    const b = [at('L1', 1), at('L1', 2), at('L1', 3)];
    assert.equal(lcsWithTolerance(a, b, 10), 1);
    assert.equal(lcsWithTolerance(b, a, 10), 1);
    assert.equal(trajectorySimilarity([], [], 10).similarity, 0);
  });

  test('companion windows at one checkpoint merge when they overlap', () => {
    const windows = passWindows([at('L1', 0), at('L1', 100), at('L1', 1000), at('L2', 50)], 60_000);
    assert.deepEqual(
      windows.map((w) => [w.land, w.from / 1000, w.to / 1000]),
      [
        ['L1', -60, 160],
        ['L1', 940, 1060],
        ['L2', -10, 110],
      ],
    );
  });
});

describe('areas: checkpoints, polygon or circle', () => {
  const refused = (area: Parameters<typeof areaClause>[1], message: RegExp) =>
    assert.throws(() => areaClause('', area, true), (e: PassinfoError) => e.code === 'invalid_parameter' && message.test(e.message));

  test('each form becomes its filter clause', () => {
    assert.deepEqual(areaClause('', { land_id: ['L0001', ' L0002', 'L0001'] }, true), { terms: { land_id: ['L0001', 'L0002'] } });
    assert.deepEqual(areaClause('', { circle: '39.9,116.4,2km' }, true), { geo_distance: { distance: '2000m', location: { lat: 39.9, lon: 116.4 } } });
    assert.deepEqual(areaClause('', { circle: { lat: 39.9, lon: 116.4, radius: 500 } }, true), { geo_distance: { distance: '500m', location: { lat: 39.9, lon: 116.4 } } });
    const triangle = { geo_polygon: { location: { points: [{ lat: 39.9, lon: 116.3 }, { lat: 40, lon: 116.4 }, { lat: 39.9, lon: 116.5 }] } } };
    assert.deepEqual(areaClause('', { polygon: '39.9,116.3;40,116.4;39.9,116.5;39.9,116.3' }, true), triangle);
    assert.deepEqual(areaClause('', { polygon: [[39.9, 116.3], { lat: 40, lon: 116.4 }, [39.9, 116.5]] }, true), triangle);
    assert.equal(areaClause('', {}, false), null);
  });

  test('bad areas are refused naming the parameter', () => {
    refused({}, /^\[land_id\/polygon\/circle\] needs checkpoints/);
    refused({ land_id: ['L1'], circle: '1,2,3km' }, /give one of land_id, polygon or circle/);
    refused({ polygon: '1,2;3,4' }, /^\[polygon\] needs at least 3 distinct points, got 2/);
    refused({ polygon: '1,2;3,4;95,1' }, /^\[polygon\[2\]\] \[95\] is not a latitude/);
    refused({ circle: '39.9,116.4,2 parsecs' }, /^\[circle.radius\] \[2 parsecs\] must be a distance/);
    refused({ circle: '39.9,116.4,0km' }, /must be more than 0/);
    refused({ circle: '39.9,116.4' }, /must look like lat,lon,radius/);
    refused({ circle: { lat: 39.9, lon: 200, radius: '1km' } }, /^\[circle\] \[200\] is not a longitude/);
    refused({ polygon: Array.from({ length: 1002 }, (_, i) => [0, i / 10] as [number, number]) }, /at most 1000/);
  });
});
