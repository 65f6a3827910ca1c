/**
 * HdrHistogram's DoubleHistogram as Elasticsearch 6.8's `hdr` percentiles
 * use it (HdrHistogram 2.1.9, auto-resizing, highest-to-lowest ratio 2), so
 * that percentiles and ranks come out to the same doubles.
 *
 * A DoubleHistogram records `(long)(value × ratio)` into an integer
 * histogram whose buckets are powers of two split into `2^h` sub-buckets
 * (h from the significant digits); the ratio is a power of two that the
 * histogram moves as values outside its covered range arrive (shifting its
 * counts, or resizing when a shift would lose counts). Scaling by a power of
 * two moves a value's integer bucket without changing which values share it,
 * so counts are kept here by a ratio-free bucket code (binary exponent and
 * sub-bucket of the value); the covered range and the ratio are still
 * followed step by step, because a percentile's value is its bucket's
 * highest integer value times the final ratio.
 */
import { EsError } from '../../errors/es-errors.ts';
import { javaDoubleToString } from './java-double.ts';

/** What one histogram ships to the coordinator (plain data). */
export interface HdrSnapshot {
  readonly digits: number;
  readonly configuredRatio: number;
  readonly lowest: number;
  readonly highest: number;
  /** The integer histogram tracks values below 2^trackOrder. */
  readonly trackOrder: number;
  readonly zeroCount: number;
  /** Bucket codes ascending, and their counts. */
  readonly codes: Float64Array;
  readonly counts: Float64Array;
}

/** AbstractHistogram.numberOfSubbuckets → log2 of the sub-bucket count. */
function subBucketCountMagnitude(digits: number): number {
  const largestValueWithSingleUnitResolution = 2 * 10 ** digits;
  return Math.ceil(Math.log(largestValueWithSingleUnitResolution) / Math.log(2));
}

/** 64 - Long.numberOfLeadingZeros(n): the bit length of a non-negative integer. */
function bitLength(n: number): number {
  return n <= 0 ? 0 : exponentOf(n) + 1;
}

/** The largest e with 2^e <= v (v > 0, finite). */
function exponentOf(v: number): number {
  let e = Math.floor(Math.log2(v));
  if (2 ** e > v) e--;
  else if (2 ** (e + 1) <= v) e++;
  return e;
}

/** v × 2^k without overflowing the intermediate power. */
function scale(v: number, k: number): number {
  if (k > 1000) return v * 2 ** 1000 * 2 ** (k - 1000);
  if (k < -1000) return v * 2 ** -1000 * 2 ** (k + 1000);
  return v * 2 ** k;
}

function outOfBounds(reason: string): EsError {
  return new EsError('array_index_out_of_bounds_exception', reason, 500);
}

/** The exponent offset that keeps bucket codes positive. */
const EXP_BIAS = 1100;

export class HdrHistogram {
  readonly digits: number;
  /** log2 of subBucketHalfCount. */
  private readonly h: number;
  private readonly half: number;
  private configuredRatio: number;
  private lowest: number;
  private highest: number;
  private trackOrder: number;
  private zeroCount = 0;
  private total = 0;
  private readonly counts = new Map<number, number>();
  private minCode = Infinity;
  private maxCode = -Infinity;

  /** `new DoubleHistogram(digits)`, or the copy constructor's shape (ratio and range of another, no counts). */
  constructor(digits: number, like?: HdrSnapshot) {
    this.digits = digits;
    this.h = subBucketCountMagnitude(digits) - 1;
    this.half = 2 ** this.h;
    this.configuredRatio = like?.configuredRatio ?? 2;
    // integerValueRange = subBucketHalfCount × internal ratio (1 << (bitLength(configured) + 1))
    this.trackOrder = this.h + bitLength(this.configuredRatio) + 1;
    const internalRatio = 2 ** (bitLength(this.configuredRatio) + 1);
    this.lowest = like?.lowest ?? 2 ** 800;
    this.highest = like?.highest ?? this.lowest * internalRatio;
  }

  static fromSnapshot(s: HdrSnapshot): HdrHistogram {
    const out = new HdrHistogram(s.digits, s);
    out.trackOrder = s.trackOrder;
    out.zeroCount = s.zeroCount;
    out.total = s.zeroCount;
    for (let i = 0; i < s.codes.length; i++) {
      out.counts.set(s.codes[i]!, s.counts[i]!);
      out.total += s.counts[i]!;
    }
    if (s.codes.length > 0) {
      out.minCode = s.codes[0]!;
      out.maxCode = s.codes[s.codes.length - 1]!;
    }
    return out;
  }

  get totalCount(): number {
    return this.total;
  }

  private codeOf(v: number): number {
    const e = exponentOf(v);
    return (e + EXP_BIAS) * 2 * this.half + Math.floor(scale(v, this.h - e));
  }

  /** The lowest value of a bucket. */
  private codeValue(code: number): number {
    const width = 2 * this.half;
    const e = Math.floor(code / width) - EXP_BIAS;
    return scale(code % width, e - this.h);
  }

  /** countsArrayIndex of the integer a value records as at the current ratio. */
  private countsIndex(v: number): number {
    const i = Math.floor(scale(v, this.h - exponentOf(this.lowest)));
    if (i < 2 * this.half) return i;
    const b = exponentOf(i) - this.h;
    return b * this.half + Math.floor(scale(i, -b));
  }

  recordValue(v: number): void {
    this.recordValueWithCount(v, 1);
  }

  recordValueWithCount(v: number, count: number): void {
    if (v < this.lowest || v >= this.highest) this.autoAdjustRange(v);
    this.total += count;
    if (v === 0) {
      this.zeroCount += count;
      return;
    }
    const code = this.codeOf(v);
    this.counts.set(code, (this.counts.get(code) ?? 0) + count);
    if (code < this.minCode) this.minCode = code;
    if (code > this.maxCode) this.maxCode = code;
  }

