/**
 * A large JSON text read in steps. JSON.parse cannot be interrupted: a 10 MB
 * document held the thread that serves HTTP for 200-450 ms in it, and a
 * shard worker indexing it as long (issue 11); a body may be 100 MB
 * (`http.max_content_length`). This iterative parser reads what
 * parseStrictJson reads (strict-json.ts) and refuses what it refuses: bytes
 * that are not UTF-8, a key twice in one object, nesting deeper than 1,000;
 * `__proto__` is an ordinary key. Strings with escapes and numbers are
 * decoded by JSON.parse, one token at a time, so values are exactly
 * JSON.parse's. It is a generator of steps: run it at once (runSteps) or
 * with turns of the event loop between steps (runStepsInTurns).
 */
import { isUtf8 } from 'node:buffer';
import { MAX_NESTING_DEPTH, duplicateField, invalidUtf8Exception, jsonParseException, nestingTooDeep } from './strict-json.ts';

/** Values read between two steps (a few hundred µs). */
const TOKENS_PER_STEP = 1024;

interface Frame {
  readonly container: Record<string, unknown> | unknown[];
  /** Keys seen in this object (null for an array). */
  readonly keys: Set<string> | null;
  /** The key whose value comes next. */
  key: string | null;
}

function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  // JSON.parse makes `__proto__` an own property; assignment would set the prototype.
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function unexpected(text: string, at: number, expecting: string): never {
  if (at >= text.length) throw jsonParseException(`Unexpected end-of-input: expected ${expecting}`);
  const c = text.codePointAt(at)!;
  throw jsonParseException(`Unexpected character ('${String.fromCodePoint(c)}' (code ${c})): expected ${expecting} at position ${at}`);
}

/**
 * A run of string characters that need no attention (not a quote, a
 * backslash or a control character): one native scan, not a loop per
 * character. It runs at most STRING_WINDOW characters at a time (to the
 * string's closing quote when that is nearer, else over a window of the
 * text), so a string of megabytes (an `_analyze` text) is read in steps like
 * any other value. A bounded quantifier (`{0,65536}`) would be 3 times
 * slower than `*`.
 */
// eslint-disable-next-line no-control-regex -- control characters are what JSON forbids unescaped in a string
const STRING_RUN = /[^"\\\x00-\x1f]*/y;

/** Characters of a string scanned in one step. */
const STRING_WINDOW = 1 << 16;

/** Escapes read between two steps when a string holds many. */
const ESCAPES_PER_STEP = 4096;

/** What scanString learnt of the string so far. */
interface StringScan {
  escaped: boolean;
  escapes: number;
  /** The next `"` at or after where the scan is (the text's length when there is none), or -1 before the first look. */
  quote: number;
}

/**
 * Scans a string token from `from` (after its opening quote): the index
 * after its closing quote, or, when a step is due (a window scanned without
 * reaching the quote, or ESCAPES_PER_STEP escapes), minus the index to go on
 * from.
 */
function scanString(text: string, from: number, scan: StringScan): number {
  let i = from;
  for (;;) {
    if (scan.quote < i) {
      const q = text.indexOf('"', i);
      scan.quote = q < 0 ? text.length : q;
    }
    const end = Math.min(scan.quote, i + STRING_WINDOW);
    if (end === scan.quote) {
      // The run stops at the quote at the latest.
      STRING_RUN.lastIndex = i;
      STRING_RUN.test(text);
      i = STRING_RUN.lastIndex;
    } else {
      const part = text.slice(i, end);
      STRING_RUN.lastIndex = 0;
      STRING_RUN.test(part);
      if (STRING_RUN.lastIndex === part.length) return -end;
      i += STRING_RUN.lastIndex;
    }
    if (i >= text.length) throw jsonParseException('Unexpected end-of-input in a string value');
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      scan.escaped = true;
      i += 2;
      if (++scan.escapes % ESCAPES_PER_STEP === 0) return -i;
    } else {
      throw jsonParseException(`Illegal unquoted character ((CTRL-CHAR, code ${c})): has to be escaped using backslash to be included in string value at position ${i}`);
    }
  }
}

/** scanString to the string's end, a step between its parts (a string too long for one). */
function* scanLongString(text: string, from: number, scan: StringScan): Generator<void, number> {
  let end = -from;
  while (end < 0) {
    yield;
    end = scanString(text, -end, scan);
  }
  return end;
}

/** The value of the string token from `at` (its opening quote) to `end` (after its closing one). */
function stringValue(text: string, at: number, end: number, escaped: boolean): string {
  if (!escaped) return text.slice(at + 1, end - 1);
  try {
    return JSON.parse(text.slice(at, end)) as string;
  } catch (err) {
    throw jsonParseException(`${(err as Error).message} (a string at position ${at})`);
  }
}

function isDigit(text: string, k: number): boolean {
  const c = text.charCodeAt(k);
  return c >= 0x30 && c <= 0x39;
}

/**
 * A number token as JSON's grammar has it. Its value is JSON.parse's: for
 * text that follows the grammar, Number() is the same conversion.
 */
