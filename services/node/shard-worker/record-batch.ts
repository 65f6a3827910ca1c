/**
 * Log records on their way from a copy's partition (main thread) to the copy's
 * indexer (its shard worker): offsets and values packed into one buffer that
 * moves without a copy (transferred), with no object per record on the way.
 *
 * Layout, little endian: u32 count, then per record f64 offset, u32 length, value bytes.
 */
import type { LogRecord } from '../../../shared/log/commit-log.ts';

export function packRecordBatch(records: readonly LogRecord[]): Uint8Array {
  let size = 4;
  for (const r of records) size += 12 + r.value.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, records.length, true);
  let at = 4;
  for (const r of records) {
    view.setFloat64(at, r.offset, true);
    view.setUint32(at + 8, r.value.length, true);
    out.set(r.value, at + 12);
    at += 12 + r.value.length;
  }
  return out;
}

export function readRecordBatch(bytes: Uint8Array): { offsets: Float64Array; values: Buffer[] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(0, true);
  const offsets = new Float64Array(n);
  const values = new Array<Buffer>(n);
  let at = 4;
  for (let i = 0; i < n; i++) {
    offsets[i] = view.getFloat64(at, true);
    const len = view.getUint32(at + 8, true);
    values[i] = Buffer.from(bytes.buffer, bytes.byteOffset + at + 12, len);
    at += 12 + len;
  }
  return { offsets, values };
}
