/**
 * Global ordinals of a keyword field over the segments of one shard search,
 * as Lucene's OrdinalMap: the union of the per-segment sorted dictionaries
 * (plus the `missing` value when given), and per segment a map from segment
 * ordinal to global ordinal. Counting runs on global ordinals; keys are looked
 * up once per bucket at the end. Kept per set of segments (segments are
 * immutable) in the thread's field data cache (field-data-cache.ts), so
 * repeated searches skip the merge while it fits the cache's budget.
 *
 * The maps are all that is kept, packed as Lucene packs them (monotonic
 * blocks, monotonic-ords.ts): 4–12 bits a segment term where an Int32Array
 * took 32 (a shard of 20M pass records: 1.5M plates, 16 MB of maps a shard
 * and 5 shards on 2 workers, over the 64 MiB field data budget). A global
 * ordinal's term is read from a segment's own dictionary (the first, largest
 * first, whose map holds it: a binary search, the maps ascend), as Lucene
 * reads it through `OrdinalMap.getFirstSegmentNumber`. A copy of the terms
 * (18 bytes a 7-character plate in UTF-16) made a shard of 4M plates'
 * ordinals 3 times larger, and 3 shards of a worker no longer fitted the
 * cache: they were merged again on every search. Beside the maps, a byte per
 * global ordinal names the segment to read its value from.
 */
import { PackedStrings } from '../segment/packed-strings.ts';
import { mergeTerms } from '../segment/term-merge.ts';
import type { SegmentView, SortedDocValues, TermDictionary } from '../segment/types.ts';
import { sortedValues } from './value-source.ts';
import { dictionaryId, fieldDataCache } from './field-data-cache.ts';
import { MonotonicOrds, MonotonicOrdsWriter } from './monotonic-ords.ts';

export interface GlobalOrdinals {
  /** Distinct values over all segments (and `missing`). */
  readonly length: number;
  /** The value of global ordinal g (0 <= g < length); values ascend with g (JS `<`). */
  term(g: number): string;
  /** 1 for each global ordinal whose value `accept` takes: every segment dictionary read in order once. */
  acceptedBy(accept: (term: string) => boolean): Uint8Array;
  /** Per view (in the order given): segment ord → global ord; null when the segment lacks the field. */
  readonly segmentToGlobal: readonly (MonotonicOrds | null)[];
  /** Global ord of the `missing` value, or -1. */
  readonly missingOrd: number;
  /** Names this set of dictionaries (and `missing`) in the field data cache: what is derived from them is kept under keys made from it. */
  readonly cacheKey: string;
}

function dictKey(dv: SortedDocValues | null): number {
  return dv === null ? 0 : dictionaryId(dv.dict);
}

export function globalOrdinals(views: readonly SegmentView[], field: string | null, missing: string | null): GlobalOrdinals {
  const dvs = views.map((v) => sortedValues(v.segment, field));
  const key = `globalOrdinals|${missing === null ? '' : `m:${missing}`}|${dvs.map(dictKey).join(',')}`;
  const hit = fieldDataCache.get<GlobalOrdinals>(key);
  if (hit !== undefined) return hit;
  const built = buildGlobalOrdinals(dvs.map((d) => (d === null ? null : d.dict)), missing, key);
  fieldDataCache.set(key, built, globalOrdinalsBytes(built));
  // The merge read every dictionary whole; the searches after it read a term here and there.
  for (let i = 0; i < views.length; i++) if (dvs[i] !== null) views[i]!.segment.releasePages?.('terms');
  return built;
}

/** What a global ordinals map holds in its arrays (the dictionaries are the segments'). */
export function globalOrdinalsBytes(g: GlobalOrdinals): number {
  let bytes = 64 + (g instanceof OrdinalMap ? g.extraBytes : 0);
  const seen = new Set<MonotonicOrds>();
  for (const m of g.segmentToGlobal) {
    if (m === null || seen.has(m)) continue;
    seen.add(m);
    bytes += m.byteLength;
  }
  return bytes;
}

/** Values an ordinal map keeps read (twice the shard_size of a terms aggregation of size 10,000), and the bytes each takes at most. */
const RECENT_TERMS = 1 << 15;
const RECENT_BYTES = 64;

/** A dictionary and its ordinals' global ordinals (ascending). */
interface Part {
  readonly dict: TermDictionary;
  readonly map: MonotonicOrds;
}

