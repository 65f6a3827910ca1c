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
import { compress } from 'zstd-napi';
import zstd from 'zstd-napi/binding.js';
import { ByteReader } from './byte-reader.ts';
import { ByteWriter } from './byte-writer.ts';
import type { ByteSink } from './front-coded.ts';
import type { StoredDocument, StoredFields } from '../segment/types.ts';

/**
 * Raw bytes gathered before a block is compressed. A fetch of a hit
 * decompresses its whole block (Zstandard cannot stop early the way Lucene's
 * LZ4 does), and the hits of a selective query are spread one per block: 8 KB
 * halves that work against 16 KB for 12 % more bytes on disk (pass records:
 * 6.9:1 instead of 7.7:1). The reader takes blocks of any size.
 */
export const STORED_BLOCK_BYTES = 8 * 1024;
const ZSTD_LEVEL = 1;

export interface StoredFieldsLayout {
  readonly blocks: number;
  /** File offsets of the u32 first docs and the u32 block offsets. */
  readonly firstDocsAt: number;
  readonly blockAtsAt: number;
  readonly docs: number;
  /** Docs stored with a `_routing` (absent in segments written before it was counted: unknown). */
  readonly routed?: number;
}

export class StoredFieldsWriter {
  private readonly raw = new ByteWriter(STORED_BLOCK_BYTES * 2);
  private readonly firstDocs: number[] = [];
  private readonly blockAts: number[] = [];
  private docs = 0;
  private routed = 0;
  private blockFirst = 0;

  constructor(private readonly out: ByteSink) {}

  add(source: Uint8Array, routing: string | null): void {
    const r = this.raw;
    r.vint(source.length * 2 + (routing === null ? 0 : 1));
    if (routing !== null) {
      r.units(routing, 0, routing.length);
      this.routed++;
    }
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
    return { blocks: this.firstDocs.length, firstDocsAt, blockAtsAt, docs: this.docs, routed: this.routed };
  }
}

/** One decompression context per thread, reused: a context per call costs more than decompressing a block. */
let dctx: zstd.DCtx | null = null;

/**
 * Reads documents from a mapped `.fdt`; the last block read stays
 * decompressed, in a buffer reused from block to block (a document's bytes
 * are valid until the next read, as StoredFields says).
 */
export class MappedStoredFields implements StoredFields {
  private readonly firstDocs: Uint32Array;
  private readonly blockAts: Uint32Array;
  private readonly routed: number | undefined;
  private cachedBlock = -1;
  private block: Uint8Array = new Uint8Array(0);
  /** The decompressed part of `block`. */
  private view: Uint8Array = this.block;
  /** Per doc of the cached block: where its entry starts. */
  private entryStarts = new Int32Array(64);

  constructor(
    private readonly file: Uint8Array,
    layout: StoredFieldsLayout,
  ) {
    this.firstDocs = new Uint32Array(file.buffer, file.byteOffset + layout.firstDocsAt, layout.blocks);
    this.blockAts = new Uint32Array(file.buffer, file.byteOffset + layout.blockAtsAt, layout.blocks + 1);
    this.routed = layout.routed;
  }

  mayHaveRouting(): boolean {
    return this.routed !== 0;
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
    const f = this.file;
    const rawLength = (f[at]! | (f[at + 1]! << 8) | (f[at + 2]! << 16) | (f[at + 3]! << 24)) >>> 0;
    // Invalidate first: a failed read must not leave the previous block's entries looking current.
    this.cachedBlock = -1;
    if (this.block.length < rawLength) this.block = new Uint8Array(Math.max(rawLength, 2 * this.block.length));
    dctx ??= new zstd.DCtx();
    const length = dctx.decompress(this.block.subarray(0, rawLength), f.subarray(at + 4, end));
    if (length !== rawLength) throw new Error(`stored fields block ${b} decompressed to ${length} bytes, expected ${rawLength}`);
    const block = (this.view = this.block.subarray(0, length));
    const docs = (b + 1 < this.firstDocs.length ? this.firstDocs[b + 1]! : Infinity) - this.firstDocs[b]!;
    const r = new ByteReader(block);
    let i = 0;
    while (r.pos < length && i < docs) {
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
    const r = new ByteReader(this.view, this.entryStarts[doc - this.firstDocs[b]!]!);
    const header = r.vint();
    const routing = (header & 1) === 1 ? r.units() : null;
    const length = Math.floor(header / 2);
    return { source: this.view.subarray(r.pos, r.pos + length), routing };
  }

  sourceLength(doc: number): number {
    const b = this.blockOf(doc);
    this.load(b);
    const r = new ByteReader(this.view, this.entryStarts[doc - this.firstDocs[b]!]!);
    return Math.floor(r.vint() / 2);
  }
}
