/**
 * Stored fields (the `.fdt` file): each document's `_source` as the client
 * sent it and its `_routing`, in blocks of about 16 KB compressed with
 * Zstandard (about 8:1 on pass records), as Lucene compresses stored fields
 * in blocks. A block index at the end maps a doc to its block.
 *
 *   block     = u32 rawLength, zstd(entry*)
 *   entry     = vint(sourceLength * 2 + hasRouting), [units(routing)], source bytes
 *   index     = pad to 4, u32 firstDoc * blocks, u32 blockAt * (blocks + 1)
 */
import { compress, decompress } from 'zstd-napi';
import { ByteReader } from './byte-reader.ts';
import { ByteWriter } from './byte-writer.ts';
import type { ByteSink } from './front-coded.ts';
import type { StoredDocument, StoredFields } from '../segment/types.ts';

/** Raw bytes gathered before a block is compressed (Lucene's BEST_SPEED stored fields use 16 KB chunks too). */
export const STORED_BLOCK_BYTES = 16 * 1024;
const ZSTD_LEVEL = 1;

export interface StoredFieldsLayout {
  readonly blocks: number;
  /** File offsets of the u32 first docs and the u32 block offsets. */
  readonly firstDocsAt: number;
  readonly blockAtsAt: number;
  readonly docs: number;
}

export class StoredFieldsWriter {
  private readonly raw = new ByteWriter(STORED_BLOCK_BYTES * 2);
  private readonly firstDocs: number[] = [];
  private readonly blockAts: number[] = [];
  private docs = 0;
  private blockFirst = 0;

  constructor(private readonly out: ByteSink) {}

  add(source: Uint8Array, routing: string | null): void {
    const r = this.raw;
    r.vint(source.length * 2 + (routing === null ? 0 : 1));
    if (routing !== null) r.units(routing, 0, routing.length);
    r.raw(source);
    this.docs++;
    if (r.length >= STORED_BLOCK_BYTES) this.flushBlock();
  }

  private flushBlock(): void {
    const r = this.raw;
    if (this.docs === this.blockFirst) return;
    this.firstDocs.push(this.blockFirst);
    this.blockAts.push(this.out.position);
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, r.length, true);
    this.out.write(header);
    this.out.write(compress(r.view(), { compressionLevel: ZSTD_LEVEL }));
    r.clear();
    this.blockFirst = this.docs;
  }

  finish(): StoredFieldsLayout {
    this.flushBlock();
    this.blockAts.push(this.out.position);
    this.out.align(4);
    const firstDocsAt = this.out.position;
    this.out.writeArray(Uint32Array.from(this.firstDocs));
    const blockAtsAt = this.out.position;
    this.out.writeArray(Uint32Array.from(this.blockAts));
    return { blocks: this.firstDocs.length, firstDocsAt, blockAtsAt, docs: this.docs };
  }
}

/** Reads documents from a mapped `.fdt`; the last block read stays decompressed. */
export class MappedStoredFields implements StoredFields {
  private readonly firstDocs: Uint32Array;
  private readonly blockAts: Uint32Array;
  private cachedBlock = -1;
  private block: Buffer = Buffer.alloc(0);
  /** Per doc of the cached block: where its entry starts. */
  private entryStarts = new Int32Array(64);

  constructor(
    private readonly file: Uint8Array,
    layout: StoredFieldsLayout,
  ) {
    this.firstDocs = new Uint32Array(file.buffer, file.byteOffset + layout.firstDocsAt, layout.blocks);
    this.blockAts = new Uint32Array(file.buffer, file.byteOffset + layout.blockAtsAt, layout.blocks + 1);
  }

  private blockOf(doc: number): number {
    const f = this.firstDocs;
    let lo = 0;
    let hi = f.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (f[mid]! <= doc) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private load(b: number): void {
    if (b === this.cachedBlock) return;
    const at = this.blockAts[b]!;
    const end = this.blockAts[b + 1]!;
    const rawLength = new DataView(this.file.buffer, this.file.byteOffset + at, 4).getUint32(0, true);
    const block = decompress(this.file.subarray(at + 4, end));
    if (block.length !== rawLength) throw new Error(`stored fields block ${b} decompressed to ${block.length} bytes, expected ${rawLength}`);
    this.block = block;
    const docs = (b + 1 < this.firstDocs.length ? this.firstDocs[b + 1]! : Infinity) - this.firstDocs[b]!;
    const r = new ByteReader(block);
    let i = 0;
    while (r.pos < block.length && i < docs) {
      if (i === this.entryStarts.length) {
        const grown = new Int32Array(2 * i);
        grown.set(this.entryStarts);
        this.entryStarts = grown;
      }
      this.entryStarts[i++] = r.pos;
      const header = r.vint();
      if ((header & 1) === 1) r.skipUnits();
      r.pos += Math.floor(header / 2);
    }
    this.cachedBlock = b;
  }

  document(doc: number): StoredDocument {
    const b = this.blockOf(doc);
    this.load(b);
    const r = new ByteReader(this.block, this.entryStarts[doc - this.firstDocs[b]!]!);
    const header = r.vint();
    const routing = (header & 1) === 1 ? r.units() : null;
    const length = Math.floor(header / 2);
    return { source: this.block.subarray(r.pos, r.pos + length), routing };
  }

  sourceLength(doc: number): number {
    const b = this.blockOf(doc);
    this.load(b);
    const r = new ByteReader(this.block, this.entryStarts[doc - this.firstDocs[b]!]!);
    return Math.floor(r.vint() / 2);
  }
}
