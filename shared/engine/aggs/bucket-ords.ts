/**
 * Dense ids for bucket keys, as Elasticsearch's LongHash / BucketOrds: open
 * addressing over typed arrays, ids handed out in first-seen order, no object
 * per key.
 */

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

function mixBits(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Numbers (doubles, -0 folded into 0) → dense ids. */
export class NumberIds {
  private keys: Float64Array;
  private slots: Int32Array;
  private mask: number;
  private count = 0;

  constructor(expected = 16) {
    let cap = 16;
    while (cap < expected * 2) cap <<= 1;
    this.slots = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
    this.keys = new Float64Array(Math.max(8, expected));
  }

  get size(): number {
    return this.count;
  }

  /** The key of id `id`. */
  key(id: number): number {
    return this.keys[id]!;
  }

  /** Id of `value`, adding it when new. */
  add(value: number): number {
    const v = value === 0 ? 0 : value;
    F64[0] = v;
    let slot = mixBits(U32[0]!, U32[1]!) & this.mask;
    const slots = this.slots;
    const keys = this.keys;
    while (true) {
      const id = slots[slot]!;
      if (id < 0) break;
      if (keys[id] === v) return id;
      slot = (slot + 1) & this.mask;
    }
    const id = this.count++;
    if (id >= this.keys.length) {
      const grown = new Float64Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    this.keys[id] = v;
    slots[slot] = id;
    if (this.count * 2 > slots.length) this.rehash();
    return id;
  }

  /** Id of `value`, or -1. */
  find(value: number): number {
    const v = value === 0 ? 0 : value;
    F64[0] = v;
    let slot = mixBits(U32[0]!, U32[1]!) & this.mask;
    while (true) {
      const id = this.slots[slot]!;
      if (id < 0) return -1;
      if (this.keys[id] === v) return id;
      slot = (slot + 1) & this.mask;
    }
  }

  private rehash(): void {
    const cap = this.slots.length * 2;
    const slots = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    for (let id = 0; id < this.count; id++) {
      F64[0] = this.keys[id]!;
      let slot = mixBits(U32[0]!, U32[1]!) & mask;
      while (slots[slot]! >= 0) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/**
 * (owning bucket, key id) → dense bucket id: how a bucket aggregation below
 * another bucket aggregation numbers its buckets.
 */
export class PairIds {
  private owners: Int32Array;
  private keyIds: Int32Array;
  private slots: Int32Array;
  private mask: number;
  private count = 0;

  constructor() {
    this.slots = new Int32Array(64).fill(-1);
    this.mask = 63;
    this.owners = new Int32Array(32);
    this.keyIds = new Int32Array(32);
  }

  get size(): number {
    return this.count;
  }

  owner(id: number): number {
    return this.owners[id]!;
  }

  keyId(id: number): number {
    return this.keyIds[id]!;
  }

  add(owner: number, keyId: number): number {
    let slot = mixBits(owner, keyId) & this.mask;
    const slots = this.slots;
    while (true) {
      const id = slots[slot]!;
      if (id < 0) break;
      if (this.owners[id] === owner && this.keyIds[id] === keyId) return id;
      slot = (slot + 1) & this.mask;
    }
    const id = this.count++;
    if (id >= this.owners.length) {
      const o = new Int32Array(this.owners.length * 2);
      o.set(this.owners);
      this.owners = o;
      const k = new Int32Array(this.keyIds.length * 2);
      k.set(this.keyIds);
      this.keyIds = k;
    }
    this.owners[id] = owner;
    this.keyIds[id] = keyId;
    slots[slot] = id;
    if (this.count * 2 > slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const cap = this.slots.length * 2;
    const slots = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = mixBits(this.owners[id]!, this.keyIds[id]!) & mask;
      while (slots[slot]! >= 0) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** Most cells of the owner × key rows kept in front of the pair hash (all rows together). */
const MAX_DENSE_CELLS = 1 << 22;
/** Past this many cells, rows holding fewer than one pair per SPARSE_RATIO cells are dropped for the hash. */
const SPARSE_CHECK_CELLS = 1 << 16;
const SPARSE_RATIO = 8;

/**
 * Buckets of a multi-bucket aggregation: maps (owner, key id) to a bucket id.
 * Under a single owner (top level, or below single-bucket aggregations only)
 * the bucket id is the key id itself and no hashing happens.
 */
export class BucketOrds {
  private readonly pairs: PairIds | null;
  private maxKeyId = -1;
  private grouped: { starts: Int32Array; buckets: Int32Array } | null = null;
  /**
   * Below another bucket aggregation, a dense row of bucket ids per owner in
   * front of the hash while they stay small (most nested aggregations:
   * checkpoints × days). A row of its own per owner, so that a wider key
   * copies that owner's row only: one owner × key table grown whole copied
   * up to 16 MB in one piece under terms × terms (issue 11).
   */
  private rows: (Int32Array | undefined)[] = [];
  private cells = 0;
  private denseOff = false;

  constructor(readonly singleOwner: boolean) {
    this.pairs = singleOwner ? null : new PairIds();
  }

  add(owner: number, keyId: number): number {
    if (this.pairs === null) {
      if (keyId > this.maxKeyId) this.maxKeyId = keyId;
      return keyId;
    }
    const row = owner < this.rows.length ? this.rows[owner] : undefined;
    if (row !== undefined && keyId < row.length) {
      const b = row[keyId]!;
      if (b >= 0) return b;
      const id = this.pairs.add(owner, keyId);
      row[keyId] = id;
      return id;
    }
    const id = this.pairs.add(owner, keyId);
    if (!this.denseOff) this.growRow(owner, keyId, id, row);
    return id;
  }

  private growRow(owner: number, keyId: number, id: number, row: Int32Array | undefined): void {
    let width = Math.max(row === undefined ? 0 : row.length * 2, 16);
    while (width <= keyId) width *= 2;
    // A slot of the row list counts as a cell: owners far apart must not make it long either.
    this.cells += width - (row === undefined ? 0 : row.length) + Math.max(0, owner + 1 - this.rows.length);
    // Rows mostly empty (keys spread wide under each owner, as terms × terms on a field of 100,000 values):
    // the hash alone, before the rows cost more to allocate and fill than the pairs they hold.
    if (this.cells > MAX_DENSE_CELLS || (this.cells > SPARSE_CHECK_CELLS && this.cells > SPARSE_RATIO * this.pairs!.size)) {
      this.denseOff = true;
      this.rows = [];
      this.cells = 0;
      return;
    }
    const grown = new Int32Array(width).fill(-1);
    if (row !== undefined) grown.set(row);
    grown[keyId] = id;
    while (this.rows.length <= owner) this.rows.push(undefined);
    this.rows[owner] = grown;
  }

  /** Upper bound (exclusive) of bucket ids handed out so far. */
  get bucketCount(): number {
    return this.pairs === null ? this.maxKeyId + 1 : this.pairs.size;
  }

  keyIdOf(bucket: number): number {
    return this.pairs === null ? bucket : this.pairs.keyId(bucket);
  }

  /** Bucket ids of one owner (call after collection ends). */
  bucketsOf(owner: number): Int32Array {
    if (this.pairs === null) {
      if (owner !== 0) return new Int32Array(0);
      const out = new Int32Array(this.maxKeyId + 1);
      for (let i = 0; i < out.length; i++) out[i] = i;
      return out;
    }
    const g = this.group();
    if (owner + 1 >= g.starts.length) return new Int32Array(0);
    return g.buckets.subarray(g.starts[owner]!, g.starts[owner + 1]!);
  }

  private group(): { starts: Int32Array; buckets: Int32Array } {
    if (this.grouped !== null) return this.grouped;
    const pairs = this.pairs!;
    const n = pairs.size;
    let maxOwner = -1;
    for (let i = 0; i < n; i++) if (pairs.owner(i) > maxOwner) maxOwner = pairs.owner(i);
    const starts = new Int32Array(maxOwner + 2);
    for (let i = 0; i < n; i++) starts[pairs.owner(i) + 1]!++;
    for (let o = 0; o <= maxOwner; o++) starts[o + 1]! += starts[o]!;
    const fill = starts.slice(0, maxOwner + 1);
    const buckets = new Int32Array(n);
    for (let i = 0; i < n; i++) buckets[fill[pairs.owner(i)]!++] = i;
    this.grouped = { starts, buckets };
    return this.grouped;
  }
}
