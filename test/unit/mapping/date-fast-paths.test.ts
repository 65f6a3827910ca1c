/**
 * The fast date parsers must agree with the general Joda engine on every
 * input: same instant, or the same error. Inputs are built from fragments
 * around the shapes the fast paths recognise (and the ones they must refuse).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError } from '../../../shared/errors/es-errors.ts';
import { dateFormatter } from '../../../shared/engine/mapping/date-format.ts';
import { parseMillis } from '../../../shared/engine/mapping/date-parser.ts';
import { alternatives, type Steps } from '../../../shared/engine/mapping/date-steps.ts';
import { namedFormat } from '../../../shared/engine/mapping/iso-date-formats.ts';
import { compileJodaPattern } from '../../../shared/engine/mapping/joda-pattern.ts';
import { resolveTimeZone, UTC, type TimeZone } from '../../../shared/engine/mapping/time-zone.ts';

function outcome(fn: () => number): string {
  try {
    return String(fn());
  } catch (e) {
    assert.ok(isEsError(e));
    return `${e.type}: ${e.reason}`;
  }
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function compare(pattern: string, generic: Steps, inputs: readonly string[], zones: readonly TimeZone[]): void {
  const fast = dateFormatter(pattern);
  for (const zone of zones) {
    for (const text of inputs) {
      const a = outcome(() => fast.parseText(text, zone));
      const b = outcome(() => parseMillis(generic, text, zone));
      assert.equal(a, b, `${pattern} on ${JSON.stringify(text)} in ${zone.id}`);
    }
  }
}

const ZONES = [UTC, resolveTimeZone('+08:00'), resolveTimeZone('America/New_York')];

function isoInputs(): string[] {
  const r = rng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const years = ['2015', '1970', '0001', '9999', '201', '20150', '-2015', '+2015'];
  const months = ['', '-01', '-12', '-13', '-00', '-1', '-02'];
  const days = ['', '-01', '-29', '-30', '-31', '-00', '-1', '-32'];
  const times = ['', 'T', 't', ' ', 'T12', 'T12:10', 'T12:10:30', 'T23:59:59', 'T24:00', 'T12:60', 'T12:10:61', 'T1', 'T12:1', 'T12.5', 'T12:10.5'];
  const fractions = ['', '.1', '.123', '.123456789', '.1234567891', ',5', '.', '.x'];
  const offsets = ['', 'Z', 'z', '+08:00', '-05:30', '+0800', '+08', '+24:00', '+08:60', '+8', 'X', '+08:00:30'];
  const out = ['', '2015', '1420070400001', '14200704000011111111', '123', '-1000', '1.5', 'abc', '2020-02-29', '2019-02-29', '2020-03-08T02:30:00'];
  for (let i = 0; i < 3000; i++) {
    const time = pick(times);
    const frac = time.length >= 9 ? pick(fractions) : '';
    out.push(pick(years) + pick(months) + pick(days) + time + frac + (time.length > 1 ? pick(offsets) : ''));
  }
  return out;
}

describe('fast date parsers agree with the general engine', () => {
  const inputs = isoInputs();

  it('strict_date_optional_time', () => {
    compare('strict_date_optional_time', namedFormat('strict_date_optional_time')?.parser as Steps, inputs, ZONES);
  });

  it('strict_date_optional_time||epoch_millis and ||epoch_second', () => {
    const sdot = namedFormat('strict_date_optional_time')?.parser as Steps;
    for (const epochName of ['epoch_millis', 'epoch_second']) {
      const generic = [alternatives(sdot, namedFormat(epochName)?.parser as Steps)];
      compare(`strict_date_optional_time||${epochName}`, generic, inputs, ZONES);
    }
  });

  it('fixed-shape patterns (yyyy-MM-dd HH:mm:ss and friends)', () => {
    const r = rng(11);
    const chars = '0123456789-: /T.';
    const inputs2 = ['2020-01-01 08:00:00', '2020-1-1 8:0:0', '2020-02-30 00:00:00', '20200101', '31/12/2019', '2020-01-01 08:00:00.123456'];
    for (let i = 0; i < 3000; i++) {
      let s = '';
      const n = 4 + Math.floor(r() * 20);
      for (let j = 0; j < n; j++) s += chars[Math.floor(r() * chars.length)];
      inputs2.push(s, `2020-${s.slice(0, 5)}`);
    }
    for (const pattern of ['yyyy-MM-dd HH:mm:ss', 'yyyyMMdd', 'dd/MM/yyyy', "yyyy-MM-dd'T'HH:mm:ss.SSS", 'yyyy-MM-dd HH:mm:ss.SSS']) {
      compare(pattern, compileJodaPattern(pattern), inputs2, ZONES);
    }
  });
});
