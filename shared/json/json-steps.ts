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
  readonly object: boolean;
  /**
   * Keys seen in the root object of a stream, whose container stays empty;
   * any other object's keys are its container's own (no Set per object: a
   * document of 90,000 objects made as many).
   */
  readonly keys: Set<string> | null;
  /** The key whose value comes next. */
  key: string | null;
  /** An array of the root object handed to a RootStream element by element (its container stays empty). */
  readonly streamed: boolean;
  /** Elements of a streamed array so far. */
  count: number;
}

/**
 * Takes a document's root object as it is read, instead of building it
 * (strictJsonSteps with a stream): each root field's value when it ends, and
 * the elements of the root arrays it `splits` one at a time, so that an
 * array of 90,000 objects is never held whole. The reader checks what it
 * checks without a stream (duplicate keys too) and throws its errors, but
 * after the stream has taken what came before.
 */
export interface RootStream {
  /** The value of root field `key` is an array: true to take its elements one by one (element, then end). */
  splits(key: string): boolean;
  /** A root field and its whole value (not a split array). */
  field(key: string, value: unknown): void;
  /** The next element of the split array of root field `key`. */
  element(key: string, value: unknown): void;
  /** The split array of `key` ended after `count` elements. */
  end(key: string, count: number): void;
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

/**
 * Parses JSON bytes as parseStrictJson does, as a generator of steps of
 * TOKENS_PER_STEP values (shared/steps/run-steps.ts). With a `stream`, the
 * root must be an object, whose fields go to the stream as they are read
 * (RootStream); the value returned is then an empty object.
 */
export function* strictJsonSteps(raw: Buffer, stream: RootStream | null = null): Generator<void, unknown> {
  if (!isUtf8(raw)) throw invalidUtf8Exception(raw);
  const text = raw.toString('utf8');
  const stack: Frame[] = [];
  let root: unknown;
  let haveRoot = false;
  let i = 0;
  let steps = 0;
  const scan: StringScan = { escaped: false, escapes: 0, quote: -1 };

  /** A streamed array just closed: placed in the root object as its end (not as a value). */
  let streamedEnded: Frame | null = null;
  /** Puts a finished value where it belongs (the root when no container is open). */
  const place = (value: unknown, at: number): void => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      root = value;
      haveRoot = true;
      return;
    }
    if (!top.object) {
      if (!top.streamed) (top.container as unknown[]).push(value);
      else stream!.element(stack[0]!.key!, value);
      top.count++;
    } else {
      const key = top.key!;
      if (top.keys === null ? Object.hasOwn(top.container, key) : top.keys.has(key)) throw duplicateField(text, key, at);
      top.keys?.add(key);
      top.count++;
      if (top.keys === null) setKey(top.container as Record<string, unknown>, key, value);
      else if (streamedEnded !== null) {
        stream!.end(key, streamedEnded.count);
        streamedEnded = null;
      } else stream!.field(key, value);
      top.key = null;
    }
  };

  const skipWhitespace = () => {
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  };

  const closeFrame = (frame: Frame): void => {
    if (frame.streamed) streamedEnded = frame;
  };
  while (!haveRoot) {
    if (++steps % TOKENS_PER_STEP === 0) yield;
    skipWhitespace();
    const top = stack[stack.length - 1];
    // In an object: a key (or the end) comes first.
    if (top !== undefined && top.object && top.key === null) {
      const c = text.charCodeAt(i);
      if (c === 0x7d /* } */ && top.count === 0) {
        i++;
        stack.pop();
        place(top.container, i);
        if (!haveRoot) i = afterValue(text, i, stack, place, closeFrame);
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
    if (top !== undefined && !top.object && text.charCodeAt(i) === 0x5d && top.count === 0) {
      i++;
      stack.pop();
      if (top.streamed) streamedEnded = top;
      place(top.container, i);
      if (!haveRoot) i = afterValue(text, i, stack, place, closeFrame);
      continue;
    }
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= MAX_NESTING_DEPTH) throw nestingTooDeep();
      if (stream !== null && top === undefined && c !== 0x7b) throw jsonParseException(`a document must be a JSON object, found '${String.fromCharCode(c)}' at position ${i}`);
      let streamed = false;
      if (c === 0x5b && stream !== null && stack.length === 1) {
        // Checked before the stream takes the elements: a second `items` must not add to the first one's.
        if (top!.keys!.has(top!.key!)) throw duplicateField(text, top!.key!, i);
        streamed = stream.splits(top!.key!);
      }
      const rootOfStream = stream !== null && top === undefined;
      stack.push(
        c === 0x7b
          ? { container: {}, object: true, keys: rootOfStream ? new Set() : null, key: null, streamed: false, count: 0 }
          : { container: [], object: false, keys: null, key: null, streamed, count: 0 },
      );
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
    if (stream !== null && top === undefined) throw jsonParseException(`a document must be a JSON object, found a ${typeof value} at position ${start}`);
    place(value, start);
    if (!haveRoot) i = afterValue(text, i, stack, place, closeFrame);
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
function afterValue(text: string, at: number, stack: Frame[], place: (value: unknown, at: number) => void, closing: (frame: Frame) => void): number {
  let i = at;
  for (;;) {
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
    const top = stack[stack.length - 1];
    if (top === undefined) return i;
    const c = text.charCodeAt(i);
    if (c === 0x2c /* , */) return i + 1;
    const close = top.object ? 0x7d : 0x5d;
    if (c !== close) unexpected(text, i, top.object ? "a comma or '}'" : "a comma or ']'");
    i++;
    stack.pop();
    closing(top);
    place(top.container, i);
    if (stack.length === 0) return i;
  }
}
