/**
 * The shard side of `cardinality`: one HyperLogLog++ sketch per bucket.
 * Keyword values are hashed once per distinct segment ordinal (MurmurHash3
 * x64 128 of the UTF-8 bytes, kept encoded per segment dictionary in the
 * thread's field data cache, field-data-cache.ts); numbers with
 * BitMixer.mix64, as Elasticsearch's MurmurHash3Values does.
 */
import type { NumericDocValues, OrdArray, Segment, SortedDocValues, TermDictionary } from '../segment/types.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { encodeHash, HyperLogLog, precisionFromThreshold } from './cardinality-hll.ts';
import { dictionaryId, fieldDataCache } from './field-data-cache.ts';
import { doubleToLongBits, hashHigh, longBits, mix64, murmur3x64h1 } from './murmur3.ts';
import type { AggPathElement, CardinalitySpec } from './spec.ts';
import type { AggState } from './state.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues, sortedValues } from './value-source.ts';

/**
 * Per segment ordinal, its term's hash as the sketch's 32-bit encoding at one
 * precision (encodeHash: what linear counting stores, and from which a
 * register's index and run length are read exactly), filled as ordinals are
 * first seen: 5 bytes a term.
 */
interface OrdHashes {
  readonly encoded: Int32Array;
  readonly done: Uint8Array;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

function hashString(s: string): number {
  if (s.length * 3 > scratch.length) scratch = new Uint8Array(s.length * 3 + 16);
  const { written } = encoder.encodeInto(s, scratch);
  return murmur3x64h1(scratch, 0, written);
}

function hashesKey(dict: TermDictionary, p: number): string {
  return `hashes|${p}|${dictionaryId(dict)}`;
}

/** The dictionary's encoded term hashes at precision p, kept in the thread's field data cache. */
function ordHashes(dict: TermDictionary, p: number): OrdHashes {
  const key = hashesKey(dict, p);
  let h = fieldDataCache.get<OrdHashes>(key);
  if (h === undefined) {
    h = { encoded: new Int32Array(dict.length), done: new Uint8Array(dict.length) };
    fieldDataCache.set(key, h, 5 * dict.length);
  }
  return h;
}

/** The encoding of ordinal o's term, hashed on first use. */
function encodedOrd(hashes: OrdHashes, dict: TermDictionary, o: number, p: number): number {
  if (hashes.done[o] === 0) {
    const lo = hashString(dict.get(o));
    hashes.encoded[o] = encodeHash(hashHigh(), lo, p);
    hashes.done[o] = 1;
  }
  return hashes.encoded[o]!;
}

/*
 * The segment-long loops are small functions of their own (see counting-loops.ts:
 * a loop inside a large method is entered by on-stack replacement and
 * deoptimised after it, call after call).
 */

/** seen[ord] = 1 for each doc's ordinal (single-valued; -1 is a doc without a value). */
function markOrdinals(docs: Int32Array, n: number, ords: OrdArray, seen: Uint8Array): void {
  for (let i = 0; i < n; i++) {
    const o = ords[docs[i]!]!;
    if (o >= 0) seen[o] = 1;
  }
}

/** seen[ord] = 1 for the ordinal of every doc of [from, to). */
function markOrdinalRange(from: number, to: number, ords: OrdArray, seen: Uint8Array): void {
  for (let d = from; d < to; d++) {
    const o = ords[d]!;
    if (o >= 0) seen[o] = 1;
  }
}

/** A whole segment's sketch as kept in the field data cache (null: no doc of it has a value). */
type SegmentSketch = { readonly encoded: Int32Array | null; readonly registers: Uint8Array | null } | null;

/** Adds the seen ordinals' hashes to the sketch, hashing those not hashed yet. */
function collectSeen(seen: Uint8Array, hashes: OrdHashes, dict: TermDictionary, sketch: HyperLogLog): void {
  const { encoded, done } = hashes;
  for (let o = 0; o < seen.length; o++) {
    if (seen[o] === 0) continue;
    sketch.addEncoded(done[o] === 0 ? encodedOrd(hashes, dict, o, sketch.p) : encoded[o]!);
  }
}

export class CardinalityAggregator implements Aggregator {
  readonly name: string;
  private readonly precision: number;
  private sketches: (HyperLogLog | undefined)[] = [];
  private numeric: NumericDocValues | null = null;
  private sorted: SortedDocValues | null = null;
  private hashes: OrdHashes | null = null;
  /** Single-owner keyword path: ordinals seen in the current segment. */
  private seen: Uint8Array | null = null;
  private missingHi = 0;
  private missingLo = 0;
  /** The segment being collected: its doc count, and whether its kept sketch was merged (whole-segment collection). */
  private segmentDocs = 0;
  private segmentKept = false;

