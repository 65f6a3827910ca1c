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

const record = generatePassRecords({ count: 1 }).next().value!;
const at = (land: string, s: number) => ({ land, t: s * 1000 });

describe('pass records', () => {
  test('a generated record is valid and survives the Avro codec', () => {
    const v = validatePassRecord(record);
    assert.equal(v.ok, true);
    assert.ok(v.ok);
    assert.deepEqual({ ...passRecordCodec.decode(passRecordCodec.encode(v.record)) }, v.record);
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
