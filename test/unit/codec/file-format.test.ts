/**
 * The segment format version: a file of another version is refused when it
 * opens (the copy is then rebuilt from the log), never read in the wrong
 * form. Format 4 changed what an `ip` term is (16 bytes in hex, not text);
 * format 5 the stored fields (a dictionary per segment), the dictionary
 * entries (tails) and the postings metadata (shared postings).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { CorruptSegmentError, FOOTER_BYTES, FOOTER_MAGIC, HEADER_BYTES, SEGMENT_FORMAT_VERSION, verifyFile, writeHeader } from '../../../shared/engine/codec/file-format.ts';

function segmentFile(version: number): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES + 4 + FOOTER_BYTES);
  writeHeader(bytes, 'tim');
  const view = new DataView(bytes.buffer);
  view.setUint32(4, version, true);
  view.setUint32(HEADER_BYTES, 0xdeadbeef, true);
  const footer = bytes.length - FOOTER_BYTES;
  view.setUint32(footer, FOOTER_MAGIC, true);
  view.setUint32(footer + 4, zlib.crc32(bytes.subarray(0, footer)), true);
  return bytes;
}

describe('segment format version', () => {
  test('this node writes and reads format 5, with stored-field dictionaries and shared postings', () => {
    assert.equal(SEGMENT_FORMAT_VERSION, 5);
    verifyFile(segmentFile(5), 'tim', '_0.tim');
  });

  test('a format 4 file (entries without tails, no stored-field dictionary) is refused as corrupt, naming both versions', () => {
    assert.throws(
      () => verifyFile(segmentFile(4), 'tim', '_0.tim'),
      (e: unknown) => e instanceof CorruptSegmentError && e.message === 'segment file [_0.tim] is corrupt: format version 4, this node reads 5',
    );
  });

  test('a format 3 file (ip terms as text) is refused as corrupt, naming both versions', () => {
    assert.throws(
      () => verifyFile(segmentFile(3), 'tim', '_0.tim'),
      (e: unknown) => e instanceof CorruptSegmentError && e.message === 'segment file [_0.tim] is corrupt: format version 3, this node reads 5',
    );
  });
});
