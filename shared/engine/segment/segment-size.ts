/**
 * Approximate memory held by a segment, reported as the store size in
 * _cat/indices and index stats. Typed arrays count exactly; strings and maps
 * are estimated from V8's usual layouts.
 */
import type { Segment } from './types.ts';

/** V8 string header plus pointer: a rough per-string overhead. */
const STRING_OVERHEAD = 24;
/** Per-term cost of the term → id lookup (hash entry, offsets) beyond the characters. */
const TERM_LOOKUP_OVERHEAD = 20;

export function estimateSegmentBytes(segment: Segment): number {
  let bytes = segment.versions.byteLength + segment.seqNos.byteLength;
  bytes += segment.source.bytes.byteLength + segment.source.offsets.byteLength;
  bytes += stringsBytes(segment.ids);
  for (const routing of segment.routings) if (routing !== null) bytes += STRING_OVERHEAD + 2 * routing.length;
  for (const field of segment.inverted.values()) {
    bytes += stringsBytes(field.terms) + field.terms.length * TERM_LOOKUP_OVERHEAD;
    bytes += field.postingStarts.byteLength + field.postingDocs.byteLength + field.postingFreqs.byteLength;
    bytes += (field.positionStarts?.byteLength ?? 0) + (field.positions?.byteLength ?? 0) + (field.norms?.byteLength ?? 0);
  }
  for (const [path, dv] of segment.docValues) {
    bytes += dv.starts?.byteLength ?? 0;
    if (dv.kind === 'numeric') {
      bytes += dv.values.byteLength;
    } else {
      bytes += dv.ords.byteLength;
      // An indexed keyword field shares one dictionary between postings and doc values.
      if (segment.inverted.get(path)?.terms !== dv.dict) bytes += stringsBytes(dv.dict);
    }
  }
  for (const bits of segment.fieldDocs.values()) bytes += bits.byteLength;
  return bytes;
}

function stringsBytes(strings: readonly string[]): number {
  let bytes = 0;
  for (const s of strings) bytes += STRING_OVERHEAD + 2 * s.length;
  return bytes;
}
