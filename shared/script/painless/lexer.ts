/**
 * Tokens of the Painless subset (see parser.ts for the grammar). A scanner
 * over the source, one pass, no regular expression applied to the script
 * text (no backtracking on hostile input).
 */
import { scriptCompileError } from '../../errors/es-errors.ts';

export type TokenKind = 'num' | 'id' | 'str' | 'op' | 'eof';

export interface Token {
  readonly t: TokenKind;
  readonly v: string;
  readonly pos: number;
  /** Numbers: parsed value and whether it is integral (an int or long literal). */
  readonly num?: number;
  readonly int?: boolean;
}

/** Operators, longest first within each starting character's candidates. */
const OPERATORS = [
  '>>>=', '<<=', '>>=', '>>>', '===', '!==', '...',
  '&&', '||', '==', '!=', '<=', '>=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '++', '--', '->', '?.', '?:', '::', '<<', '>>', '=~',
  '+', '-', '*', '/', '%', '!', '~', '&', '|', '^', '<', '>', '=', '(', ')', '{', '}', '[', ']', '.', ',', ';', '?', ':',
];

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
const isIdPart = (c: number) => isIdStart(c) || isDigit(c);
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;

function readNumber(src: string, start: number): { end: number; value: number; int: boolean } {
  let i = start;
  if (src.charCodeAt(i) === 48 && (src[i + 1] === 'x' || src[i + 1] === 'X')) {
    i += 2;
    const from = i;
    while (i < src.length && /[0-9a-fA-F]/.test(src[i]!)) i++;
    const value = parseInt(src.slice(from, i), 16);
    if (src[i] === 'l' || src[i] === 'L') i++;
    return { end: i, value, int: true };
  }
  let int = true;
  while (i < src.length && isDigit(src.charCodeAt(i))) i++;
  if (src[i] === '.' && isDigit(src.charCodeAt(i + 1))) {
    int = false;
    i++;
    while (i < src.length && isDigit(src.charCodeAt(i))) i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    let j = i + 1;
    if (src[j] === '+' || src[j] === '-') j++;
    if (isDigit(src.charCodeAt(j))) {
      int = false;
      i = j;
      while (i < src.length && isDigit(src.charCodeAt(i))) i++;
    }
  }
  const value = Number(src.slice(start, i));
  const suffix = src[i];
  if (suffix === 'l' || suffix === 'L') i++;
  else if (suffix === 'd' || suffix === 'D' || suffix === 'f' || suffix === 'F') {
    i++;
    int = false;
  }
  return { end: i, value, int };
}

function readString(src: string, start: number): { end: number; value: string } {
  const quote = src[start]!;
  let out = '';
  let i = start + 1;
  while (i < src.length) {
    const c = src[i]!;
    if (c === quote) return { end: i + 1, value: out };
    if (c === '\\') {
      const n = src[i + 1];
      switch (n) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case '\\':
        case '"':
        case "'":
          out += n;
          break;
        case 'u': {
          const hex = src.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw scriptCompileError(src, i, `invalid unicode escape [\\u${hex}]`);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
          continue;
        }
        default:
          throw scriptCompileError(src, i, `invalid escape sequence [\\${n ?? ''}]`);
      }
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  throw scriptCompileError(src, start, 'unterminated string');
}

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 47 && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === 47 && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw scriptCompileError(src, i, 'unterminated comment');
      i = end + 2;
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) {
      const n = readNumber(src, i);
      out.push({ t: 'num', v: src.slice(i, n.end), pos: i, num: n.value, int: n.int });
      i = n.end;
      continue;
    }
    if (isIdStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdPart(src.charCodeAt(j))) j++;
      out.push({ t: 'id', v: src.slice(i, j), pos: i });
      i = j;
      continue;
    }
    if (c === 34 || c === 39) {
      const s = readString(src, i);
      out.push({ t: 'str', v: s.value, pos: i });
      i = s.end;
      continue;
    }
    let op: string | undefined;
    for (const o of OPERATORS) {
      if (src.startsWith(o, i)) {
        op = o;
        break;
      }
    }
    if (op === undefined) throw scriptCompileError(src, i, `unexpected character [${src[i]}]`);
    out.push({ t: 'op', v: op, pos: i });
    i += op.length;
  }
  out.push({ t: 'eof', v: '<EOF>', pos: src.length });
  return out;
}