  constructor(
    spec: CardinalitySpec,
    private readonly source: ResolvedSource,
    private readonly singleOwner: boolean,
  ) {
    this.name = spec.name;
    this.precision = precisionFromThreshold(spec.precisionThreshold);
    if (source.kind === 'bytes' && source.missing !== null) {
      this.missingLo = hashString(source.missing);
      this.missingHi = hashHigh();
    } else if (source.kind === 'numeric' && source.missing !== null) {
      this.missingLo = this.hashNumber(source.missing);
      this.missingHi = hashHigh();
    }
  }

  private sketch(b: number): HyperLogLog {
    let s = this.sketches[b];
    if (s === undefined) {
      s = new HyperLogLog(this.precision);
      this.sketches[b] = s;
    }
    return s;
  }

  private hashNumber(v: number): number {
    const src = this.source;
    const lo = src.kind === 'numeric' && src.numKind === 'double' ? doubleToLongBits(v) : longBits(v);
    return mix64(hashHigh(), lo);
  }

  /** The segment being collected. */
  private segment: Segment | null = null;

  setSegment(seg: SegmentContext): void {
    this.flushSeen();
    const src = this.source;
    this.numeric = src.kind === 'numeric' ? numericValues(seg.view.segment, src.field) : null;
    this.sorted = src.kind === 'bytes' ? sortedValues(seg.view.segment, src.field) : null;
    this.hashes = null; // taken from the cache on first use: a segment merged from its kept sketch needs none
    this.seen = null; // made on first use: a segment merged from its kept sketch needs none
    this.segmentDocs = seg.view.segment.maxDoc;
    this.segment = seg.view.segment;
    this.segmentKept = false;
  }

  /**
   * A segment whose every doc is matched (match_all on a segment without
   * deletes), single owner, single-valued keyword, no `missing`: its own
   * sketch is kept in the field data cache (2^precision bytes at most) the
   * first time, and later searches merge it instead of reading the segment's
   * ordinals and their hashes. The merged sketch is the one the docs would
   * have made: a sketch is a function of the set of hashes added to it.
   */
  collectRange(from: number, to: number): boolean {
    const src = this.source;
    if (!this.singleOwner || src.kind !== 'bytes' || src.missing !== null) return false;
    const dv = this.sorted;
    if (dv === null) return true; // no doc of this segment has the field
    if (dv.starts !== null) return false;
    const key = `segmentSketch|${this.precision}|${dictionaryId(dv.dict)}`;
    if (from === 0) {
      const kept = fieldDataCache.get<SegmentSketch>(key);
      if (kept !== undefined) {
        this.seen = null;
        this.segmentKept = true;
        if (kept !== null) this.sketch(0).merge(kept);
        return true;
      }
    }
    if (this.segmentKept) return true;
    markOrdinalRange(from, to, dv.ords, this.seenArray()!);
    if (to === this.segmentDocs) {
      // the whole segment was seen: its own sketch, kept, then merged
      const seen = this.seen!;
      this.seen = null;
      let kept: SegmentSketch = null;
      if (seen.indexOf(1) >= 0) {
        const own = new HyperLogLog(this.precision);
        collectSeen(seen, this.segmentHashes(), dv.dict, own);
        kept = own.isLinearCounting ? { encoded: own.encodedValues(), registers: null } : { encoded: null, registers: own.registers };
        this.sketch(0).merge(kept);
      }
      fieldDataCache.set(key, kept, 64 + (kept === null ? 0 : (kept.encoded?.byteLength ?? 0) + (kept.registers?.byteLength ?? 0)));
      // Later searches over every doc merge the kept sketch: the hashes (5 bytes a term, 11 MB for a
      // segment of 2.2M plates) would only push global ordinals out of the cache, and the values the
      // hashing read, every ordinal's, would stay in the process.
      fieldDataCache.delete(hashesKey(dv.dict, this.precision));
      this.hashes = null;
      this.segment?.releasePages?.('terms');
    }
    return true;
  }

