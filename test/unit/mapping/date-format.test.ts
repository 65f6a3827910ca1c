/**
 * Date formats as Elasticsearch 6.8 (Joda) parses and prints them. Expected
 * instants come from Date.UTC; error texts are Joda's/Elasticsearch's own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError, type EsError } from '../../../shared/errors/es-errors.ts';
import { DEFAULT_DATE_FORMAT, dateFormatter } from '../../../shared/engine/mapping/date-format.ts';

function parse(format: string, value: string | number, tz?: string): number {
  return dateFormatter(format).parse(value, tz);
}

function failure(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    assert.ok(isEsError(e), `expected an EsError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

describe('Joda patterns', () => {
  it('yyyy-MM-dd HH:mm:ss parses as UTC by default', () => {
    assert.equal(parse('yyyy-MM-dd HH:mm:ss', '2020-01-01 08:00:00'), Date.UTC(2020, 0, 1, 8, 0, 0));
  });

  it('numbers may have fewer digits than the pattern (Joda reads 1..2 digits for MM)', () => {
    assert.equal(parse('yyyy-MM-dd HH:mm:ss', '2020-1-2 3:04:05'), Date.UTC(2020, 0, 2, 3, 4, 5));
  });

  it('common patterns: dd/MM/yyyy, yyyy/MM/dd, yyyyMMdd, quoted literals and millis with offset', () => {
    assert.equal(parse('dd/MM/yyyy', '31/12/2019'), Date.UTC(2019, 11, 31));
    assert.equal(parse('yyyy/MM/dd', '2019/12/31'), Date.UTC(2019, 11, 31));
    assert.equal(parse('yyyyMMdd', '20200102'), Date.UTC(2020, 0, 2));
    assert.equal(parse("yyyy-MM-dd'T'HH:mm:ss.SSSZ", '2019-12-31T23:59:59.999+0800'), Date.UTC(2019, 11, 31, 15, 59, 59, 999));
    assert.equal(parse("yyyy-MM-dd'T'HH:mm:ss.SSSZ", '2019-12-31T23:59:59.5Z'), Date.UTC(2019, 11, 31, 23, 59, 59, 500));
  });

  it('12-hour clock with AM/PM and month names', () => {
    assert.equal(parse('MMM dd, yyyy hh:mm a', 'Jan 05, 2019 01:30 PM'), Date.UTC(2019, 0, 5, 13, 30));
    assert.equal(parse('MMM dd, yyyy hh:mm a', 'JAN 05, 2019 12:15 am'), Date.UTC(2019, 0, 5, 0, 15));
    assert.equal(parse('dd MMMM yyyy', '07 March 2021'), Date.UTC(2021, 2, 7));
  });

  it('a value with the wrong shape is refused with Joda\'s position', () => {
    const e = failure(() => parse('yyyy-MM-dd HH:mm:ss', '2020/02/01 00:00:00'));
    assert.equal(e.type, 'illegal_argument_exception');
    assert.equal(e.reason, 'Invalid format: "2020/02/01 00:00:00" is malformed at "/02/01 00:00:00"');
    assert.equal(failure(() => parse('yyyy-MM-dd HH:mm:ss', '2020-02-01')).reason, 'Invalid format: "2020-02-01" is too short');
    assert.equal(failure(() => parse('yyyy-MM-dd HH:mm:ss', 'abc')).reason, 'Invalid format: "abc"');
  });

  it('field values out of range name the Joda field', () => {
    assert.equal(
      failure(() => parse('yyyy-MM-dd HH:mm:ss', '2020-13-01 00:00:00')).reason,
      'Cannot parse "2020-13-01 00:00:00": Value 13 for monthOfYear must be in the range [1,12]',
    );
    assert.equal(
      failure(() => parse('yyyy-MM-dd HH:mm:ss', '2019-02-29 00:00:00')).reason,
      'Cannot parse "2019-02-29 00:00:00": Value 29 for dayOfMonth must be in the range [1,28]',
    );
    assert.equal(
      failure(() => parse('yyyy-MM-dd HH:mm:ss', '2020-01-01 24:00:00')).reason,
      'Cannot parse "2020-01-01 24:00:00": Value 24 for hourOfDay must be in the range [0,23]',
    );
  });

  it('an unknown pattern letter is refused when the format is compiled', () => {
    const e = failure(() => dateFormatter('yyyy-MM-dd qq'));
    assert.equal(e.type, 'illegal_argument_exception');
    assert.equal(e.reason, 'Invalid format: [yyyy-MM-dd qq]: Illegal pattern component: qq');
  });

  it('long inputs are cut in the message as Joda does', () => {
    const long = '2020-01-01 00:00:00' + 'x'.repeat(60);
    const e = failure(() => parse('yyyy-MM-dd HH:mm:ss', long));
    assert.equal(e.reason, `Invalid format: "${long.slice(0, 19 + 32)}..." is malformed at "${'x'.repeat(32)}..."`);
  });
});

describe('named formats', () => {
  it('the default strict_date_optional_time||epoch_millis takes dates, date-times and epoch millis', () => {
    assert.equal(parse(DEFAULT_DATE_FORMAT, '2015-01-01'), Date.UTC(2015, 0, 1));
    assert.equal(parse(DEFAULT_DATE_FORMAT, '2015-01-01T12:10:30Z'), Date.UTC(2015, 0, 1, 12, 10, 30));
    assert.equal(parse(DEFAULT_DATE_FORMAT, '2015-01-01T12:10:30.123+08:00'), Date.UTC(2015, 0, 1, 4, 10, 30, 123));
    assert.equal(parse(DEFAULT_DATE_FORMAT, '2015-01-01T12:10'), Date.UTC(2015, 0, 1, 12, 10));
    assert.equal(parse(DEFAULT_DATE_FORMAT, '1420070400001'), 1420070400001);
  });

  it('a space instead of T is the classic error', () => {
    const e = failure(() => parse(DEFAULT_DATE_FORMAT, '2020-01-01 12:00:00'));
    assert.equal(e.reason, 'Invalid format: "2020-01-01 12:00:00" is malformed at " 12:00:00"');
  });

  it('strict_ formats need full widths, the lenient ones do not', () => {
    assert.equal(failure(() => parse('strict_date_optional_time', '2015-1-1')).reason, 'Invalid format: "2015-1-1" is malformed at "-1-1"');
    assert.equal(parse('date_optional_time', '2015-1-1'), Date.UTC(2015, 0, 1));
    assert.equal(parse('strict_date', '2015-01-02'), Date.UTC(2015, 0, 2));
    assert.equal(parse('date', '2015-1-2'), Date.UTC(2015, 0, 2));
  });

  it('date_time, date_time_no_millis, basic formats, date_hour_minute_second, year_month_day, year', () => {
    assert.equal(parse('date_time', '2015-01-01T12:10:30.500Z'), Date.UTC(2015, 0, 1, 12, 10, 30, 500));
    assert.equal(parse('strict_date_time', '2015-01-01T12:10:30.500+01:00'), Date.UTC(2015, 0, 1, 11, 10, 30, 500));
    assert.equal(parse('date_time_no_millis', '2015-01-01T12:10:30Z'), Date.UTC(2015, 0, 1, 12, 10, 30));
    assert.equal(parse('basic_date', '20150102'), Date.UTC(2015, 0, 2));
    assert.equal(parse('basic_date_time', '20150102T030405.678Z'), Date.UTC(2015, 0, 2, 3, 4, 5, 678));
    assert.equal(parse('basic_date_time_no_millis', '20150102T030405+0100'), Date.UTC(2015, 0, 2, 2, 4, 5));
    assert.equal(parse('date_hour_minute_second', '2015-01-02T03:04:05'), Date.UTC(2015, 0, 2, 3, 4, 5));
    assert.equal(parse('year_month_day', '2015-01-02'), Date.UTC(2015, 0, 2));
    assert.equal(parse('year', '2015'), Date.UTC(2015, 0, 1));
    assert.equal(parse('ordinal_date', '2020-060'), Date.UTC(2020, 1, 29));
    assert.equal(parse('week_date', '2020-W01-1'), Date.UTC(2019, 11, 30));
  });

  it('camelCase names are accepted', () => {
    assert.equal(parse('dateOptionalTime', '2015-01-01'), Date.UTC(2015, 0, 1));
    assert.equal(parse('strictDateOptionalTime', '2015-01-01'), Date.UTC(2015, 0, 1));
  });

  it('epoch_second truncates fractions before scaling', () => {
    assert.equal(parse('epoch_second', '1577836800.9'), 1577836800000);
    assert.equal(parse('epoch_millis', '-1000'), -1000);
  });

  it('|| alternatives: the first that parses the whole text wins', () => {
    const p = 'yyyy-MM-dd HH:mm:ss||yyyy-MM-dd||epoch_millis';
    assert.equal(parse(p, '2020-01-01 08:00:00'), Date.UTC(2020, 0, 1, 8));
    assert.equal(parse(p, '2020-01-01'), Date.UTC(2020, 0, 1));
    assert.equal(parse(p, '1577836800000'), 1577836800000);
    assert.equal(failure(() => parse(p, '2020-01-01T08')).reason, 'Invalid format: "2020-01-01T08" is malformed at "T08"');
  });

  it('numbers given to parse() are epoch millis', () => {
    assert.equal(parse('yyyy-MM-dd', 1577836800000), 1577836800000);
  });
});

describe('time zones', () => {
  it('time_zone applies to values without an offset: fixed offsets and region ids', () => {
    const expected = Date.UTC(2020, 0, 1, 0, 0, 0);
    assert.equal(parse('yyyy-MM-dd HH:mm:ss', '2020-01-01 08:00:00', '+08:00'), expected);
    assert.equal(parse('yyyy-MM-dd HH:mm:ss', '2020-01-01 08:00:00', 'Asia/Shanghai'), expected);
    assert.equal(parse('yyyy-MM-dd HH:mm:ss', '2020-01-01 08:00:00', 'UTC'), Date.UTC(2020, 0, 1, 8));
  });

  it('an explicit offset in the value wins over time_zone', () => {
    assert.equal(parse(DEFAULT_DATE_FORMAT, '2015-01-01T00:00:00Z', 'Asia/Shanghai'), Date.UTC(2015, 0, 1));
  });

  it('daylight saving: a local time in the gap is refused, one in the overlap takes the earlier instant', () => {
    const e = failure(() => parse('yyyy-MM-dd HH:mm:ss', '2020-03-08 02:30:00', 'America/New_York'));
    assert.equal(e.reason, 'Cannot parse "2020-03-08 02:30:00": Illegal instant due to time zone offset transition (America/New_York)');
    assert.equal(parse('yyyy-MM-dd HH:mm:ss', '2020-11-01 01:30:00', 'America/New_York'), Date.UTC(2020, 10, 1, 5, 30));
    assert.equal(parse('yyyy-MM-dd HH:mm:ss', '2020-07-01 12:00:00', 'America/New_York'), Date.UTC(2020, 6, 1, 16));
  });

  it('epoch formats refuse a non-UTC time zone', () => {
    assert.equal(failure(() => parse(DEFAULT_DATE_FORMAT, '1577836800000', '+08:00')).reason, 'time_zone must be UTC for format [epoch_millis]');
  });

  it('unknown zone ids are refused with Joda\'s message', () => {
    assert.equal(failure(() => parse('yyyy', '2020', 'Mars/Olympus')).reason, "The datetime zone id 'Mars/Olympus' is not recognised");
  });
});

describe('printing', () => {
  it('the first alternative prints (key_as_string)', () => {
    assert.equal(dateFormatter(DEFAULT_DATE_FORMAT).format(1420070400001), '2015-01-01T00:00:00.001Z');
    assert.equal(dateFormatter(DEFAULT_DATE_FORMAT).format(1420070400001, '+08:00'), '2015-01-01T08:00:00.001+08:00');
    assert.equal(dateFormatter('yyyy-MM-dd HH:mm:ss').format(Date.UTC(2020, 0, 1), 'Asia/Shanghai'), '2020-01-01 08:00:00');
    assert.equal(dateFormatter('epoch_millis').format(5), '5');
    assert.equal(dateFormatter('epoch_second').format(1999), '1');
  });

  it('fractions keep their minimum digits, offsets print per letter count', () => {
    const t = Date.UTC(2020, 0, 1, 0, 0, 0, 120);
    assert.equal(dateFormatter("yyyy-MM-dd'T'HH:mm:ss.SSSZ").format(t), '2020-01-01T00:00:00.120+0000');
    assert.equal(dateFormatter("HH:mm:ss.SZZ").format(t, 'Asia/Shanghai'), '08:00:00.12+08:00');
    assert.equal(dateFormatter('EEE MMM dd yyyy hh a ZZZ').format(t, 'Asia/Shanghai'), 'Wed Jan 01 2020 08 AM Asia/Shanghai');
  });
});

describe('speed', () => {
  it('yyyy-MM-dd HH:mm:ss parses 1,000,000 values in well under a second', () => {
    const f = dateFormatter('yyyy-MM-dd HH:mm:ss');
    const values = Array.from({ length: 1000 }, (_, i) => `2020-01-${String(1 + (i % 28)).padStart(2, '0')} ${String(i % 24).padStart(2, '0')}:30:00`);
    let sum = 0;
    const cpu = process.cpuUsage();
    for (let r = 0; r < 1000; r++) for (let i = 0; i < 1000; i++) sum += f.parse(values[i]);
    const ms = process.cpuUsage(cpu).user / 1000;
    assert.ok(sum > 0);
    assert.ok(ms < 1000, `took ${ms} ms of CPU`);
  });
});
