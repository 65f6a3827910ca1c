/**
 * Top-N collection with a binary heap over preallocated slots (no object per
 * collected doc): keys per sort field in typed arrays, the worst entry at the
 * root. Ties are broken by doc id ascending (shard doc order), as Lucene's
 * TopFieldCollector does.
 *
 * Slot layout: 0..cap-1 hold heap entries, `cap` stages a candidate, `cap+1`
 * holds the "after" cursor (scroll, search_after).
 */
import type { ResolvedSortField } from './sort-keys.ts';

export class TopDocsCollector {
  readonly cap: number;
  readonly fields: readonly ResolvedSortField[];
  private readonly numKeys: Float64Array[];
  private readonly strKeys: (string | null)[][];
  private readonly reverse: Int8Array;
  private readonly isString: Uint8Array;
  private readonly missingFirst: Uint8Array;
  /** One key, a number. */
  private readonly oneNumber: boolean;
  /** Doc per slot as a double (the search_after cursor's doc is +Infinity: equal keys count as before it). */
  readonly docs: Float64Array;
  readonly scores: Float32Array;
  private readonly heap: Int32Array;
  size = 0;
  hasAfter = false;
  /** Candidates appended by gather(), not yet in the heap. */
  private gatherKeys: Float64Array = EMPTY;
  private gatherDocs: Float64Array = EMPTY;
  private scratch: GatherScratch | null = null;
  private gathered = 0;
  /** gather(): a candidate whose key sorts strictly after this one cannot make the top (infinite until the first cut). */
  gatherBound: number;

  constructor(fields: readonly ResolvedSortField[], cap: number) {
    this.cap = cap;
    this.fields = fields;
    const slots = cap + 2;
    this.numKeys = fields.map(() => new Float64Array(slots));
    this.strKeys = fields.map((fl) => (fl.kind === 'string' || fl.kind === 'id' ? new Array<string | null>(slots).fill(null) : []));
    this.reverse = Int8Array.from(fields, (fl) => (fl.reverse ? -1 : 1));
    this.isString = Uint8Array.from(fields, (fl) => (fl.kind === 'string' || fl.kind === 'id' ? 1 : 0));
    this.oneNumber = fields.length === 1 && this.isString[0] === 0;
    this.missingFirst = Uint8Array.from(fields, (fl) => ((fl.kind === 'string' || fl.kind === 'id') && fl.missingFirst ? 1 : 0));
    this.docs = new Float64Array(slots);
    this.scores = new Float32Array(slots);
    this.heap = new Int32Array(cap);
    this.gatherBound = fields[0]?.reverse === true ? -Infinity : Infinity;
  }

  get stage(): number {
    return this.cap;
  }

  get afterSlot(): number {
    return this.cap + 1;
  }

  setNum(slot: number, field: number, v: number): void {
    this.numKeys[field]![slot] = v;
  }

  setStr(slot: number, field: number, v: string | null): void {
    this.strKeys[field]![slot] = v;
  }

  num(slot: number, field: number): number {
    return this.numKeys[field]![slot]!;
  }

  str(slot: number, field: number): string | null {
    return this.strKeys[field]![slot]!;
  }

  isFull(): boolean {
    return this.size >= this.cap;
  }

  /** Key `field` of the entry that currently sorts last (the heap root); only when not empty. */
  worstNum(field: number): number {
    return this.numKeys[field]![this.heap[0]!]!;
  }

  /** < 0 when slot a sorts before slot b. */
  compare(a: number, b: number): number {
    if (this.oneNumber) {
      // One numeric key (a sort by time): the heap's comparisons without the loop over kinds of keys.
      const keys = this.numKeys[0]!;
      const x = keys[a]!;
      const y = keys[b]!;
      if (x !== y) return x < y ? -this.reverse[0]! : this.reverse[0]!;
      const da = this.docs[a]!;
      const db = this.docs[b]!;
      return da < db ? -1 : da > db ? 1 : 0;
    }
    const n = this.fields.length;
    for (let i = 0; i < n; i++) {
      if (this.isString[i] === 1) {
        const keys = this.strKeys[i]!;
        const x = keys[a]!;
        const y = keys[b]!;
        if (x === y) continue;
        // Missing strings sort last (or first) whatever the order.
        if (x === null) return this.missingFirst[i] === 1 ? -1 : 1;
        if (y === null) return this.missingFirst[i] === 1 ? 1 : -1;
        return (x < y ? -1 : 1) * this.reverse[i]!;
      }
      const keys = this.numKeys[i]!;
      const x = keys[a]!;
      const y = keys[b]!;
      if (x !== y) return (x < y ? -1 : 1) * this.reverse[i]!;
    }
    const da = this.docs[a]!;
    const db = this.docs[b]!;
    return da < db ? -1 : da > db ? 1 : 0;
  }