function readNumber(text: string, at: number): { value: number; end: number } {
  let i = at;
  if (text.charCodeAt(i) === 0x2d) i++;
  if (text.charCodeAt(i) === 0x30) i++;
  else if (isDigit(text, i)) while (isDigit(text, i)) i++;
  else unexpected(text, i, 'a digit');
  if (text.charCodeAt(i) === 0x2e) {
    i++;
    if (!isDigit(text, i)) unexpected(text, i, 'a digit after the decimal point');
    while (isDigit(text, i)) i++;
  }
  if (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45) {
    i++;
    if (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d) i++;
    if (!isDigit(text, i)) unexpected(text, i, 'a digit in the exponent');
    while (isDigit(text, i)) i++;
  }
  return { value: Number(text.slice(at, i)), end: i };
}

/** Parses JSON bytes as parseStrictJson does, as a generator of steps of TOKENS_PER_STEP values (shared/steps/run-steps.ts). */
export function* strictJsonSteps(raw: Buffer): Generator<void, unknown> {
  if (!isUtf8(raw)) throw invalidUtf8Exception(raw);
  const text = raw.toString('utf8');
  const stack: Frame[] = [];
  let root: unknown;
  let haveRoot = false;
  let i = 0;
  let steps = 0;
  const scan: StringScan = { escaped: false, escapes: 0, quote: -1 };

  /** Puts a finished value where it belongs (the root when no container is open). */
  const place = (value: unknown, at: number): void => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      root = value;
      haveRoot = true;
      return;
    }
    if (top.keys === null) (top.container as unknown[]).push(value);
    else {
      const key = top.key!;
      if (top.keys.has(key)) throw duplicateField(text, key, at);
      top.keys.add(key);
      setKey(top.container as Record<string, unknown>, key, value);
      top.key = null;
    }
  };

  const skipWhitespace = () => {
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  };

  while (!haveRoot) {
    if (++steps % TOKENS_PER_STEP === 0) yield;
    skipWhitespace();
    const top = stack[stack.length - 1];
    // In an object: a key (or the end) comes first.
    if (top !== undefined && top.keys !== null && top.key === null) {
      const c = text.charCodeAt(i);
      if (c === 0x7d /* } */ && top.keys.size === 0) {
        i++;
        stack.pop();
        place(top.container, i);
        if (!haveRoot) i = afterValue(text, i, stack, place);
        continue;
      }
      if (c !== 0x22) unexpected(text, i, 'a field name in double quotes');
      const start = i;
      scan.escaped = false;
      scan.quote = -1;
      i = scanString(text, i + 1, scan);
      if (i < 0) i = yield* scanLongString(text, -i, scan);
      const key = stringValue(text, start, i, scan.escaped);
      skipWhitespace();
      if (text.charCodeAt(i) !== 0x3a /* : */) unexpected(text, i, "a colon (':') after a field name");
      i++;
      top.key = key;
      continue;
    }
    // An array's end right after its start.
    if (top !== undefined && top.keys === null && text.charCodeAt(i) === 0x5d && (top.container as unknown[]).length === 0) {
      i++;
      stack.pop();
      place(top.container, i);
      if (!haveRoot) i = afterValue(text, i, stack, place);
      continue;
    }
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= MAX_NESTING_DEPTH) throw nestingTooDeep();
      stack.push(c === 0x7b ? { container: {}, keys: new Set(), key: null } : { container: [], keys: null, key: null });
      i++;
      continue;
    }
    let value: unknown;
    const start = i;
    if (c === 0x22) {
      scan.escaped = false;
      scan.quote = -1;
      i = scanString(text, i + 1, scan);
      if (i < 0) i = yield* scanLongString(text, -i, scan);
      value = stringValue(text, start, i, scan.escaped);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const n = readNumber(text, i);
      value = n.value;
      i = n.end;
    } else if (text.startsWith('true', i)) {
      value = true;
      i += 4;
    } else if (text.startsWith('false', i)) {
      value = false;
      i += 5;
    } else if (text.startsWith('null', i)) {
      value = null;
      i += 4;
    } else {
      unexpected(text, i, 'a JSON value');
    }
    place(value, start);
    if (!haveRoot) i = afterValue(text, i, stack, place);
  }
  skipWhitespace();
  if (i < text.length) unexpected(text, i, 'the end of the body');
  return root;
}

/**
 * After a value inside a container: a comma (another member comes), or the
 * container's end, which closes it (and maybe its parents). Returns where
 * parsing goes on.
 */
function afterValue(text: string, at: number, stack: Frame[], place: (value: unknown, at: number) => void): number {
  let i = at;
  for (;;) {
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
    const top = stack[stack.length - 1];
    if (top === undefined) return i;
    const c = text.charCodeAt(i);
    if (c === 0x2c /* , */) return i + 1;
    const close = top.keys === null ? 0x5d : 0x7d;
    if (c !== close) unexpected(text, i, top.keys === null ? "a comma or ']'" : "a comma or '}'");
    i++;
    stack.pop();
    place(top.container, i);
    if (stack.length === 0) return i;
  }
}
