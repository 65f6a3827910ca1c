/**
 * The k-way merge of sorted term dictionaries: each distinct term once, in
 * order, with the dictionaries (and term ids) that hold it. Merges of
 * segments and global ordinals both read their sources this way, one term of
 * each source at a time, whatever stores the terms.
 */
import type { TermDictionary } from './types.ts';

/** A source dictionary's place in the k-way merge of terms. */
interface TermCursor {
  readonly part: number;
  readonly terms: TermDictionary;
  next: number;
  term: string;
}

/** Min-heap of term cursors by current term, then part (so equal terms come in source order). */
class TermHeap {
  private readonly items: TermCursor[] = [];

  get size(): number {
    return this.items.length;
  }

  top(): TermCursor {
    return this.items[0]!;
  }

  push(c: TermCursor): void {
    const items = this.items;
    items.push(c);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** The top moved on (`c`, the same cursor) or is done (null): restore order. */
  replaceTop(c: TermCursor | null): void {
    const items = this.items;
    if (c !== null) {
      items[0] = c;
    } else {
      const last = items.pop()!;
      if (items.length === 0) return;
      items[0] = last;
    }
    let i = 0;
    const n = items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && less(items[l]!, items[m]!)) m = l;
      if (r < n && less(items[r]!, items[m]!)) m = r;
      if (m === i) break;
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
  }
}

function less(a: TermCursor, b: TermCursor): boolean {
  return a.term < b.term || (a.term === b.term && a.part < b.part);
}

/**
 * Calls `visit(term, holders)` for each distinct term of the dictionaries in
 * ascending order, `holders` listing (part, termId) in part order.
 * `keep(part, termId)` filters terms out before they take part.
 */
export function mergeTerms(
  dicts: readonly (TermDictionary | null)[],
  keep: ((part: number, termId: number) => boolean) | null,
  visit: (term: string, holders: readonly { part: number; termId: number }[]) => void,
): void {
  const steps = mergeTermsInSteps(dicts, keep, visit);
  while (steps.next().done !== true);
}

/** Terms visited between two yields of mergeTermsInSteps. */
const TERMS_PER_STEP = 2048;

/**
 * mergeTerms, yielding after every TERMS_PER_STEP terms visited: a segment
 * written on a shard worker gives its thread turns in between (a commit's
 * write of a segment with 100,000 terms would hold it for ~100 ms).
 */
export function* mergeTermsInSteps(
  dicts: readonly (TermDictionary | null)[],
  keep: ((part: number, termId: number) => boolean) | null,
  visit: (term: string, holders: readonly { part: number; termId: number }[]) => void,
): Generator<void> {
  const present = dicts.filter((d) => d !== null && d.length > 0);
  // Holder records are reused from term to term: a merge visits millions.
  const pool: { part: number; termId: number }[] = [];
  const holders: { part: number; termId: number }[] = [];
  const hold = (part: number, termId: number) => {
    const h = pool[holders.length] ?? (pool[holders.length] = { part: 0, termId: 0 });
    h.part = part;
    h.termId = termId;
    holders.push(h);
  };
  if (present.length === 1) {
    // One source (a refresh writes the buffer's segment): its order is the merged order.
    const part = dicts.indexOf(present[0]!);
    const terms = present[0]!;
    for (let t = 0; t < terms.length; t++) {
      if (t % TERMS_PER_STEP === TERMS_PER_STEP - 1) yield;
      if (keep !== null && !keep(part, t)) continue;
      holders.length = 0;
      hold(part, t);
      visit(terms.get(t), holders);
    }
    return;
  }
  const heap = new TermHeap();
  const advance = (c: TermCursor): TermCursor | null => {
    while (c.next < c.terms.length) {
      const t = c.next++;
      if (keep === null || keep(c.part, t)) {
        c.term = c.terms.get(t);
        return c;
      }
    }
    return null;
  };
  dicts.forEach((terms, part) => {
    if (terms === null) return;
    const c = advance({ part, terms, next: 0, term: '' });
    if (c !== null) heap.push(c);
  });
  for (let visited = 1; heap.size > 0; visited++) {
    if (visited % TERMS_PER_STEP === 0) yield;
    const term = heap.top().term;
    holders.length = 0;
    while (heap.size > 0 && heap.top().term === term) {
      const c = heap.top();
      hold(c.part, c.next - 1);
      heap.replaceTop(advance(c));
    }
    visit(term, holders);
  }
}
