/**
 * Fast path for the default date format (`strict_date_optional_time`, alone
 * or `||epoch_millis` / `||epoch_second`), which Joda parses through a dozen
 * nested alternatives. This recognises the canonical shapes in one pass:
 *
 *   2015-01-01   2015-01   2015   2015-01-01T12:10   2015-01-01T12:10:30
 *   2015-01-01T12:10:30.123456   (',' too)   ... followed by Z, +08, +0800, +08:00
 *   1420070400001  (epoch, when the format has it)
 *
 * For these the general engine reaches the same fields (the alternatives it
 * would try all stop earlier), so the result is identical. Anything else, and
 * every invalid value, answers NaN: the caller then runs the general engine,
 * which produces Elasticsearch's exact result or error.
 */
import { MILLIS_PER_DAY, MILLIS_PER_HOUR, MILLIS_PER_MINUTE, MILLIS_PER_SECOND, daysFromCivil, daysInMonth } from './calendar.ts';
import type { TimeZone } from './time-zone.ts';

const DAY = MILLIS_PER_DAY;
const HOUR = MILLIS_PER_HOUR;
const MINUTE = MILLIS_PER_MINUTE;
const SECOND = MILLIS_PER_SECOND;

/** Patterns this fast path serves, and the epoch alternative each has (0: none). */
const SERVED: ReadonlyMap<string, number> = new Map([
  ['strict_date_optional_time', 0],
  ['strictDateOptionalTime', 0],
  ['strict_date_optional_time||epoch_millis', 1],
  ['strict_date_optional_time||epoch_second', 1000],
]);

function digits2(text: string, pos: number): number {
  const a = text.charCodeAt(pos) - 48;
  const b = text.charCodeAt(pos + 1) - 48;
  if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
  return a * 10 + b;
}

export class IsoDateFastParser {
  private constructor(
    /** Epoch alternative: 1 for millis, 1000 for seconds, 0 for none. */
    private readonly epochFactor: number,
  ) {}

  static forPattern(pattern: string): IsoDateFastParser | null {
    const factor = SERVED.get(pattern.trim());
    return factor === undefined ? null : new IsoDateFastParser(factor);
  }

  /** Epoch millis, or NaN to let the general engine decide. */
  parse(text: string, zone: TimeZone): number {
    const len = text.length;
    if (len < 4) return this.epoch(text, zone);
    const century = digits2(text, 0);
    const yy = digits2(text, 2);
    if (century < 0 || yy < 0) return this.epoch(text, zone);
    const y = century * 100 + yy;
    let m = 1;
    let d = 1;
    let h = 0;
    let mi = 0;
    let s = 0;
    let ms = 0;
    let offset = 0;
    let hasOffset = false;
    let pos = 4;
    if (pos < len) {
      const c = text.charCodeAt(pos);
      if (c >= 48 && c <= 57) return this.epoch(text, zone);
      if (c !== 45) return NaN; // '-'
      m = digits2(text, pos + 1);
      if (m < 0) return NaN;
      pos += 3;
      if (pos < len && text.charCodeAt(pos) === 45) {
        d = digits2(text, pos + 1);
        if (d < 0) return NaN;
        pos += 3;
      }
    }
    if (pos < len) {
      if ((text.charCodeAt(pos) | 32) !== 116) return NaN; // 'T'
      pos++;
      if (pos < len) {
        h = digits2(text, pos);
        if (h < 0) return NaN;
        pos += 2;
        if (pos < len && text.charCodeAt(pos) === 58) {
          mi = digits2(text, pos + 1);
          if (mi < 0) return NaN;
          pos += 3;
          if (pos < len && text.charCodeAt(pos) === 58) {
            s = digits2(text, pos + 1);
            if (s < 0) return NaN;
            pos += 3;
            const p = pos < len ? text.charCodeAt(pos) : 0;
            if (p === 46 || p === 44) {
              // fraction of a second: up to 9 digits, truncated to millis
              pos++;
              let n = 0;
              let scale = 100;
              while (pos < len && n < 9) {
                const c = text.charCodeAt(pos) - 48;
                if (c < 0 || c > 9) break;
                if (n < 3) ms += c * scale;
                scale /= 10;
                n++;
                pos++;
              }
              if (n === 0) return NaN;
            }
          }
        } else if (pos < len && (text.charCodeAt(pos) === 46 || text.charCodeAt(pos) === 44)) {
          return NaN; // hour fraction: rare, the general engine handles it
        }
        if (pos < len) {
          const c = text.charCodeAt(pos);
          if ((c | 32) === 122) {
            hasOffset = true;
            pos++;
          } else if (c === 43 || c === 45) {
            const oh = digits2(text, pos + 1);
            if (oh < 0 || oh > 23) return NaN;
            pos += 3;
            let om = 0;
            if (pos < len) {
              if (text.charCodeAt(pos) === 58) pos++;
              om = digits2(text, pos);
              if (om < 0 || om > 59) return NaN;
              pos += 2;
            }
            offset = (oh * HOUR + om * MINUTE) * (c === 45 ? -1 : 1);
            hasOffset = true;
          }
        }
      }
    }
    if (pos !== len) return NaN;
    if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || h > 23 || mi > 59 || s > 59) return NaN;
    const local = daysFromCivil(y, m, d) * DAY + h * HOUR + mi * MINUTE + s * SECOND + ms;
    if (hasOffset) return local - offset;
    if (zone.isUtc) return local;
    const utc = zone.localToUtc(local);
    return utc + zone.offsetAt(utc) === local ? utc : NaN;
  }

  /** Plain unsigned digits are an epoch value when the format has one (the date alternative stops after four digits). */
  private epoch(text: string, zone: TimeZone): number {
    if (this.epochFactor === 0 || !zone.isUtc) return NaN;
    const len = text.length;
    if (len === 0 || len === 4 || len > (this.epochFactor === 1 ? 19 : 16)) return NaN;
    let v = 0;
    for (let i = 0; i < len; i++) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return NaN;
      v = v * 10 + c;
    }
    return v * this.epochFactor;
  }
}
