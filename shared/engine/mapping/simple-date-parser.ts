/**
 * Fast path for the everyday date patterns (`yyyy-MM-dd HH:mm:ss`,
 * `dd/MM/yyyy`, `yyyyMMdd`, `yyyy-MM-dd'T'HH:mm:ss.SSS`): patterns made only
 * of numbers for year, month, day, hour, minute, second, a fraction of a
 * second and one-character literals. The steps are flattened into typed arrays
 * and parsed in one tight loop with no allocation.
 *
 * It accepts exactly what the general Joda engine (date-parser.ts) accepts;
 * on anything unusual it answers NaN and the caller re-parses with the general
 * engine, which produces Elasticsearch's exact error.
 */
import { MILLIS_PER_DAY, MILLIS_PER_HOUR, MILLIS_PER_MINUTE, MILLIS_PER_SECOND, daysFromCivil, daysInMonth } from './calendar.ts';
import {
  F_DAY,
  F_FRACTION_OF_SECOND,
  F_HOUR,
  F_MINUTE,
  F_MONTH,
  F_SECOND,
  F_YEAR,
  OP_FRACTION,
  OP_LITERAL,
  OP_NUMBER,
  type Steps,
} from './date-steps.ts';
import type { TimeZone } from './time-zone.ts';

const K_LITERAL = 0;
const K_NUMBER = 1;
const K_FRACTION = 2;

// Field codes local to this module (imported bindings are slower in hot loops under some loaders).
const Y = 0;
const MO = 1;
const D = 2;
const H = 3;
const MI = 4;
const S = 5;

const FIELD_CODE = new Map<number, number>([
  [F_YEAR, Y],
  [F_MONTH, MO],
  [F_DAY, D],
  [F_HOUR, H],
  [F_MINUTE, MI],
  [F_SECOND, S],
]);

const HOUR = MILLIS_PER_HOUR;
const MINUTE = MILLIS_PER_MINUTE;
const SECOND = MILLIS_PER_SECOND;
const DAY = MILLIS_PER_DAY;

export class SimpleDateParser {
  private constructor(
    private readonly kinds: Uint8Array,
    private readonly fields: Uint8Array,
    private readonly maxDigits: Uint8Array,
    private readonly fixedDigits: Uint8Array,
    private readonly signed: Uint8Array,
    private readonly chars: Int32Array,
  ) {}

  /** A fast parser for these steps, or null when they use anything beyond the simple elements. */
  static compile(steps: Steps): SimpleDateParser | null {
    const n = steps.length;
    const kinds = new Uint8Array(n);
    const fields = new Uint8Array(n);
    const maxDigits = new Uint8Array(n);
    const fixedDigits = new Uint8Array(n);
    const signed = new Uint8Array(n);
    const chars = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const s = steps[i];
      if (s.op === OP_LITERAL && s.text.length === 1) {
        kinds[i] = K_LITERAL;
        chars[i] = s.text.charCodeAt(0);
      } else if (s.op === OP_NUMBER && FIELD_CODE.has(s.field) && s.maxDigits <= 9) {
        kinds[i] = K_NUMBER;
        fields[i] = FIELD_CODE.get(s.field) as number;
        maxDigits[i] = s.maxDigits;
        fixedDigits[i] = s.fixed ? s.minDigits : 0;
        signed[i] = s.signed ? 1 : 0;
      } else if (s.op === OP_FRACTION && s.field === F_FRACTION_OF_SECOND && s.maxDigits <= 9) {
        kinds[i] = K_FRACTION;
        maxDigits[i] = s.maxDigits;
      } else {
        return null;
      }
    }
    return new SimpleDateParser(kinds, fields, maxDigits, fixedDigits, signed, chars);
  }

  /** Epoch millis, or NaN when the text does not parse cleanly (the caller then reports the error). */
  parse(text: string, zone: TimeZone): number {
    const kinds = this.kinds;
    const len = text.length;
    let pos = 0;
    let y = 1970;
    let mo = 1;
    let d = 1;
    let h = 0;
    let mi = 0;
    let s = 0;
    let ms = 0;
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[i];
      if (kind === K_LITERAL) {
        if (pos >= len) return NaN;
        const c = text.charCodeAt(pos);
        const want = this.chars[i];
        if (c !== want && (c | 32) !== (want | 32)) return NaN;
        pos++;
      } else if (kind === K_NUMBER) {
        let limit = this.maxDigits[i];
        if (limit > len - pos) limit = len - pos;
        let negative = false;
        let start = pos;
        if (this.signed[i] === 1 && pos < len) {
          const c = text.charCodeAt(pos);
          if (c === 45 || c === 43) {
            negative = c === 45;
            start = pos + 1;
            if (limit < len - pos) limit++;
          }
        }
        let value = 0;
        let end = start;
        while (end - pos < limit) {
          const c = text.charCodeAt(end) - 48;
          if (c < 0 || c > 9) break;
          value = value * 10 + c;
          end++;
        }
        const digits = end - start;
        if (digits === 0) return NaN;
        const fixed = this.fixedDigits[i];
        if (fixed !== 0 && digits !== fixed) return NaN;
        if (negative) value = -value;
        pos = end;
        switch (this.fields[i]) {
          case Y:
            y = value;
            break;
          case MO:
            mo = value;
            break;
          case D:
            d = value;
            break;
          case H:
            h = value;
            break;
          case MI:
            mi = value;
            break;
          default:
            s = value;
        }
      } else {
        let limit = this.maxDigits[i];
        if (limit > len - pos) limit = len - pos;
        let value = 0;
        let n = SECOND * 10;
        let length = 0;
        while (length < limit) {
          const c = text.charCodeAt(pos + length) - 48;
          if (c < 0 || c > 9) break;
          length++;
          n = Math.floor(n / 10);
          value += c * n;
        }
        if (length === 0) return NaN;
        ms = Math.floor(value / 10);
        pos += length;
      }
    }
    if (pos !== len) return NaN;
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return NaN;
    if (y < -292275054 || y > 292278993) return NaN;
    const local = daysFromCivil(y, mo, d) * DAY + h * HOUR + mi * MINUTE + s * SECOND + ms;
    if (zone.isUtc) return local;
    const utc = zone.localToUtc(local);
    return utc + zone.offsetAt(utc) === local ? utc : NaN;
  }
}
