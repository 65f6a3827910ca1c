/**
 * Approximate memory held by a segment, reported as the store size in
 * _cat/indices and index stats. Typed arrays count exactly; the few strings
 * (routings) are estimated from V8's usual layouts.
 */
import type { Segment } from './types.ts';

/** V8 string header plus pointer: a rough per-string overhead. */
const STRING_OVERHEAD = 24;
/** Per-term cost of the term → id lookup table, once built (two int entries per term). */
const TERM_LOOKUP_BYTES = 8;

export function estimateSegmentBytes(segment: Segment): number {
  let bytes = segment.versions.byteLength + segment.seqNos.byteLength;
  bytes += segment.source.bytes.byteLength + segment.source.offsets.byteLength;
  bytes += segment.ids.chars.byteLength + segment.ids.starts.byteLength;
  for (const routing of segment.routings) if (routing !== null) bytes += STRING_OVERHEAD + 2 * routing.length;
  for (const field of segment.inverted.values()) {
    bytes += field.terms.chars.byteLength + field.terms.starts.byteLength + field.terms.length * TERM_LOOKUP_BYTES;
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
      if (segment.inverted.get(path)?.terms !== dv.dict) bytes += dv.dict.chars.byteLength + dv.dict.starts.byteLength;
    }
  }
  for (const bits of segment.fieldDocs.values()) bytes += bits.byteLength;
  return bytes;
}