  /** Offers the staged candidate: kept when it sorts after the cursor and before the current worst. */
  offerStaged(): void {
    const stage = this.cap;
    if (this.hasAfter && this.compare(stage, this.cap + 1) <= 0) return;
    if (this.cap === 0) return;
    if (this.size < this.cap) {
      const slot = this.size;
      this.copySlot(stage, slot);
      this.heap[this.size++] = slot;
      this.siftUp(this.size - 1);
      return;
    }
    const root = this.heap[0]!;
    if (this.compare(stage, root) >= 0) return;
    this.copySlot(stage, root);
    this.siftDown(0);
  }

  private copySlot(from: number, to: number): void {
    for (let i = 0; i < this.fields.length; i++) {
      if (this.isString[i] === 1) this.strKeys[i]![to] = this.strKeys[i]![from]!;
      else this.numKeys[i]![to] = this.numKeys[i]![from]!;
    }
    this.docs[to] = this.docs[from]!;
    this.scores[to] = this.scores[from]!;
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    const slot = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (this.compare(slot, heap[parent]!) <= 0) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = slot;
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = this.size;
    const slot = heap[i]!;
    while (true) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.compare(heap[child + 1]!, heap[child]!) > 0) child++;
      if (this.compare(heap[child]!, slot) <= 0) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = slot;
  }

  /**
   * Appends a candidate by one numeric key without ordering it (a shard's top
   * 1,000 of a sort by time: a heap of 1,000 costs several comparisons per
   * candidate, one order at the end fewer): only while no cursor is set and
   * the sort has one numeric key. Returns true when the candidates were cut
   * to the best `cap` and `gatherBound` moved.
   */
  gather(key: number, doc: number): boolean {
    if (this.scratch === null) {
      this.scratch = takeGatherScratch(2 * this.cap);
      this.gatherKeys = this.scratch.keys[0]!;
      this.gatherDocs = this.scratch.docs[0]!;
    }
    const g = this.gathered++;
    this.gatherKeys[g] = key;
    this.gatherDocs[g] = doc;
    if (this.gathered < 2 * this.cap) return false;
    // Full: the best `cap` stay, and a candidate sorting strictly after the last of them cannot enter.
    const order = orderByNumber(this.gathered, this.gatherKeys, this.gatherDocs, this.reverse[0] === -1);
    const other = this.gatherKeys === this.scratch.keys[0] ? 1 : 0;
    const keys = this.scratch.keys[other]!;
    const docs = this.scratch.docs[other]!;
    for (let i = 0; i < this.cap; i++) {
      keys[i] = this.gatherKeys[order[i]!]!;
      docs[i] = this.gatherDocs[order[i]!]!;
    }
    this.gatherKeys = keys;
    this.gatherDocs = docs;
    this.gathered = this.cap;
    this.gatherBound = keys[this.cap - 1]!;
    return true;
  }

  /** Gives back the gathering arrays (after sortedSlots, or when the query phase failed). */
  release(): void {
    if (this.scratch !== null) releaseGatherScratch(this.scratch);
    this.scratch = null;
    this.gatherKeys = EMPTY;
    this.gatherDocs = EMPTY;
    this.gathered = 0;
  }

  /** Slots in sort order. */
  sortedSlots(): number[] {
    if (this.gathered > 0) {
      if (this.size === 0) return this.takeGathered();
      // Some segments went through the heap: the gathered candidates join it.
      for (let i = 0; i < this.gathered; i++) {
        this.numKeys[0]![this.cap] = this.gatherKeys[i]!;
        this.docs[this.cap] = this.gatherDocs[i]!;
        this.scores[this.cap] = 0;
        this.offerStaged();
      }
      this.release();
    }
    const n = this.size;
    const slots = new Array<number>(n);
    for (let i = 0; i < n; i++) slots[i] = this.heap[i]!;
    if (this.oneNumber) {
      const order = orderByNumber(n, this.numKeys[0]!, this.docs, this.reverse[0] === -1, slots);
      for (let i = 0; i < n; i++) slots[i] = order[i]!;
      return slots;
    }
    slots.sort((a, b) => this.compare(a, b));
    return slots;
  }

  /** The gathered candidates, ordered, as the heap's slots 0.. (their scores 0, as collectByNumericKey offers them). */
  private takeGathered(): number[] {
    const order = orderByNumber(this.gathered, this.gatherKeys, this.gatherDocs, this.reverse[0] === -1);
    const n = Math.min(this.cap, this.gathered);
    const slots = new Array<number>(n);
    const keys = this.numKeys[0]!;
    for (let i = 0; i < n; i++) {
      keys[i] = this.gatherKeys[order[i]!]!;
      this.docs[i] = this.gatherDocs[order[i]!]!;
      this.scores[i] = 0;
      this.heap[i] = i;
      slots[i] = i;
    }
    this.size = n;
    this.release();
    return slots;
  }
}

