/**
 * HyperLogLog++ as Elasticsearch 6.8's `cardinality` aggregation runs it
 * (HyperLogLogPlusPlus): a sketch starts in linear-counting mode, a set of
 * 32-bit encodings of the 64-bit hashes at precision p' = 25, and turns into
 * 2^p one-byte registers once the set passes 3/4 of m/4 entries. Estimates
 * below the threshold are exact for all practical purposes.
 *
 * Deviation: for raw HyperLogLog estimates under 5m, Elasticsearch subtracts an
 * empirical bias read from the HLL++ paper's tables; those tables are not
 * reproduced here and Ertl's improved raw estimator (no tables) is used in
 * that range instead. Every other path is Elasticsearch's.
 */

/** Elasticsearch's defaults and limits (HyperLogLogPlusPlus). */
export const DEFAULT_PRECISION_THRESHOLD = 3000;
const MAX_LOAD_FACTOR = 0.75;
const MIN_PRECISION = 4;
const MAX_PRECISION = 18;
/** Precision of the linear-counting encoding. */
const P2 = 25;
/** Linear counting estimates above these (per precision 4..18) switch to the HLL estimate. */
const THRESHOLDS = [10, 20, 40, 80, 220, 400, 900, 1800, 3100, 6500, 11500, 20000, 50000, 120000, 350000];

function bitsRequired(v: number): number {
  return v <= 0 ? 1 : Math.floor(Math.log2(v)) + 1;
}

/** HyperLogLogPlusPlus.precisionFromThreshold. */
export function precisionFromThreshold(threshold: number): number {
  const hashTableEntries = Math.ceil(threshold / MAX_LOAD_FACTOR);
  let precision = bitsRequired(hashTableEntries * 4);
  precision = Math.max(precision, MIN_PRECISION);
  return Math.min(precision, MAX_PRECISION);
}

/** 2^-r for every register value. */
const INVERSE_POWERS = Float64Array.from({ length: 66 }, (_, r) => 2 ** -r);

function nlz64(hi: number, lo: number): number {
  return hi !== 0 ? Math.clz32(hi) : 32 + Math.clz32(lo);
}

/** The linear-counting encoding of a 64-bit hash (HLL++ paper, sparse representation). */
export function encodeHash(hi: number, lo: number, p: number): number {
  const e = hi >>> 7; // top 25 bits
  if ((e & ((1 << (P2 - p)) - 1)) === 0) {
    const shHi = ((hi << P2) | (lo >>> (32 - P2))) >>> 0;
    const shLo = (lo << P2) >>> 0;
    const runLen = 1 + Math.min(nlz64(shHi, shLo), 64 - P2);
    return ((e << 7) | (runLen << 1) | 1) | 0;
  }
  return (e << 1) | 0;
}

function decodeIndex(encoded: number, p: number): number {
  const index = (encoded & 1) === 1 ? encoded >>> 7 : encoded >>> 1;
  return index >>> (P2 - p);
}

function decodeRunLen(encoded: number, p: number): number {
  if ((encoded & 1) === 1) return ((encoded >>> 1) & 0x3f) + (P2 - p);
  const bits = encoded << (31 + p - P2);
  return 1 + Math.clz32(bits);
}

/** One sketch (one bucket's worth). */
export class HyperLogLog {
  readonly p: number;
  readonly m: number;
  /** Linear counting: open-addressing set of encoded hashes (0 = empty slot; encodings are never 0 → stored +1 shifted). */
  private set: Int32Array | null;
  private setSize = 0;
  private readonly threshold: number;
  registers: Uint8Array | null = null;

  constructor(p: number) {
    this.p = p;
    this.m = 1 << p;
    // Elasticsearch sizes the set at m/4 ints (the registers' bytes) and upgrades at 3/4 of it.
    this.threshold = Math.floor((this.m / 4) * MAX_LOAD_FACTOR);
    this.set = new Int32Array(16);
  }

  get isLinearCounting(): boolean {
    return this.registers === null;
  }

  /** Adds a 64-bit hash (hi:lo). */
  collect(hi: number, lo: number): void {
    if (this.registers === null) {
      this.addEncoded(encodeHash(hi, lo, this.p));
      return;
    }
    const index = hi >>> (32 - this.p);
    const shHi = ((hi << this.p) | (lo >>> (32 - this.p))) >>> 0;
    const shLo = (lo << this.p) >>> 0;
    const runLen = 1 + Math.min(nlz64(shHi, shLo), 64 - this.p);
    if (runLen > this.registers[index]!) this.registers[index] = runLen;
  }

