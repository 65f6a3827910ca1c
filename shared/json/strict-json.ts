/**
 * Request JSON read as Elasticsearch 6's Jackson reads it, where JSON.parse
 * is more lenient:
 *
 * - bytes that are not UTF-8 are an error (Node would turn them into U+FFFD
 *   and store a different document);
 * - a key twice in one object is an error (`Duplicate field 'a'`: Elasticsearch
 *   enables Jackson's STRICT_DUPLICATE_DETECTION), not "the last one wins";
 * - nesting deeper than 1,000 levels is an error (Jackson 2.15's
 *   StreamReadConstraints default, which Elasticsearch 8 has): every walker
 *   of request JSON here is recursive, and 100,000 nested arrays would
 *   otherwise end in "Maximum call stack size exceeded".
 *
 * The checks cost one pass over the text: keys are counted outside strings
 * and compared with the keys JSON.parse produced; only when they differ is
 * the text walked again to name the duplicate.
 */
import { isUtf8 } from 'node:buffer';
import { EsError } from '../errors/es-errors.ts';

/** Jackson's StreamReadConstraints.DEFAULT_MAX_DEPTH. */
export const MAX_NESTING_DEPTH = 1000;

/** Jackson's JsonParseException: a plain Java exception, so a document error's root cause stays mapper_parsing_exception. */
export function jsonParseException(reason: string): EsError {
  const e = new EsError('json_parse_exception', reason, 400);
  e.javaException = true;
  return e;
}

/** Line and column (1-based) of a character offset, as Jackson reports locations. */
function location(text: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line: ${line}, column: ${at - lineStart + 1}`;
}

/** The first byte that does not belong to a UTF-8 sequence, in Jackson's words. */
function invalidUtf8(buf: Buffer): string {
  for (let i = 0; i < buf.length; ) {
    const b = buf[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0) return `Invalid UTF-8 start byte 0x${b.toString(16).padStart(2, '0')}`;
    for (let k = 1; k < len; k++) {
      const c = buf[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return `Invalid UTF-8 middle byte 0x${(c ?? 0).toString(16).padStart(2, '0')}`;
    }
    if (!isUtf8(buf.subarray(i, i + len))) return `Invalid UTF-8 start byte 0x${b.toString(16).padStart(2, '0')}`;
    i += len;
  }
  return 'Invalid UTF-8';
}

interface Shape {
  /** Keys in the text (colons outside strings). */
  readonly keys: number;
  readonly maxDepth: number;
  /** Offset where the depth first went over the limit, or -1. */
  readonly tooDeepAt: number;
}

/** One pass over the text: keys and nesting outside strings. */
function shape(text: string): Shape {
  let keys = 0;
  let depth = 0;
  let maxDepth = 0;
  let tooDeepAt = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i = stringEnd(text, i);
      continue;
    }
    if (c === 0x3a /* : */) keys++;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) {
        maxDepth = depth;
        if (depth > MAX_NESTING_DEPTH && tooDeepAt < 0) tooDeepAt = i;
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return { keys, maxDepth, tooDeepAt };
}

/**
 * The offset of the quote that closes the string opened at `open` (the text's
 * length when none does): the next quote not escaped, found by indexOf
 * rather than a loop over every code unit of the string.
 */
function stringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    // Escaped when an odd number of backslashes precedes it (the opening quote stops the count).
    let b = quote - 1;
    while (text.charCodeAt(b) === 0x5c /* \ */) b--;
    if ((quote - 1 - b) % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** Keys of every object in a parsed value (iteratively: the value may be deep). */
function countKeys(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      n++;
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') stack.push(x);
    }
  }
  return n;
}

/** Names the first key that appears twice in one object (the text is valid JSON). */
function findDuplicate(text: string): { key: string; at: number } | null {
  const objects: Set<string>[] = [];
  const containers: number[] = []; // 1 object, 0 array
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (expectKey) {
        const key = JSON.parse(text.slice(start, i + 1)) as string;
        const seen = objects[objects.length - 1];
        if (seen.has(key)) return { key, at: i + 1 };
        seen.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b) {
      objects.push(new Set());
      containers.push(1);
      expectKey = true;
    } else if (c === 0x5b) {
      containers.push(0);
    } else if (c === 0x7d) {
      objects.pop();
      containers.pop();
    } else if (c === 0x5d) {
      containers.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = containers[containers.length - 1] === 1;
    }
  }
  return null;
}

/** The error for bytes that are not UTF-8, naming the first bad byte. */
export function invalidUtf8Exception(buf: Buffer): EsError {
  return jsonParseException(invalidUtf8(buf));
}

/** Jackson's error for nesting beyond MAX_NESTING_DEPTH. */
export function nestingTooDeep(): EsError {
  return jsonParseException(
    `Document nesting depth (${MAX_NESTING_DEPTH + 1}) exceeds the maximum allowed (${MAX_NESTING_DEPTH}, from \`StreamReadConstraints.getMaxNestingDepth()\`)`,
  );
}

/** Jackson's error for a key twice in one object (`at`: an offset in `text`). */
export function duplicateField(text: string, key: string, at: number): EsError {
  return jsonParseException(`Duplicate field '${key}'\n at [Source: (request body); ${location(text, at)}]`);
}

/** Refuses bytes that are not UTF-8 (a whole `_bulk` body is checked once, not line by line). */
export function assertUtf8(buf: Buffer): void {
  if (!isUtf8(buf)) throw jsonParseException(invalidUtf8(buf));
}

/** JSON.parse's message, as the reason of Elasticsearch's json_parse_exception. */
function syntaxError(err: unknown): EsError {
  return jsonParseException(err instanceof Error ? err.message : String(err));
}

/**
 * Parses request JSON with Jackson's strictness; throws a json_parse_exception.
 * Text that is already a string has been decoded (a query parameter).
 */
export function parseStrictJson(raw: Buffer | string): unknown {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else {
    if (!isUtf8(raw)) throw jsonParseException(invalidUtf8(raw));
    text = raw.toString('utf8');
  }
  const s = shape(text);
  if (s.tooDeepAt >= 0) throw nestingTooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw syntaxError(err);
  }
  if (s.keys !== countKeys(value)) {
    const dup = findDuplicate(text);
    if (dup !== null) throw duplicateField(text, dup.key, dup.at);
  }
  return value;
}