const EMPTY = new Float64Array(0);

/** Two pairs of arrays for gathering (the candidates, and where a cut copies the best of them). */
interface GatherScratch {
  readonly keys: Float64Array[];
  readonly docs: Float64Array[];
  busy: boolean;
}

/**
 * The thread's gathering arrays, reused from one query phase to the next:
 * fresh ones each time (32 KB a shard for a page of 1,000) grew the shard
 * workers' malloc arenas by tens of MiB between collections.
 */
let gatherScratch: GatherScratch = { keys: [EMPTY, EMPTY], docs: [EMPTY, EMPTY], busy: false };

function takeGatherScratch(n: number): GatherScratch {
  // In use (a query phase inside another): arrays of its own.
  const s = gatherScratch.busy ? { keys: [EMPTY, EMPTY], docs: [EMPTY, EMPTY], busy: false } : gatherScratch;
  if (s.keys[0]!.length < n) {
    for (let i = 0; i < 2; i++) {
      s.keys[i] = new Float64Array(n);
      s.docs[i] = new Float64Array(n);
    }
  }
  s.busy = true;
  return s;
}

function releaseGatherScratch(s: GatherScratch): void {
  s.busy = false;
  // The largest ever gathered stays allocated; a page of 10,000 is 640 KB.
  if (s !== gatherScratch && s.keys[0]!.length > gatherScratch.keys[0]!.length && !gatherScratch.busy) gatherScratch = s;
}

/** packedOrder's result, reused: callers read it before the next call. */
let packedScratch: Float64Array = EMPTY;

/**
 * Entries `ids` (default 0..n-1) in order of `keys` (descending when
 * `reverse`), equal keys by `docs` ascending, as TopDocsCollector.compare
 * orders one numeric key.
 */
function orderByNumber(n: number, keys: Float64Array, docs: Float64Array, reverse: boolean, ids?: readonly number[]): ArrayLike<number> {
  if (n > 32) {
    const packed = packedOrder(n, keys, docs, reverse, ids);
    if (packed !== null) return packed;
  }
  const order = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = ids === undefined ? i : ids[i]!;
  const r = reverse ? -1 : 1;
  // A comparator reading the two typed arrays directly (a shard's top 1,000 in about 110 µs instead of 155 with the general one).
  order.sort((a, b) => {
    const x = keys[a]!;
    const y = keys[b]!;
    if (x !== y) return x < y ? -r : r;
    return docs[a]! < docs[b]! ? -1 : docs[a]! > docs[b]! ? 1 : 0;
  });
  return order;
}

/**
 * orderByNumber when every key is an integer (times, longs): each entry as
 * one double, its key's rank times a power of two above the entry numbers
 * plus its entry number, sorted by the engine's native numeric sort (a
 * shard's top 1,000 of the trajectory in about a third of the comparator's
 * time); equal keys are then ordered by doc. Null when a key is not an
 * integer or the ranks need more than 53 bits.
 */
function packedOrder(n: number, keys: Float64Array, docs: Float64Array, reverse: boolean, ids?: readonly number[]): Float64Array | null {
  let min = Infinity;
  let max = -Infinity;
  let top = n - 1;
  for (let i = 0; i < n; i++) {
    const id = ids === undefined ? i : ids[i]!;
    const k = keys[id]!;
    if (!Number.isInteger(k)) return null;
    if (k < min) min = k;
    if (k > max) max = k;
    if (id > top) top = id;
  }
  let m = 1;
  while (m <= top) m *= 2;
  if ((max - min + 1) * m > Number.MAX_SAFE_INTEGER) return null;
  if (packedScratch.length < n) packedScratch = new Float64Array(Math.max(n, 2 * packedScratch.length));
  const packed = packedScratch.subarray(0, n);
  for (let i = 0; i < n; i++) {
    const id = ids === undefined ? i : ids[i]!;
    const k = keys[id]!;
    packed[i] = (reverse ? max - k : k - min) * m + id;
  }
  packed.sort();
  let runStart = 0;
  let runRank = -1;
  for (let i = 0; i < n; i++) {
    const p = packed[i]!;
    // Exact: m is a power of two and p below 2^53.
    const rank = Math.floor(p / m);
    const id = p - rank * m;
    packed[i] = id;
    if (rank !== runRank) {
      runRank = rank;
      runStart = i;
      continue;
    }
    // Equal keys: by doc (an insertion into the run so far).
    let j = i;
    while (j > runStart && docs[packed[j - 1]!]! > docs[id]!) {
      packed[j] = packed[j - 1]!;
      j--;
    }
    packed[j] = id;
  }
  return packed;
}
