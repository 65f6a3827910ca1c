/**
 * Sort keys from nested objects (`"sort": [{"passes.speed": {"order": "desc",
 * "nested": {"path": "passes"}}}]`): a document's key is the sort mode
 * (min, max, sum, avg, median) over the values of every nested object of the
 * path in its block, as Elasticsearch's nested sort computes it; a document
 * with none is missing.
 */
import { hasBit } from '../segment/bitset.ts';
import { rootDocs } from '../segment/nested-blocks.ts';
import type { Segment, SortedDocValues } from '../segment/types.ts';
import { nestedPathDocs, prevSetBit } from './nested-join.ts';
import type { ResolvedSortField, SegmentKeyReader } from './sort-keys.ts';

type NestedSortField = Extract<ResolvedSortField, { kind: 'numeric' | 'string' }>;

export function nestedKeyReader(field: NestedSortField, seg: Segment): SegmentKeyReader {
  const roots = rootDocs(seg);
  const missingNum = field.kind === 'numeric' ? field.missingKey : NaN;
  const missingStr = field.kind === 'string' ? field.missingValue : null;
  const dv = seg.docValues.get(field.field);
  if (roots === null || dv === undefined) return { numeric: () => missingNum, string: () => missingStr };
  const children = nestedPathDocs(seg, field.nestedPath!);
  /** The nested docs of the path in root d's block. */
  const each = (d: number, visit: (child: number) => void): void => {
    for (let c = prevSetBit(roots, d) + 1; c < d; c++) if (hasBit(children, c)) visit(c);
  };
  if (field.kind === 'numeric') {
    if (dv.kind !== 'numeric') return { numeric: () => missingNum, string: () => null };
    const values: number[] = [];
    return {
      numeric: (d) => {
        values.length = 0;
        each(d, (c) => {
          if (dv.starts === null) {
            const v = dv.values[c]!;
            if (v === v) values.push(v);
          } else for (let i = dv.starts[c]!; i < dv.starts[c + 1]!; i++) values.push(dv.values[i]!);
        });
        if (values.length === 0) return missingNum;
        switch (field.mode) {
          case 'min':
          case 'max': {
            let best = values[0]!;
            for (const v of values) if (field.mode === 'min' ? v < best : v > best) best = v;
            return best;
          }
          case 'median': {
            values.sort((a, b) => a - b);
            const mid = values.length >>> 1;
            return values.length % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
          }
          default: {
            let sum = 0;
            for (const v of values) sum += v;
            return field.mode === 'sum' ? sum : sum / values.length;
          }
        }
      },
      string: () => null,
    };
  }
  if (dv.kind !== 'sorted') return { numeric: () => NaN, string: () => missingStr };
  const sorted: SortedDocValues = dv;
  return {
    numeric: () => NaN,
    string: (d) => {
      let best = -1;
      each(d, (c) => {
        const from = sorted.starts === null ? c : sorted.starts[c]!;
        const to = sorted.starts === null ? c + 1 : sorted.starts[c + 1]!;
        for (let i = from; i < to; i++) {
          const o = sorted.ords[i]!;
          if (o < 0) continue;
          if (best < 0 || (field.mode === 'max' ? o > best : o < best)) best = o;
        }
      });
      return best < 0 ? missingStr : sorted.dict.get(best);
    },
  };
}