  addEncoded(encoded: number): void {
    if (this.registers !== null) {
      this.collectEncodedHll(encoded);
      return;
    }
    const set = this.set!;
    const mask = set.length - 1;
    // Encodings can be 0 (hash with 25 zero top bits and a non-zero run): store encoded ^ MARK, never equal to EMPTY 0.
    const stored = encoded === 0 ? 0x7fffffff : encoded;
    let slot = Math.imul(stored, 0x9e3779b1) >>> 0 & mask;
    while (true) {
      const cur = set[slot]!;
      if (cur === 0) break;
      if (cur === stored) return;
      slot = (slot + 1) & mask;
    }
    set[slot] = stored;
    this.setSize++;
    if (this.setSize > this.threshold) {
      this.upgrade();
    } else if (this.setSize * 2 > set.length) {
      this.growSet();
    }
  }

  private collectEncodedHll(encoded: number): void {
    const idx = decodeIndex(encoded, this.p);
    const rl = decodeRunLen(encoded, this.p);
    if (rl > this.registers![idx]!) this.registers![idx] = rl;
  }

  private growSet(): void {
    const old = this.set!;
    const set = new Int32Array(old.length * 2);
    const mask = set.length - 1;
    for (const v of old) {
      if (v === 0) continue;
      let slot = Math.imul(v, 0x9e3779b1) >>> 0 & mask;
      while (set[slot] !== 0) slot = (slot + 1) & mask;
      set[slot] = v;
    }
    this.set = set;
  }

  private upgrade(): void {
    const values = this.encodedValues();
    this.registers = new Uint8Array(this.m);
    this.set = null;
    this.setSize = 0;
    for (const e of values) this.collectEncodedHll(e);
  }

  /** Encoded hashes (linear-counting mode). */
  encodedValues(): Int32Array {
    const set = this.set;
    if (set === null) return new Int32Array(0);
    const out = new Int32Array(this.setSize);
    let n = 0;
    for (const v of set) if (v !== 0) out[n++] = v === 0x7fffffff ? 0 : v;
    return out;
  }

  /** Merges another sketch of the same precision into this one. */
  merge(other: { encoded: Int32Array | null; registers: Uint8Array | null }): void {
    if (other.registers === null) {
      for (const e of other.encoded ?? []) this.addEncoded(e);
      return;
    }
    if (this.registers === null) this.upgrade();
    const regs = this.registers!;
    for (let i = 0; i < this.m; i++) if (other.registers[i]! > regs[i]!) regs[i] = other.registers[i]!;
  }

  cardinality(): number {
    if (this.registers === null) {
      const m = 2 ** P2;
      return linearCounting(m, m - this.setSize);
    }
    return this.cardinalityHll();
  }

  private cardinalityHll(): number {
    const regs = this.registers!;
    const m = this.m;
    let inverseSum = 0;
    let zeros = 0;
    for (let i = 0; i < m; i++) {
      const r = regs[i]!;
      inverseSum += INVERSE_POWERS[r]!;
      if (r === 0) zeros++;
    }
    const e1 = alphaMM(this.p) / inverseSum;
    const e2 = e1 <= 5 * m ? ertlEstimate(regs, this.p) : e1;
    const h = zeros !== 0 ? linearCounting(m, zeros) : Math.round(e2);
    return h <= THRESHOLDS[this.p - 4]! ? h : Math.round(e2);
  }
}

function linearCounting(m: number, v: number): number {
  return Math.round(m * Math.log(m / v));
}

function alphaMM(p: number): number {
  const m = 1 << p;
  let alpha: number;
  if (p === 4) alpha = 0.673;
  else if (p === 5) alpha = 0.697;
  else alpha = 0.7213 / (1 + 1.079 / m);
  return alpha * m * m;
}

/** Otmar Ertl, "New cardinality estimation algorithms for HyperLogLog sketches" (2017), improved raw estimator. */
function ertlEstimate(regs: Uint8Array, p: number): number {
  const m = 1 << p;
  const q = 64 - p;
  const c = new Float64Array(q + 2);
  for (let i = 0; i < m; i++) c[Math.min(regs[i]!, q + 1)]!++;
  let z = m * tau(1 - c[q + 1]! / m);
  for (let k = q; k >= 1; k--) z = 0.5 * (z + c[k]!);
  z += m * sigma(c[0]! / m);
  const alphaInf = 1 / (2 * Math.log(2));
  return (alphaInf * m * m) / z;
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  let zPrev: number;
  do {
    x *= x;
    zPrev = z;
    z += x * y;
    y += y;
  } while (z !== zPrev);
  return z;
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  let zPrev: number;
  do {
    x = Math.sqrt(x);
    zPrev = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
  } while (z !== zPrev);
  return z / 3;
}