class OrdinalMap implements GlobalOrdinals {
  /** Parts with terms, the largest dictionary first. */
  private readonly lookupOrder: readonly Part[];
  /**
   * Per global ordinal, the position in lookupOrder of the first part that
   * holds it (Lucene's `firstSegments`): 1 byte a value, where searching the
   * parts in turn cost 15 binary searches for a value of a small segment.
   */
  private readonly firstPart: Uint8Array | Uint16Array;

  constructor(
    readonly length: number,
    parts: readonly Part[],
    readonly segmentToGlobal: readonly (MonotonicOrds | null)[],
    readonly missingOrd: number,
    readonly cacheKey: string,
  ) {
    this.lookupOrder = parts.filter((p) => p.map.length > 0).sort((a, b) => b.map.length - a.map.length);
    this.firstPart = this.lookupOrder.length <= 256 ? new Uint8Array(length) : new Uint16Array(length);
    const first = this.firstPart;
    // From the last part to the first: each ordinal ends with the first part that holds it.
    for (let p = this.lookupOrder.length - 1; p >= 0; p--) {
      const map = this.lookupOrder[p]!.map;
      for (let i = 0; i < map.length; i++) first[map.get(i)] = p;
    }
  }

  /**
   * Values read lately, by global ordinal: a segment dictionary decodes up to
   * a block of entries to reach one (2 µs; 30 ms for the 15,010 buckets of a
   * shard of terms size 10,000), and the same searches ask for the same top
   * buckets again. Emptied when full.
   */
  private readonly recent = new Map<number, string>();

  /** Bytes of what is kept beside the segment maps, at most. */
  get extraBytes(): number {
    return this.firstPart.byteLength + RECENT_BYTES * Math.min(RECENT_TERMS, this.length);
  }

  term(g: number): string {
    if (!(g >= 0 && g < this.length)) throw new RangeError(`global ordinal ${g} of ${this.length}`);
    const known = this.recent.get(g);
    if (known !== undefined) return known;
    const { dict, map } = this.lookupOrder[this.firstPart[g]!]!;
    // the map ascends and holds g: its index is the segment ordinal
    let lo = 0;
    let hi = map.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = map.get(mid);
      if (v === g) {
        const term = dict.get(mid);
        if (this.recent.size === RECENT_TERMS) this.recent.clear();
        this.recent.set(g, term);
        return term;
      }
      if (v < g) lo = mid + 1;
      else hi = mid - 1;
    }
    throw new Error(`global ordinal ${g} is in no dictionary`);
  }

  acceptedBy(accept: (term: string) => boolean): Uint8Array {
    // 0 undecided, 1 taken, 2 refused: a term of several segments is tested once
    const out = new Uint8Array(this.length);
    for (const { dict, map } of this.lookupOrder) {
      for (let i = 0; i < map.length; i++) {
        const g = map.get(i);
        if (out[g] === 0) out[g] = accept(dict.get(i)) ? 1 : 2;
      }
    }
    for (let g = 0; g < out.length; g++) if (out[g] === 2) out[g] = 0;
    return out;
  }
}

/** The global ordinals of these dictionaries (null: a segment without the field) and `missing`. */
export function buildGlobalOrdinals(dicts: readonly (TermDictionary | null)[], missing: string | null, cacheKey: string): GlobalOrdinals {
  const all: TermDictionary[] = dicts.map((d) => d ?? PackedStrings.EMPTY);
  if (missing !== null) all.push(PackedStrings.of([missing]));
  const present = all.filter((d) => d.length > 0);
  if (missing === null && present.length <= 1) {
    // At most one dictionary: it is the global one.
    const only = present[0] ?? PackedStrings.EMPTY;
    const identity = MonotonicOrds.identity(only.length);
    const empty = MonotonicOrds.identity(0);
    return new OrdinalMap(
      only.length,
      [{ dict: only, map: identity }],
      dicts.map((d) => (d === null ? null : d.length === 0 ? empty : identity)),
      -1,
      cacheKey,
    );
  }
  // Each dictionary's terms come in order, so each map is packed as the merge goes (never whole as int32s).
  const writers = all.map((d) => new MonotonicOrdsWriter(d.length));
  let length = 0;
  mergeTerms(all, null, (_term, holders) => {
    for (const { part } of holders) writers[part]!.add(length);
    length++;
  });
  const ordMaps = writers.map((w) => w.finish());
  return new OrdinalMap(
    length,
    all.map((dict, i) => ({ dict, map: ordMaps[i]! })),
    dicts.map((d, i) => (d === null ? null : ordMaps[i]!)),
    missing === null ? -1 : ordMaps[all.length - 1]!.get(0),
    cacheKey,
  );
}
