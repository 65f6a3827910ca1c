/**
 * Global ordinals of a keyword field over the segments of one shard search,
 * as Lucene's OrdinalMap: the union of the per-segment sorted dictionaries
 * (plus the `missing` value when given), and per segment a map from segment
 * ordinal to global ordinal. Counting runs on global ordinals; keys are looked
 * up once per bucket at the end. Kept per set of segments (segments are
 * immutable) in the thread's field data cache (field-data-cache.ts), so
 * repeated searches skip the merge while it fits the cache's budget.
 */
import { PackedStrings, PackedStringsBuilder } from '../segment/packed-strings.ts';
import { mergeTerms } from '../segment/term-merge.ts';
import type { SegmentView, SortedDocValues, TermDictionary } from '../segment/types.ts';
import { sortedValues } from './value-source.ts';
import { dictionaryId, fieldDataCache } from './field-data-cache.ts';

export interface GlobalOrdinals {
  /** Distinct values over all segments, ascending (JS `<`). */
  readonly terms: TermDictionary;
  /** Per view (in the order given): segment ord → global ord; null when the segment lacks the field. */
  readonly segmentToGlobal: readonly (Int32Array | null)[];
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
  const built = build(dvs, missing, key);
  fieldDataCache.set(key, built, globalOrdinalsBytes(built));
  return built;
}

/** What a global ordinals map holds in its arrays. */
function globalOrdinalsBytes(g: GlobalOrdinals): number {
  let bytes = g.terms instanceof PackedStrings ? g.terms.chars.byteLength + g.terms.starts.byteLength : 0;
  const seen = new Set<Int32Array>();
  for (const m of g.segmentToGlobal) {
    if (m === null || seen.has(m)) continue;
    seen.add(m);
    bytes += m.byteLength;
  }
  return bytes;
}

function build(dvs: readonly (SortedDocValues | null)[], missing: string | null, cacheKey: string): GlobalOrdinals {
  const dicts: TermDictionary[] = dvs.map((d) => (d === null ? PackedStrings.EMPTY : d.dict));
  if (missing !== null) dicts.push(PackedStrings.of([missing]));
  const present = dicts.filter((d) => d.length > 0);
  if (missing === null && present.length <= 1) {
    // At most one dictionary: it is the global one.
    const only = present[0] ?? PackedStrings.EMPTY;
    const identity = new Int32Array(only.length);
    for (let i = 0; i < identity.length; i++) identity[i] = i;
    return {
      terms: only,
      segmentToGlobal: dvs.map((d) => (d === null ? null : d.dict.length === 0 ? new Int32Array(0) : identity)),
      missingOrd: -1,
      cacheKey,
    };
  }
  const ordMaps = dicts.map((d) => new Int32Array(d.length));
  // A copy of the terms (UTF-16, 18 bytes a 7-character plate): bucket keys are read
  // at random, and a segment dictionary decodes a block's entries to reach one.
  const terms = new PackedStringsBuilder(1024, 16 * 1024);
  mergeTerms(dicts, null, (term, holders) => {
    const ord = terms.length;
    terms.add(term);
    for (const { part, termId } of holders) ordMaps[part]![termId] = ord;
  });
  return {
    terms: terms.build(),
    segmentToGlobal: dvs.map((d, i) => (d === null ? null : ordMaps[i]!)),
    missingOrd: missing === null ? -1 : ordMaps[dicts.length - 1]![0]!,
    cacheKey,
  };
}

