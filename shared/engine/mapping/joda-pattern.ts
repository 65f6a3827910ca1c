/**
 * Joda-Time pattern strings (`yyyy-MM-dd HH:mm:ss`, `dd/MM/yyyy`,
 * `yyyy-MM-dd'T'HH:mm:ss.SSSZ`, ...) compiled to date steps exactly as
 * Joda's `DateTimeFormat.forPattern` builds them. Note Joda's leniency that
 * Elasticsearch 6.8 inherits: `MM` parses one or two digits, `yyyy` up to nine
 * (four when a number follows directly), `SSS` up to nine fraction digits.
 */
import { javaCause, type EsError } from '../../errors/es-errors.ts';
import {
  F_CLOCKHOUR_OF_DAY,
  F_CLOCKHOUR_OF_HALFDAY,
  F_DAY,
  F_DAY_OF_WEEK,
  F_DAY_OF_YEAR,
  F_ERA,
  F_FRACTION_OF_SECOND,
  F_HALFDAY,
  F_HOUR,
  F_HOUR_OF_HALFDAY,
  F_MINUTE,
  F_MONTH,
  F_SECOND,
  F_WEEK,
  F_WEEKYEAR,
  F_YEAR,
  fraction,
  lit,
  num,
  offset,
  text,
  twoDigitYear,
  zoneId,
  type DateStep,
} from './date-steps.ts';

function isLetter(c: string): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/** Joda's DateTimeFormat.parseToken: a run of one letter, or literal text (quotes removed, prefixed with `'`). */
function parseToken(pattern: string, start: number): { token: string; end: number } {
  let i = start;
  const c = pattern[i];
  if (isLetter(c)) {
    let token = c;
    while (i + 1 < pattern.length && pattern[i + 1] === c) {
      token += c;
      i++;
    }
    return { token, end: i };
  }
  let token = "'";
  let inLiteral = false;
  for (; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "'") {
      if (i + 1 < pattern.length && pattern[i + 1] === "'") {
        i++;
        token += ch;
      } else {
        inLiteral = !inLiteral;
      }
    } else if (!inLiteral && isLetter(ch)) {
      i--;
      break;
    } else {
      token += ch;
    }
  }
  return { token, end: i };
}

/** Tokens that parse as numbers (Joda's isNumericToken): they limit a preceding year to its pattern width. */
function isNumericToken(token: string): boolean {
  if (token.length === 0) return false;
  const c = token[0];
  if ('cCxyYdhHmsSeDFwWkK'.includes(c)) return true;
  return c === 'M' && token.length <= 2;
}

/** appendDecimal(field, minDigits, maxDigits): maxDigits grows to minDigits. */
function decimal(field: number, minDigits: number, maxDigits: number): DateStep {
  return num(field, minDigits, Math.max(minDigits, maxDigits));
}

function patternError(pattern: string, why: string): EsError {
  return javaCause('illegal_argument_exception', `Invalid format: [${pattern}]: ${why}`);
}

/** Compiles a Joda pattern; throws Elasticsearch's "Invalid format: [p]: Illegal pattern component: q". */
export function compileJodaPattern(pattern: string, now: Date = new Date()): DateStep[] {
  const steps: DateStep[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const { token, end } = parseToken(pattern, i);
    i = end;
    const len = token.length;
    if (len === 0) break;
    const c = token[0];
    switch (c) {
      case 'G':
        steps.push(text(F_ERA, 'short'));
        break;
      case 'x':
      case 'y':
      case 'Y': {
        const field = c === 'x' ? F_WEEKYEAR : F_YEAR;
        let nextIsNumeric = false;
        if (end + 1 < pattern.length) nextIsNumeric = isNumericToken(parseToken(pattern, end + 1).token);
        if (len === 2) {
          // SimpleDateFormat-compatible pivot: thirty years before now.
          steps.push(twoDigitYear(field, now.getFullYear() - 30, !nextIsNumeric));
        } else {
          steps.push(num(field, len, nextIsNumeric ? len : 9, c !== 'Y'));
        }
        break;
      }
      case 'M':
        if (len >= 4) steps.push(text(F_MONTH, 'long'));
        else if (len === 3) steps.push(text(F_MONTH, 'short'));
        else steps.push(decimal(F_MONTH, len, 2));
        break;
      case 'd':
        steps.push(decimal(F_DAY, len, 2));
        break;
      case 'a':
        steps.push(text(F_HALFDAY, 'short'));
        break;
      case 'h':
        steps.push(decimal(F_CLOCKHOUR_OF_HALFDAY, len, 2));
        break;
      case 'H':
        steps.push(decimal(F_HOUR, len, 2));
        break;
      case 'k':
        steps.push(decimal(F_CLOCKHOUR_OF_DAY, len, 2));
        break;
      case 'K':
        steps.push(decimal(F_HOUR_OF_HALFDAY, len, 2));
        break;
      case 'm':
        steps.push(decimal(F_MINUTE, len, 2));
        break;
      case 's':
        steps.push(decimal(F_SECOND, len, 2));
        break;
      case 'S':
        steps.push(fraction(F_FRACTION_OF_SECOND, len, 9));
        break;
      case 'e':
        steps.push(decimal(F_DAY_OF_WEEK, len, 1));
        break;
      case 'E':
        steps.push(text(F_DAY_OF_WEEK, len >= 4 ? 'long' : 'short'));
        break;
      case 'D':
        steps.push(decimal(F_DAY_OF_YEAR, len, 3));
        break;
      case 'w':
        steps.push(decimal(F_WEEK, len, 2));
        break;
      case 'Z':
        if (len === 1) steps.push(offset(null, false, 2, 2, 'Z'));
        else if (len === 2) steps.push(offset(null, true, 2, 2, 'Z'));
        else steps.push(zoneId());
        break;
      case 'C':
      case 'z':
        throw patternError(pattern, `pattern component [${token}] (${c === 'C' ? 'century of era' : 'time zone name'}) is not supported`);
      case "'": {
        const literal = token.slice(1);
        if (literal.length > 0) steps.push(lit(literal));
        break;
      }
      default:
        throw patternError(pattern, `Illegal pattern component: ${token}`);
    }
  }
  return steps;
}
