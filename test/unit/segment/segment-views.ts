/**
 * Reads segments back the slow, obvious way, so tests can compare what a
 * search sees independently of how the columns are laid out.
 */
import { hasBit } from '../../../shared/engine/segment/bitset.ts';
import { idOf, type InvertedField, type SearcherSnapshot, type Segment, type TermDictionary } from '../../../shared/engine/segment/types.ts';

/** Every entry of a dictionary, in order. */
export function termsOf(dict: TermDictionary): string[] {
  const out: string[] = [];
  for (let i = 0; i < dict.length; i++) out.push(dict.get(i));
  return out;
}

/** Every posting of term t: [doc, freq, positions]. */
export function postingsOf(field: InvertedField, t: number): [number, number, number[]][] {
  const out: [number, number, number[]][] = [];
  const cursor = field.postings(t);
  while (cursor.nextBlock()) {
    for (let i = 0; i < cursor.count; i++) {
      out.push([cursor.docs[i]!, cursor.freqs[i]!, field.hasPositions ? Array.from(cursor.positions(i)) : []]);
    }
  }
  return out;
}

/** `_id`s of the live docs whose `field` has `term`, via the postings, sorted. */
export function idsWithTerm(snapshot: SearcherSnapshot, field: string, term: string): string[] {
  const out: string[] = [];
  for (const view of snapshot.views) {
    const inverted = view.segment.inverted.get(field);
    const t = inverted === undefined ? -1 : inverted.terms.find(term);
    if (inverted === undefined || t < 0) continue;
    for (const [doc] of postingsOf(inverted, t)) {
      if (view.liveDocs === null || hasBit(view.liveDocs, doc)) out.push(idOf(view.segment, doc));
    }
  }
  return out.sort();
}

/** `_id`s of every live doc, sorted. */
export function liveIds(snapshot: SearcherSnapshot): string[] {
  const out: string[] = [];
  for (const view of snapshot.views) {
    for (let d = 0; d < view.segment.maxDoc; d++) {
      if (view.liveDocs === null || hasBit(view.liveDocs, d)) out.push(idOf(view.segment, d));
    }
  }
  return out.sort();
}

/** Everything a segment holds about one doc, as plain data. */
export function docRecord(segment: Segment, doc: number): Record<string, unknown> {
  const stored = segment.stored.document(doc);
  const record: Record<string, unknown> = {
    id: idOf(segment, doc),
    version: segment.versions[doc],
    seqNo: segment.seqNos[doc],
    routing: stored.routing,
    source: Buffer.from(stored.source).toString('utf8'),
  };
  for (const [path, field] of segment.inverted) {
    if (path === '_id') continue;
    const postings: [string, number, number[]][] = [];
    termsOf(field.terms).forEach((term, t) => {
      for (const [d, freq, positions] of postingsOf(field, t)) if (d === doc) postings.push([term, freq, positions]);
    });
    if (postings.length > 0) record[`postings:${path}`] = postings;
    if (field.norms !== null && field.norms[doc] !== 0) record[`norm:${path}`] = field.norms[doc];
  }
  for (const [path, dv] of segment.docValues) {
    if (path === '_id') continue;
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
      if (view.liveDocs === null || hasBit(view.liveDocs, d)) out.set(idOf(view.segment, d), docRecord(view.segment, d));
    }
  }
  return out;
}
