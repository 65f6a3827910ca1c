/**
 * A segment's table of contents (its `.si` file): how many docs it has and
 * where each column, dictionary and postings list lies in its other files.
 * Written last, after every other file of the segment is complete: a segment
 * without one (a crash mid-write) is no segment and is removed at start-up.
 *
 * Fields are a list, not an object keyed by path: paths come from mappings,
 * and a path such as `__proto__` must stay an ordinary name.
 */
import type { DictionaryLayout } from '../codec/front-coded.ts';
import { CorruptSegmentError, FOOTER_BYTES, HEADER_BYTES, verifyFile, type SegmentFileKind } from '../codec/file-format.ts';
import type { ColumnLayout } from '../codec/typed-columns.ts';
import type { StoredFieldsLayout } from '../codec/stored-fields.ts';
import type { PointsInfo } from './point-values-file.ts';

/** The data files of a segment (the `.si` names them and is checked with them). */
export const DATA_FILES: readonly SegmentFileKind[] = ['tim', 'doc', 'pos', 'dvd', 'fdt'];

export interface InvertedInfo {
  readonly dict: DictionaryLayout;
  readonly positions: boolean;
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  readonly norms: ColumnLayout | null;
}

export type DocValuesInfo =
  | { readonly kind: 'numeric'; readonly values: ColumnLayout; readonly starts: ColumnLayout | null }
  | { readonly kind: 'sorted'; readonly dict: DictionaryLayout; readonly ords: ColumnLayout; readonly starts: ColumnLayout | null };

export interface FieldInfo {
  readonly path: string;
  readonly inverted: InvertedInfo | null;
  readonly docValues: DocValuesInfo | null;
  /** Point values (geo_point); absent or null when the field has none. */
  readonly points?: PointsInfo | null;
  /** The field's presence bitset in `.dvd` (u32 words), or null when no doc has it. */
  readonly present: { readonly at: number; readonly words: number } | null;
}

export interface SegmentInfo {
  readonly id: number;
  readonly maxDoc: number;
  /** Byte length of each data file. */
  readonly files: Readonly<Record<string, number>>;
  readonly versions: ColumnLayout;
  readonly seqNos: ColumnLayout;
  readonly stored: StoredFieldsLayout;
  readonly fields: readonly FieldInfo[];
}

/** A segment's `.si` read whole: its checksum checked, its JSON parsed; refused when it describes another segment. */
export function parseSegmentInfo(bytes: Uint8Array, id: number): SegmentInfo {
  const name = segmentFileName(id, 'si');
  verifyFile(bytes, 'si', name);
  const info = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + HEADER_BYTES, bytes.length - HEADER_BYTES - FOOTER_BYTES).toString('utf8')) as SegmentInfo;
  if (info.id !== id) throw new CorruptSegmentError(name, `describes segment ${info.id}`);
  return info;
}

/** A data file's length against the one the `.si` gives. */
export function checkFileLength(info: SegmentInfo, kind: SegmentFileKind, length: number): void {
  if (length !== info.files[kind]) throw new CorruptSegmentError(segmentFileName(info.id, kind), `${length} bytes where the segment info says ${info.files[kind]}`);
}

/** File name of a segment's file: `_<id in base 36>.<kind>`, as Lucene names its segments. */
export function segmentFileName(id: number, kind: SegmentFileKind): string {
  return `_${id.toString(36)}.${kind}`;
}

/** The segment id a file name belongs to, or null for a file that is not a segment's. */
export function segmentIdOfFile(name: string): number | null {
  const m = /^_([0-9a-z]+)\.(si|tim|doc|pos|dvd|fdt)$/.exec(name);
  return m === null ? null : parseInt(m[1]!, 36);
}
