/**
 * Global ordinals of a keyword field over the segments of one shard search,
 * as Lucene's OrdinalMap: the union of the per-segment sorted dictionaries
 * (plus the `missing` value when given), and per segment a map from segment
 * ordinal to global ordinal. Counting runs on global ordinals; keys are looked
 * up once per bucket at the end. Cached per set of segments (segments are
 * immutable), so repeated searches skip the merge.
 */
import { PackedStrings, PackedStringsBuilder } from '../segment/packed-strings.ts';
import { mergeTerms } from '../segment/term-merge.ts';
import type { SegmentView, SortedDocValues, TermDictionary } from '../segment/types.ts';
import { sortedValues } from './value-source.ts';

export interface GlobalOrdinals {
  /** Distinct values over all segments, ascending (JS `<`). */
  readonly terms: TermDictionary;
  /** Per view (in the order given): segment ord → global ord; null when the segment lacks the field. */
  readonly segmentToGlobal: readonly (Int32Array | null)[];
  /** Global ord of the `missing` value, or -1. */
  readonly missingOrd: number;
}

const dictIds = new WeakMap<object, number>();
let nextDictId = 1;
const cache = new WeakMap<object, Map<string, GlobalOrdinals>>();

function dictId(dv: SortedDocValues | null): number {
  if (dv === null) return 0;
  let id = dictIds.get(dv.dict);
  if (id === undefined) {
    id = nextDictId++;
    dictIds.set(dv.dict, id);
  }
  return id;
}

export function globalOrdinals(views: readonly SegmentView[], field: string | null, missing: string | null): GlobalOrdinals {
  const dvs = views.map((v) => sortedValues(v.segment, field));
  const anchor = dvs.find((d) => d !== null)?.dict ?? null;
  const key = `${missing === null ? '' : `m:${missing}`}|${dvs.map(dictId).join(',')}`;
  if (anchor !== null) {
    const hit = cache.get(anchor)?.get(key);
    if (hit) return hit;
  }
  const built = build(dvs, missing);
  if (anchor !== null) {
    let m = cache.get(anchor);
    if (!m) {
      m = new Map();
      cache.set(anchor, m);
    }
    if (m.size > 16) m.clear();
    m.set(key, built);
  }
  return built;
}

function build(dvs: readonly (SortedDocValues | null)[], missing: string | null): GlobalOrdinals {
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
    };
  }
  const ordMaps = dicts.map((d) => new Int32Array(d.length));
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
  };
}
