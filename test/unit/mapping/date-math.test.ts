/**
 * Date math as range queries use it in Elasticsearch 6.8: `now`, anchors with
 * `||`, units y M w d h H m s, rounding down for gte/lt and up for gt/lte.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError, type EsError } from '../../../shared/errors/es-errors.ts';
import { DEFAULT_DATE_FORMAT, dateFormatter } from '../../../shared/engine/mapping/date-format.ts';
import { parseDateMath } from '../../../shared/engine/mapping/date-math.ts';

/** Friday 2020-05-15T10:30:45.123Z. */
const NOW = Date.UTC(2020, 4, 15, 10, 30, 45, 123);
const iso = dateFormatter(DEFAULT_DATE_FORMAT);

function dm(expr: string, roundUp = false, timeZone?: string, format = DEFAULT_DATE_FORMAT): number {
  return parseDateMath(expr, NOW, { roundUp, timeZone, formatter: dateFormatter(format) });
}

function failure(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    assert.ok(isEsError(e));
    return e;
  }
  assert.fail('expected an error');
}

describe('date math', () => {
  it('now, plus and minus every unit', () => {
    assert.equal(dm('now'), NOW);
    assert.equal(dm('now+1h'), NOW + 3_600_000);
    assert.equal(dm('now-1H'), NOW - 3_600_000);
    assert.equal(dm('now-90m'), NOW - 90 * 60_000);
    assert.equal(dm('now+30s'), NOW + 30_000);
    assert.equal(dm('now-1d'), Date.UTC(2020, 4, 14, 10, 30, 45, 123));
    assert.equal(dm('now-2w'), Date.UTC(2020, 4, 1, 10, 30, 45, 123));
    assert.equal(dm('now+1M'), Date.UTC(2020, 5, 15, 10, 30, 45, 123));
    assert.equal(dm('now-1y'), Date.UTC(2019, 4, 15, 10, 30, 45, 123));
    assert.equal(dm('now-1d+2h'), Date.UTC(2020, 4, 14, 12, 30, 45, 123));
  });

  it('rounding down (gte, lt) goes to the start of the unit', () => {
    assert.equal(dm('now/d'), Date.UTC(2020, 4, 15));
    assert.equal(dm('now-1d/d'), Date.UTC(2020, 4, 14));
    assert.equal(dm('now/M'), Date.UTC(2020, 4, 1));
    assert.equal(dm('now/y'), Date.UTC(2020, 0, 1));
    assert.equal(dm('now/w'), Date.UTC(2020, 4, 11)); // Monday
    assert.equal(dm('now/h'), Date.UTC(2020, 4, 15, 10));
  });

  it('rounding up (gt, lte) goes to the last millisecond of the unit', () => {
    assert.equal(dm('now/d', true), Date.UTC(2020, 4, 15, 23, 59, 59, 999));
    assert.equal(dm('now-1d/d', true), Date.UTC(2020, 4, 14, 23, 59, 59, 999));
    assert.equal(dm('now/M', true), Date.UTC(2020, 4, 31, 23, 59, 59, 999));
    assert.equal(dm('now/w', true), Date.UTC(2020, 4, 17, 23, 59, 59, 999));
    assert.equal(dm('now/y', true), Date.UTC(2020, 11, 31, 23, 59, 59, 999));
  });

  it('an anchor date with ||, month arithmetic clamps the day', () => {
    assert.equal(dm('2020-01-31||+1M/d'), Date.UTC(2020, 1, 29));
    assert.equal(dm('2020-01-01||+1M/d', true), Date.UTC(2020, 1, 1, 23, 59, 59, 999));
    assert.equal(iso.format(dm('2019-03-31||-1M')), '2019-02-28T00:00:00.000Z');
  });

  it('a date without math fills missing fields with 23:59:59.999 when rounding up', () => {
    assert.equal(dm('2020-01-01'), Date.UTC(2020, 0, 1));
    assert.equal(dm('2020-01-01', true), Date.UTC(2020, 0, 1, 23, 59, 59, 999));
    assert.equal(dm('2020-01-01T10:00', true), Date.UTC(2020, 0, 1, 10, 0, 59, 999));
    assert.equal(dm('2020-01-01 08:00:00', true, undefined, 'yyyy-MM-dd HH:mm:ss'), Date.UTC(2020, 0, 1, 8, 0, 0, 999));
  });

  it('time_zone: rounding and dates without offset happen in local time', () => {
    assert.equal(dm('now/d', false, '+08:00'), Date.UTC(2020, 4, 14, 16));
    assert.equal(dm('now/d', true, 'Asia/Shanghai'), Date.UTC(2020, 4, 15, 15, 59, 59, 999));
    assert.equal(dm('2020-01-01', false, 'Asia/Shanghai'), Date.UTC(2019, 11, 31, 16));
    assert.equal(dm('2020-01-01||/M', false, '-05:00'), Date.UTC(2020, 0, 1, 5));
  });

  it('calendar days keep the wall clock across daylight saving, hours are exact', () => {
    const before = parseDateMath('2020-03-07T12:00:00', 0, { roundUp: false, timeZone: 'America/New_York', formatter: iso });
    assert.equal(before, Date.UTC(2020, 2, 7, 17));
    const plusDay = parseDateMath('2020-03-07T12:00:00||+1d', 0, { roundUp: false, timeZone: 'America/New_York', formatter: iso });
    assert.equal(plusDay, Date.UTC(2020, 2, 8, 16));
    const plus24h = parseDateMath('2020-03-07T12:00:00||+24h', 0, { roundUp: false, timeZone: 'America/New_York', formatter: iso });
    assert.equal(plus24h, Date.UTC(2020, 2, 8, 17));
  });

  it('the format override decides how the date part parses', () => {
    assert.equal(dm('01/02/2020||+1d', false, undefined, 'dd/MM/yyyy'), Date.UTC(2020, 1, 2));
  });

  it('errors are parse_exceptions with Elasticsearch\'s texts', () => {
    assert.equal(failure(() => dm('now-1x')).reason, 'unit [x] not supported for date math [-1x]');
    assert.equal(failure(() => dm('now-')).reason, 'truncated date math [-]');
    assert.equal(failure(() => dm('now-1')).reason, 'truncated date math [-1]');
    assert.equal(failure(() => dm('now/2d')).reason, 'rounding `/` can only be used on single unit types [/2d]');
    assert.equal(failure(() => dm('now*1d')).reason, 'operator not supported for date math [*1d]');
    const e = failure(() => dm('2020-01-01 12:00'));
    assert.equal(e.type, 'parse_exception');
    assert.equal(e.reason, 'failed to parse date field [2020-01-01 12:00] with format [strict_date_optional_time||epoch_millis]');
    assert.equal(e.causedBy?.reason, 'Unrecognized chars at the end of [2020-01-01 12:00]: [ 12:00]');
    assert.equal(failure(() => dm('abc')).causedBy?.reason, 'Parse failure at index [0] of [abc]');
  });
});
