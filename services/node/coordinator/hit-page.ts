/**
 * Reading a page of rendered hits (`hits.hits` of a search or scroll
 * response) back on the coordinator, for requests that act on the hits they
 * search (`_update_by_query`, `_delete_by_query`, `_reindex`): the metadata
 * of each hit, and its `_source` as the exact bytes that were indexed, so a
 * reindexed document keeps every digit of its numbers and its key order.
 */
import { RawJson } from './raw-json.ts';

export interface PageHit {
  readonly _index: string;
  readonly _type: string;
  readonly _id: string;
  readonly _version?: number;
  readonly _routing?: string;
  /** The `_source` bytes, when the page has them. */
  source: Buffer | null;
}

/** The text of a RawJson page, its pooled bytes given back. */
function pageBytes(hits: unknown): Buffer {
  if (hits instanceof RawJson) {
    const t = hits.text;
    const bytes = typeof t === 'string' ? Buffer.from(t, 'utf8') : Buffer.from(t);
    hits.release?.();
    return bytes;
  }
  return Buffer.from(JSON.stringify(hits ?? []), 'utf8');
}

/**
 * The [start, end) byte range of the `_source` value of each hit of a page
 * (`[{...},{...}]`), or null for a hit without one: a scan that tracks
 * strings and nesting, nothing parsed.
 */
export function sourceSpans(page: Buffer): ([number, number] | null)[] {
  const out: ([number, number] | null)[] = [];
  let depth = 0;
  let i = 0;
  const n = page.length;
  let current: [number, number] | null = null;
  const KEY = Buffer.from('"_source"');
  while (i < n) {
    const c = page[i]!;
    if (c === 0x22 /* " */) {
      // A key of a hit object (depth 2): is it `_source`?
      if (depth === 2 && page[i - 1] !== 0x3a && page.compare(KEY, 0, KEY.length, i, i + KEY.length) === 0 && page[i + KEY.length] === 0x3a) {
        const start = i + KEY.length + 1;
        const end = valueEnd(page, start);
        current = [start, end];
        i = end;
        continue;
      }
      i = stringEnd(page, i);
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth === 2 && c === 0x7b) current = null;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 2 && c === 0x7d) out.push(current);
      depth--;
    }
    i++;
  }
  return out;
}

/** The index just past the string starting at `i` (a `"`). */
function stringEnd(b: Buffer, i: number): number {
  let k = i + 1;
  while (k < b.length) {
    const c = b[k]!;
    if (c === 0x5c) k += 2;
    else if (c === 0x22) return k + 1;
    else k++;
  }
  return k;
}

/** The index just past the JSON value starting at `i`. */
function valueEnd(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c === 0x22) return stringEnd(b, i);
  if (c !== 0x7b && c !== 0x5b) {
    let k = i;
    while (k < b.length && b[k] !== 0x2c && b[k] !== 0x7d && b[k] !== 0x5d) k++;
    return k;
  }
  let depth = 0;
  let k = i;
  while (k < b.length) {
    const d = b[k]!;
    if (d === 0x22) {
      k = stringEnd(b, k);
      continue;
    }
    if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      depth--;
      if (depth === 0) return k + 1;
    }
    k++;
  }
  return k;
}

/** The hits of a page; `withSource` keeps each hit's `_source` bytes. */
export function readHitPage(hits: unknown, withSource: boolean): PageHit[] {
  const bytes = pageBytes(hits);
  const parsed = JSON.parse(bytes.toString('utf8')) as PageHit[];
  if (withSource) {
    const spans = sourceSpans(bytes);
    parsed.forEach((h, i) => {
      const span = spans[i];
      h.source = span ? Buffer.from(bytes.subarray(span[0], span[1])) : null;
    });
  } else {
    for (const h of parsed) h.source = null;
  }
  return parsed;
}