  /** The segment's term hashes (keyword source), from the field data cache or new. */
  private segmentHashes(): OrdHashes {
    this.hashes ??= ordHashes(this.sorted!.dict, this.precision);
    return this.hashes;
  }

  /** The segment's seen-ordinals marks (single owner, keyword), made on first use; null on other paths. */
  private seenArray(): Uint8Array | null {
    if (this.seen === null && this.sorted !== null && this.singleOwner) this.seen = new Uint8Array(this.sorted.dict.length);
    return this.seen;
  }

  /** Hashes the ordinals seen in the segment into bucket 0 (single owner path). */
  private flushSeen(): void {
    const seen = this.seen;
    const dv = this.sorted;
    if (seen === null || dv === null) return;
    this.seen = null;
    // no sketch is made for a segment none of whose docs had a value (build() then reports an empty one)
    if (seen.indexOf(1) < 0) return;
    collectSeen(seen, this.segmentHashes(), dv.dict, this.sketch(0));
  }

  private collectOrd(b: number, o: number): void {
    this.sketch(b).addEncoded(encodedOrd(this.segmentHashes(), this.sorted!.dict, o, this.precision));
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const src = this.source;
    if (src.kind === 'unmapped') return;
    const hasMissing = src.missing !== null;
    if (src.kind === 'bytes') {
      const dv = this.sorted;
      const seen = this.seenArray();
      if (seen !== null && dv !== null && dv.starts === null && !hasMissing) {
        markOrdinals(docs, n, dv.ords, seen);
        return;
      }
      for (let i = 0; i < n; i++) {
        const doc = docs[i]!;
        const b = owners[i]!;
        let any = false;
        if (dv !== null) {
          if (dv.starts === null) {
            const o = dv.ords[doc]!;
            if (o >= 0) {
              any = true;
              if (seen !== null) seen[o] = 1;
              else this.collectOrd(b, o);
            }
          } else {
            for (let j = dv.starts[doc]!; j < dv.starts[doc + 1]!; j++) {
              any = true;
              if (seen !== null) seen[dv.ords[j]!] = 1;
              else this.collectOrd(b, dv.ords[j]!);
            }
          }
        }
        if (!any && hasMissing) this.sketch(b).collect(this.missingHi, this.missingLo);
      }
      return;
    }
    const dv = this.numeric;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const b = owners[i]!;
      let any = false;
      if (dv !== null) {
        if (dv.starts === null) {
          const v = dv.values[doc]!;
          if (v === v) {
            any = true;
            const lo = this.hashNumber(v);
            this.sketch(b).collect(hashHigh(), lo);
          }
        } else {
          for (let j = dv.starts[doc]!; j < dv.starts[doc + 1]!; j++) {
            any = true;
            const lo = this.hashNumber(dv.values[j]!);
            this.sketch(b).collect(hashHigh(), lo);
          }
        }
      }
      if (!any && hasMissing) this.sketch(b).collect(this.missingHi, this.missingLo);
    }
  }

  build(owner: number): AggState {
    this.flushSeen();
    const s = this.sketches[owner];
    if (s === undefined) return { kind: 'cardinality', precision: this.precision, encoded: new Int32Array(0), registers: null };
    return {
      kind: 'cardinality',
      precision: this.precision,
      encoded: s.isLinearCounting ? s.encodedValues() : null,
      registers: s.isLinearCounting ? null : Uint8Array.from(s.registers!),
    };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number): number {
    if (at !== path.length - 1) return NaN;
    this.flushSeen();
    return this.sketches[owner]?.cardinality() ?? 0;
  }
}