  /** DoubleHistogram.add: every bucket of `other`, ascending, recorded at its lowest value. */
  add(other: HdrSnapshot): void {
    if (other.zeroCount > 0) this.recordValueWithCount(0, other.zeroCount);
    const width = 2 * 2 ** (subBucketCountMagnitude(other.digits) - 1);
    for (let i = 0; i < other.codes.length; i++) {
      const code = other.codes[i]!;
      const e = Math.floor(code / width) - EXP_BIAS;
      this.recordValueWithCount(scale(code % width, e - (subBucketCountMagnitude(other.digits) - 1)), other.counts[i]!);
    }
  }

  /** findCappedContainingBinaryOrderOfMagnitude. */
  private cappedOrder(x: number): number {
    if (x > this.configuredRatio) return Math.trunc(Math.log(this.configuredRatio) / Math.log(2));
    if (x > 2 ** 50) return 50;
    return bitLength(Math.ceil(x));
  }

  private autoAdjustRange(v: number): void {
    if (v === 0) return;
    if (v < this.lowest) {
      if (v < 0 || Number.isNaN(v)) {
        throw outOfBounds(
          `The value ${javaDoubleToString(v)} is out of bounds for histogram, current covered range [${javaDoubleToString(this.lowest)}, ${javaDoubleToString(this.highest)}) cannot be extended any further.\nCaused by: java.lang.ArrayIndexOutOfBoundsException: Negative values cannot be recorded`,
        );
      }
      do this.coverLower(this.cappedOrder(Math.ceil(this.lowest / v) - 1));
      while (v < this.lowest);
    } else if (v >= this.highest) {
      do this.coverHigher(this.cappedOrder(Math.ceil((v + ulp(v)) / this.highest) - 1));
      while (v >= this.highest);
    }
  }

  private hasNonZero(): boolean {
    return this.total > this.zeroCount;
  }

  /** shiftCoveredRangeToTheRight: lower values covered; counts shift left (or the histogram grows first). */
  private coverLower(n: number): void {
    const m = 2 ** -n;
    let highest = this.highest;
    if (this.hasNonZero()) {
      const length = (this.trackOrder - this.h + 1) * this.half;
      if (this.countsIndex(this.codeValue(this.maxCode)) >= length - n * this.half) {
        this.resize(n);
        highest /= m;
      }
    }
    this.lowest *= m;
    this.highest = highest * m;
  }

  /** shiftCoveredRangeToTheLeft: higher values covered; counts shift right, or the histogram grows when that would lose precision. */
  private coverHigher(n: number): void {
    const m = 2 ** n;
    let lowest = this.lowest;
    if (this.hasNonZero() && this.countsIndex(this.codeValue(this.minCode)) < (n + 1) * this.half) {
      this.resize(n);
      lowest /= m;
    }
    this.lowest = lowest * m;
    this.highest = this.highest * m;
  }

  /** handleShiftValuesException: the integer histogram grows by n binary orders. */
  private resize(n: number): void {
    const order = n + this.trackOrder;
    if (order > 63) {
      throw outOfBounds(`Cannot resize histogram covered range beyond (1L << 63) / (1L << ${this.h}) - 1.`);
    }
    this.trackOrder = order;
    this.configuredRatio *= 2 ** n;
  }

  /** integerToDoubleValueConversionRatio: one integer unit as a double. */
  private unit(): number {
    return this.lowest / this.half;
  }

  private sortedCodes(): number[] {
    return [...this.counts.keys()].sort((a, b) => a - b);
  }

  /** getValueAtPercentile (2.1.9: the count rounded to nearest); NaN when empty, as Elasticsearch answers. */
  valueAtPercentile(percentile: number): number {
    if (this.total === 0) return NaN;
    const requested = Math.min(percentile, 100);
    const target = Math.max(Math.trunc((requested / 100) * this.total + 0.5), 1);
    let running = this.zeroCount;
    if (running >= target) return 0;
    const unit = this.unit();
    for (const code of this.sortedCodes()) {
      running += this.counts.get(code)!;
      if (running < target) continue;
      const low = this.codeValue(code);
      if (percentile === 0) return low;
      // highestEquivalentValue: the next bucket's first integer minus one, in doubles
      const width = 2 ** (exponentOf(low) - this.h);
      return (Math.round((low + width) / unit) - 1) * unit;
    }
    return 0;
  }

  /** getPercentileAtOrBelowValue; NaN when empty, as Elasticsearch answers. */
  percentileAtOrBelow(value: number): number {
    if (this.total === 0) return NaN;
    let running = 0;
    const scaled = Math.trunc(value / this.unit());
    if (scaled >= 0) running += this.zeroCount;
    if (scaled >= this.half) {
      const top = this.codeOf(value);
      for (const [code, n] of this.counts) if (code <= top) running += n;
    }
    return (100 * running) / this.total;
  }

  snapshot(): HdrSnapshot {
    const codes = this.sortedCodes();
    return {
      digits: this.digits,
      configuredRatio: this.configuredRatio,
      lowest: this.lowest,
      highest: this.highest,
      trackOrder: this.trackOrder,
      zeroCount: this.zeroCount,
      codes: Float64Array.from(codes),
      counts: Float64Array.from(codes, (c) => this.counts.get(c)!),
    };
  }
}

/** Math.ulp of a positive finite double. */
function ulp(v: number): number {
  const e = exponentOf(Math.abs(v));
  return 2 ** Math.max(e - 52, -1074);
}
