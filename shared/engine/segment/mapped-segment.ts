/**
 * A segment read from its files through memory maps: every column, postings
 * list and dictionary is a view of the mapped bytes, so the pages a query
 * touches come from the operating system's page cache and the heap holds
 * only these small objects (docs/decisions/003). Opening checks the `.si`
 * whole and the data files' structure, or every byte (SegmentCheck); a segment
 * that fails is refused as a whole.
 */
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { CorruptSegmentError, checkFileStructure, verifyFile, type SegmentCheck, type SegmentFileKind } from '../codec/file-format.ts';
import { FrontCodedDictionary, type DictionaryLayout } from '../codec/front-coded.ts';
import { MappedPostingsCursor, TermMetaReader, skipTermMeta, type TermPostingsMeta } from '../codec/postings-format.ts';
import type { ByteReader } from '../codec/byte-reader.ts';
import { MappedStoredFields } from '../codec/stored-fields.ts';
import { viewColumn, viewUint32 } from '../codec/typed-columns.ts';
import { mapFile, type MappedFile } from '../store/mapped-file.ts';
import { DATA_FILES, checkFileLength, parseSegmentInfo, segmentFileName, type FieldInfo, type InvertedInfo, type SegmentInfo } from './segment-info.ts';
import type { DocValues, InvertedField, NumericArray, OrdArray, PointValues, PostingsCursor, Segment, StoredFields } from './types.ts';
import { viewPoints } from './point-values-file.ts';

export class MappedSegment implements Segment {
  readonly id: number;
  readonly maxDoc: number;
  readonly versions: NumericArray;
  readonly seqNos: NumericArray;
  readonly stored: StoredFields;
  readonly inverted = new Map<string, InvertedField>();
  readonly docValues = new Map<string, DocValues>();
  readonly points = new Map<string, PointValues>();
  readonly fieldsPresent = new Set<string>();
  readonly fieldDocs = new Map<string, Uint32Array>();
  readonly sizeInBytes: number;
  private closed = false;

  private constructor(
    readonly info: SegmentInfo,
    private readonly maps: ReadonlyMap<SegmentFileKind, MappedFile>,
  ) {
    this.id = info.id;
    this.maxDoc = info.maxDoc;
    const bytes = (kind: SegmentFileKind) => maps.get(kind)!.bytes;
    let size = 0;
    for (const m of maps.values()) size += m.bytes.length;
    this.sizeInBytes = size;
    this.versions = viewColumn(bytes('dvd'), info.versions);
    this.seqNos = viewColumn(bytes('dvd'), info.seqNos);
    this.stored = new MappedStoredFields(bytes('fdt'), info.stored, () => {
      if (!this.closed) maps.get('fdt')!.advise('dontneed');
    });
    const dictionaries = new Map<number, FrontCodedDictionary>();
    const dictionary = (layout: DictionaryLayout, positions: boolean) => {
      // One object per dictionary: a keyword field's postings and doc values share it (global ordinals cache by it).
      let d = dictionaries.get(layout.at);
      if (d === undefined) {
        d = new FrontCodedDictionary(bytes('tim'), layout, positions ? skipTextTermMeta : skipKeywordTermMeta);
        dictionaries.set(layout.at, d);
      }
      return d;
    };
    for (const field of info.fields) this.openField(field, bytes, dictionary);
  }

  private openField(field: FieldInfo, bytes: (kind: SegmentFileKind) => Uint8Array, dictionary: (l: DictionaryLayout, positions: boolean) => FrontCodedDictionary): void {
    if (field.inverted !== null) {
      this.inverted.set(field.path, new MappedInvertedField(field.inverted, dictionary(field.inverted.dict, field.inverted.positions), bytes('doc'), bytes('pos'), bytes('dvd'), this.maxDoc));
    }
    const dv = field.docValues;
    if (dv !== null) {
      const dvd = bytes('dvd');
      const starts = dv.starts === null ? null : (viewColumn(dvd, dv.starts) as Uint32Array);
      if (dv.kind === 'numeric') this.docValues.set(field.path, { kind: 'numeric', values: viewColumn(dvd, dv.values), starts });
      else this.docValues.set(field.path, { kind: 'sorted', dict: dictionary(dv.dict, field.inverted?.positions ?? false), ords: viewColumn(dvd, dv.ords) as OrdArray, starts });
    }
    if (field.points !== undefined && field.points !== null) this.points.set(field.path, viewPoints(bytes('dvd'), field.points));
    if (field.present !== null) {
      this.fieldsPresent.add(field.path);
      this.fieldDocs.set(field.path, viewUint32(bytes('dvd'), field.present.at, field.present.words));
    }
  }

