/**
 * Reads segments back the slow, obvious way, so tests can compare what a
 * search sees independently of how the columns are laid out.
 */
import { hasBit } from '../../../shared/engine/segment/bitset.ts';
import type { SearcherSnapshot, Segment } from '../../../shared/engine/segment/types.ts';

/** `_id`s of the live docs whose `field` has `term`, via the postings, sorted. */
export function idsWithTerm(snapshot: SearcherSnapshot, field: string, term: string): string[] {
  const out: string[] = [];
  for (const view of snapshot.views) {
    const inverted = view.segment.inverted.get(field);
    const t = inverted === undefined ? -1 : inverted.terms.find(term);
    if (inverted === undefined || t < 0) continue;
    for (let p = inverted.postingStarts[t]!; p < inverted.postingStarts[t + 1]!; p++) {
      const doc = inverted.postingDocs[p]!;
      if (view.liveDocs === null || hasBit(view.liveDocs, doc)) out.push(view.segment.ids.get(doc));
    }
  }
  return out.sort();
}

/** `_id`s of every live doc, sorted. */
export function liveIds(snapshot: SearcherSnapshot): string[] {
  const out: string[] = [];
  for (const view of snapshot.views) {
    for (let d = 0; d < view.segment.maxDoc; d++) {
      if (view.liveDocs === null || hasBit(view.liveDocs, d)) out.push(view.segment.ids.get(d));
    }
  }
  return out.sort();
}

/** Everything a segment holds about one doc, as plain data. */
export function docRecord(segment: Segment, doc: number): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: segment.ids.get(doc),
    version: segment.versions[doc],
    seqNo: segment.seqNos[doc],
    routing: segment.routings[doc],
    source: segment.source.bytes.subarray(segment.source.offsets[doc]!, segment.source.offsets[doc + 1]!).toString('utf8'),
  };
  for (const [path, field] of segment.inverted) {
    const postings: [string, number, number[]][] = [];
    field.terms.toArray().forEach((term, t) => {
      for (let p = field.postingStarts[t]!; p < field.postingStarts[t + 1]!; p++) {
        if (field.postingDocs[p] !== doc) continue;
        const positions =
          field.positionStarts === null || field.positions === null
            ? []
            : Array.from(field.positions.subarray(field.positionStarts[p]!, field.positionStarts[p + 1]!));
        postings.push([term, field.postingFreqs[p]!, positions]);
      }
    });
    if (postings.length > 0) record[`postings:${path}`] = postings;
    if (field.norms !== null && field.norms[doc] !== 0) record[`norm:${path}`] = field.norms[doc];
  }
  for (const [path, dv] of segment.docValues) {
    let values: (number | string)[];
    if (dv.kind === 'numeric') {
      values =
        dv.starts === null
          ? Number.isNaN(dv.values[doc]) ? [] : [dv.values[doc]!]
          : Array.from(dv.values.subarray(dv.starts[doc]!, dv.starts[doc + 1]!));
    } else {
      const ords = dv.starts === null ? (dv.ords[doc]! < 0 ? [] : [dv.ords[doc]!]) : Array.from(dv.ords.subarray(dv.starts[doc]!, dv.starts[doc + 1]!));
      values = ords.map((o) => dv.dict.get(o));
    }
    if (values.length > 0) record[`dv:${path}`] = values;
  }
  for (const [path, bits] of segment.fieldDocs) if (hasBit(bits, doc)) record[`has:${path}`] = true;
  return record;
}

/** docRecord of every live doc, by `_id`. */
export function liveRecords(snapshot: SearcherSnapshot): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const view of snapshot.views) {
    for (let d = 0; d < view.segment.maxDoc; d++) {
      if (view.liveDocs === null || hasBit(view.liveDocs, d)) out.set(view.segment.ids.get(d), docRecord(view.segment, d));
    }
  }
  return out;
}