  /**
   * Maps the segment's files and checks them: the `.si` always whole (a few
   * KB, and every offset the views take comes from it), each data file's size
   * against it, and `check` of the data files: `structure` (header and footer,
   * what Lucene checks at open; a copy's open checked every byte just before
   * unless `index.shard.check_on_startup` is `false`: verify-segment-files.ts),
   * `checksum` (every byte, through the map: a merge's inputs), `none` (files
   * this process has just written). A missing file is a CorruptSegmentError.
   */
  static open(dir: string, id: number, check: SegmentCheck = 'structure'): MappedSegment {
    const maps = new Map<SegmentFileKind, MappedFile>();
    try {
      const si = mapSegmentFile(dir, segmentFileName(id, 'si'));
      maps.set('si', si);
      const info = parseSegmentInfo(si.bytes, id);
      for (const kind of DATA_FILES) {
        const name = segmentFileName(id, kind);
        const file = mapSegmentFile(dir, name);
        maps.set(kind, file);
        // Reads are random from here on (a term here, a block there), and a structure check reads a page at
        // each end: no read-ahead of pages nobody asked for (from a cold page cache, a fault read about 2 MB).
        if (check !== 'checksum') file.advise('random');
        checkFileLength(info, kind, file.bytes.length);
        if (check === 'checksum') verifyFile(file.bytes, kind, name);
        else if (check === 'structure') {
          checkFileStructure(file.bytes, kind, name);
          // Each end's fault mapped the page cache's 16 pages around it: ~90 KB a file, kept for the life of
          // the segment (60 MiB of the node's RSS at 20M docs, 140 segments); what queries need comes back.
          file.advise('dontneed');
        }
      }
      if (check === 'checksum') {
        for (const [kind, m] of maps) {
          if (kind === 'si') continue;
          // The checksums read every page: give them back (they stay in the page cache), so the
          // process holds only what queries touch; and no read-ahead from here on.
          m.advise('dontneed');
          m.advise('random');
        }
      }
      return new MappedSegment(info, maps);
    } catch (err) {
      for (const m of maps.values()) m.unmap();
      throw err;
    }
  }

  /** Reads will be front to back (a merge reads every input whole): read ahead. */
  adviseSequential(): void {
    for (const m of this.maps.values()) m.advise('sequential');
  }

  /** Drops the segment's pages from this process (they stay in the page cache): a merged-away segment. */
  release(): void {
    for (const m of this.maps.values()) m.advise('dontneed');
  }

  releasePages(what: 'docValues' | 'terms'): void {
    if (!this.closed) this.maps.get(what === 'docValues' ? 'dvd' : 'tim')?.advise('dontneed');
  }

  /** Unmaps the files; nothing may read the segment afterwards. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const m of this.maps.values()) m.unmap();
  }

  /** Bytes of the segment's files in memory now. */
  residentBytes(): number {
    let n = 0;
    for (const m of this.maps.values()) n += m.resident();
    return n;
  }
}

/** Maps a file of the segment; a missing one is damage (the copy is rebuilt), not a failure of the open. */
function mapSegmentFile(dir: string, name: string): MappedFile {
  try {
    return mapFile(join(dir, name));
  } catch (err) {
    if (!existsSync(join(dir, name))) throw new CorruptSegmentError(name, 'missing');
    throw err;
  }
}

const skipTextTermMeta = (r: ByteReader): void => skipTermMeta(r, true);
const skipKeywordTermMeta = (r: ByteReader): void => skipTermMeta(r, false);

/** Term metadata a field keeps from its last reads, and cursors it keeps for reuse: a few, whatever the segment's size. */
const RECENT_TERMS = 16;
const SPARE_CURSORS = 8;

class MappedInvertedField implements InvertedField {
  readonly hasPositions: boolean;
  readonly norms: Uint8Array | null;
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  private readonly metaReader: TermMetaReader;
  /**
   * The metadata of the terms read last: a query reads a term's docFreq, then
   * its postings, and reading it is a walk of the term's dictionary block.
   */
  private readonly recentMeta = new Map<number, TermPostingsMeta>();
  private readonly scratch: TermPostingsMeta = { docFreq: 0, docPointer: 0, posPointer: 0, singleDoc: -1, singleFreq: 0, singlePosition: -1, dense: false };
  /** Cursors handed back (`release`), for the next `postings`. */
  private readonly spare: MappedPostingsCursor[] = [];

  constructor(
    info: InvertedInfo,
    readonly terms: FrontCodedDictionary,
    private readonly docBytes: Uint8Array,
    private readonly posBytes: Uint8Array,
    dvd: Uint8Array,
    maxDoc: number,
  ) {
    this.hasPositions = info.positions;
    this.norms = info.norms === null ? null : (viewColumn(dvd, info.norms) as Uint8Array);
    this.docCount = info.docCount;
    this.sumTotalTermFreq = info.sumTotalTermFreq;
    this.metaReader = new TermMetaReader(terms, info.positions);
    this.bitsWords = (maxDoc + 31) >>> 5;
  }

  private readonly bitsWords: number;

  docFreq(termId: number): number {
    return this.metaOf(termId).docFreq;
  }

  private metaOf(termId: number): TermPostingsMeta {
    let meta = this.recentMeta.get(termId);
    if (meta !== undefined) return meta;
    meta = this.metaReader.read(termId, { docFreq: 0, docPointer: 0, posPointer: 0, singleDoc: -1, singleFreq: 0, singlePosition: -1, dense: false });
    if (this.recentMeta.size >= RECENT_TERMS) this.recentMeta.delete(this.recentMeta.keys().next().value!);
    this.recentMeta.set(termId, meta);
    return meta;
  }

  postings(termId: number, reuse?: PostingsCursor): PostingsCursor {
    // A merge walks every term once, reusing one cursor: nothing of it is worth keeping.
    if (reuse instanceof MappedPostingsCursor && reuse.owner === this) return reuse.reset(this.recentMeta.get(termId) ?? this.metaReader.read(termId, this.scratch));
    const meta = this.metaOf(termId);
    const spare = this.spare.pop();
    if (spare !== undefined) return spare.reset(meta);
    const cursor = new MappedPostingsCursor(this.docBytes, this.hasPositions ? this.posBytes : null, this.hasPositions, this.bitsWords);
    cursor.owner = this;
    return cursor.reset(meta);
  }

  release(cursor: PostingsCursor): void {
    if (cursor instanceof MappedPostingsCursor && cursor.owner === this && this.spare.length < SPARE_CURSORS && !this.spare.includes(cursor)) this.spare.push(cursor);
  }
}
