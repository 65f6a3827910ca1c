/**
 * Stored fields (the `.fdt` file): each document's `_source` as the client
 * sent it and its `_routing`, in blocks of about 8 KB compressed with
 * Zstandard against a dictionary of the segment's own documents, as Lucene
 * compresses stored fields in blocks (and, since 8.7, with a preset
 * dictionary per file). A block index at the end maps a doc to its block.
 *
 *   file      = [dictionary], block*, index
 *   dictionary = raw bytes: entries sampled evenly from the segment's docs (a
 *               Zstandard "raw content" dictionary; absent in small segments)
 *   block     = u32 rawLength, zstd(entry*)   (compressed with the dictionary when there is one)
 *   entry     = vint(sourceLength * 2 + hasRouting), [units(routing)], source bytes
 *   index     = pad to 4, u32 firstDoc * blocks, u32 blockAt * (blocks + 1)
 *
 * The dictionary holds what documents of one index share (field names, value
 * shapes, common values), so a block need not learn it again from its own
 * few documents: on pass records 8 KB blocks shrink 7.3:1 with it, 6.3:1
 * without; a block decompresses in about the same time (7.2 µs against 6.8
 * µs for 8 KB of pass records, docs/performance.md).
 */
import zstd from 'zstd-napi/binding.js';
import { ByteReader } from './byte-reader.ts';
import { ByteWriter } from './byte-writer.ts';
import { KeptBytes } from './kept-bytes.ts';
import type { ByteSink } from './front-coded.ts';
import type { StoredDocument, StoredFields } from '../segment/types.ts';

/**
 * Raw bytes gathered before a block is compressed. A fetch of a hit
 * decompresses its whole block (Zstandard cannot stop early the way Lucene's
 * LZ4 does), and the hits of a selective query are spread one per block: 8 KB
 * halves that work against 16 KB; the dictionary wins back the bytes smaller
 * blocks lose. The reader takes blocks of any size.
 */
export const STORED_BLOCK_BYTES = 8 * 1024;
/** Most bytes of a segment's dictionary (16 KB: 64 KB gains under 1 % more and decompresses slower). */
export const STORED_DICTIONARY_BYTES = 16 * 1024;
/**
 * A dictionary is stored once per segment: worth it when the segment's raw
 * documents are at least this many times its size (saving about 12 % of
 * the compressed size, 1/60 of the raw size, it pays for itself from about
 * 60 times; twice that leaves a clear gain).
 */
const DICTIONARY_PAYBACK = 128;
const ZSTD_LEVEL = 1;

/**
 * The dictionary for a segment of `count` documents, `doc(i)` giving the
 * i-th: whole entries of documents taken evenly across the segment, up to
 * STORED_DICTIONARY_BYTES; null when the documents are too few to pay for it.
 */
export function sampleDictionary(count: number, doc: (i: number) => { source: Uint8Array; routing: string | null }): Uint8Array | null {
  if (count === 0) return null;
  // Estimate the segment's raw size from a few docs first.
  const probes = Math.min(count, 16);
  let probed = 0;
  for (let k = 0; k < probes; k++) probed += doc(Math.floor((k * count) / probes)).source.length;
  const estimated = (probed / probes) * count;
  const size = Math.min(STORED_DICTIONARY_BYTES, Math.floor(estimated / DICTIONARY_PAYBACK));
  if (size < 1024) return null;
  const out = new ByteWriter(size + 1024);
  const average = Math.max(1, probed / probes);
  const picks = Math.min(count, Math.ceil(size / average) + 1);
  for (let k = 0; k < picks && out.length < size; k++) {
    const d = doc(Math.floor((k * count) / picks));
    writeEntry(out, d.source, d.routing);
  }
  // Zstandard reads a dictionary that starts with its magic number as a trained one: never let a sample do so.
  const bytes = out.view().slice(0, Math.min(out.length, size));
  return isTrainedDictionaryMagic(bytes) ? null : bytes;
}

function isTrainedDictionaryMagic(b: Uint8Array): boolean {
  return b.length >= 4 && ((b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0) === zstd.MAGIC_DICTIONARY >>> 0;
}

function writeEntry(r: ByteWriter, source: Uint8Array, routing: string | null): void {
  r.vint(source.length * 2 + (routing === null ? 0 : 1));
  if (routing !== null) r.units(routing, 0, routing.length);
  r.raw(source);
}

export interface StoredFieldsLayout {
  readonly blocks: number;
  /** File offset and length of the dictionary the blocks are compressed with (length 0: none). */
  readonly dictAt: number;
  readonly dictLength: number;
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
  private readonly dictAt: number;
  private readonly dictLength: number;
  private readonly cdict: zstd.CDict | null;
  private readonly cctx = new zstd.CCtx();
  private packed = new Uint8Array(zstd.compressBound(STORED_BLOCK_BYTES * 2));

  /** `dictionary` (sampleDictionary) is written first and every block is compressed with it. */
  constructor(
    private readonly out: ByteSink,
    dictionary: Uint8Array | null = null,
  ) {
    this.dictAt = out.position;
    this.dictLength = dictionary === null ? 0 : dictionary.length;
    this.cdict = dictionary === null ? null : new zstd.CDict(dictionary, ZSTD_LEVEL);
    if (dictionary !== null) out.write(dictionary);
  }

  add(source: Uint8Array, routing: string | null): void {
    writeEntry(this.raw, source, routing);
    if (routing !== null) this.routed++;
    this.docs++;
    const r = this.raw;
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
    const bound = zstd.compressBound(r.length);
    if (this.packed.length < bound) this.packed = new Uint8Array(bound);
    const n = this.cdict === null ? this.cctx.compress(this.packed, r.view(), ZSTD_LEVEL) : this.cctx.compressUsingCDict(this.packed, r.view(), this.cdict);
    this.out.writePrefix(this.packed, n);
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
    return { blocks: this.firstDocs.length, dictAt: this.dictAt, dictLength: this.dictLength, firstDocsAt, blockAtsAt, docs: this.docs, routed: this.routed };
  }
}

/** One decompression context per thread, reused: a context per call costs more than decompressing a block. */
let dctx: zstd.DCtx | null = null;

/**
 * Decompressed blocks kept by this thread, about the least recently used
 * out first (blockCache), at most STORED_BLOCK_CACHE_BYTES: the hits of a selective search sit one a
 * block, so fetching them again (the same search repeated, the next page of
 * it) decompresses every block again (30 % of a shard worker's time on the
 * trajectory of 1,000 hits). Blocks a scan reads in file order (a scroll, a
 * reindex) are not kept: it reads each once and would push the others out.
 */
export const STORED_BLOCK_CACHE_BYTES = 8 * 1024 * 1024;

interface CachedBlock {
  readonly bytes: Uint8Array;
  /** Per doc of the block: where its entry starts. */
  readonly starts: Int32Array;
  /** The reader's map holding it, and its block number there. */
  readonly owner: Map<number, CachedBlock>;
  readonly block: number;
  /** Read since the eviction sweep last passed it (second chance). */
  used: boolean;
}

/**
 * Each reader finds its kept blocks by block number in a map of its own; the
 * thread's budget is kept here over all of them. Eviction gives every block
 * read since the sweep last passed it a second chance (CLOCK), an
 * approximation of least recently used that changes nothing on a read but a
 * flag (a string key built per read, and moving the entry to the end of one
 * map at every read, cost more than the read).
 */
class BlockCache {
  /** Every kept block, oldest (or last passed by the sweep) first. */
  private readonly order = new Set<CachedBlock>();
  private bytes = 0;

  constructor(private readonly limit: number) {}

  put(block: CachedBlock): void {
    const size = block.bytes.byteLength + block.starts.byteLength;
    if (size > this.limit || block.owner.has(block.block)) return;
    block.owner.set(block.block, block);
    this.order.add(block);
    this.bytes += size;
    while (this.bytes > this.limit) {
      const b = this.order.values().next().value as CachedBlock;
      this.order.delete(b);
      if (b.used && b !== block) {
        b.used = false;
        this.order.add(b);
      } else {
        b.owner.delete(b.block);
        this.bytes -= b.bytes.byteLength + b.starts.byteLength;
      }
    }
  }
}

const blockCache = new BlockCache(STORED_BLOCK_CACHE_BYTES);

/**
 * Entries (routing and source) of documents read at random, copied out of
 * their blocks into one buffer per thread, at most STORED_ENTRY_CACHE_BYTES:
 * a hit read again (the same selective search repeated, the trajectory of a
 * plate) is then one lookup and a few adjacent cache lines, where finding it
 * in its kept block (blockCache) read the block index, the kept block's
 * record and offsets and a page of its own (about half of what rendering such
 * a hit cost in a shard worker). Oldest out first.
 */
export const STORED_ENTRY_CACHE_BYTES = 4 * 1024 * 1024;

const entryCache = new KeptBytes(STORED_ENTRY_CACHE_BYTES);

/**
 * Blocks a thread reads from the maps between two releases of the pages it
 * mapped. A read faults in a block, pages of the block index and, once per
 * segment, the dictionary, and the kernel maps the page cache's pages around
 * each fault with it (16 pages on a fault, whatever madvise(RANDOM) says):
 * 1,000 hits fetched kept about 170 MB of `.fdt` pages in the process at 20M
 * docs. Those pages count in its RSS until unmapped, though a read used a
 * few KB of them; every STORED_READS_PER_RELEASE reads, the thread drops the
 * pages of the files read since (they stay in the page cache), which bounds
 * what stored fields keep mapped to that many reads' worth (64-200 KB
 * each: at most ~13 MB a thread), whatever the index size (docs/performance.md, stop 32).
 */
export const STORED_READS_PER_RELEASE = 64;
/** Readers that read blocks from their maps since the last release, and how many blocks. */
const readSinceRelease = new Set<MappedStoredFields>();
let readsSinceRelease = 0;

function noteMapRead(reader: MappedStoredFields): void {
  readSinceRelease.add(reader);
  if (++readsSinceRelease >= STORED_READS_PER_RELEASE) releaseStoredPages();
}

/** Drops the pages this thread's stored-field reads mapped since the last release (they stay in the page cache). */
export function releaseStoredPages(): void {
  for (const r of readSinceRelease) r.releasePages();
  readSinceRelease.clear();
  readsSinceRelease = 0;
}


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
  /** This reader's blocks in `blockCache`, by block number. */
  private readonly kept = new Map<number, CachedBlock>();
  /** This reader's entries in `entryCache`: where each starts, by doc. */
  private readonly keptEntries = new Map<number, number>();
  /** The bytes the last `locate` found its entry in. */
  private located: Uint8Array = new Uint8Array(0);
  /** `entryStarts` is a kept block's (blockCache): the next block read must not write into it. */
  private sharedStarts = false;
  private block: Uint8Array = new Uint8Array(0);
  /** The decompressed part of `block`. */
  private view: Uint8Array = this.block;
  /** Per doc of the cached block: where its entry starts. */
  private entryStarts: Int32Array = new Int32Array(64);
  private readonly dictionary: Uint8Array | null;
  /** The dictionary prepared for decompression, made at the first read (a segment never read costs none). */
  private ddict: zstd.DDict | null = null;

  /** `release` drops the pages of `file` this process mapped (a MappedSegment's `.fdt` map; none for bytes in memory). */
  constructor(
    private readonly file: Uint8Array,
    layout: StoredFieldsLayout,
    private readonly release: (() => void) | null = null,
  ) {
    this.firstDocs = new Uint32Array(file.buffer, file.byteOffset + layout.firstDocsAt, layout.blocks);
    this.blockAts = new Uint32Array(file.buffer, file.byteOffset + layout.blockAtsAt, layout.blocks + 1);
    this.routed = layout.routed;
    this.dictionary = layout.dictLength > 0 ? file.subarray(layout.dictAt, layout.dictAt + layout.dictLength) : null;
  }

  /** Drops the file's mapped pages (releaseStoredPages). */
  releasePages(): void {
    this.release?.();
  }

  mayHaveRouting(): boolean {
    return this.routed !== 0;
  }

  private blockOf(doc: number): number {
    const f = this.firstDocs;
    // The block read last (a scan reads its docs one after another).
    const c = this.cachedBlock;
    if (c >= 0 && doc >= f[c]! && (c + 1 === f.length || doc < f[c + 1]!)) return c;
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
    const sequential = b === this.cachedBlock + 1;
    const kept = sequential ? undefined : this.kept.get(b);
    if (kept !== undefined) {
      kept.used = true;
      this.view = kept.bytes;
      this.entryStarts = kept.starts;
      this.sharedStarts = true;
      this.cachedBlock = b;
      return;
    }
    if (this.sharedStarts) {
      this.entryStarts = new Int32Array(64);
      this.sharedStarts = false;
    }
    const at = this.blockAts[b]!;
    const end = this.blockAts[b + 1]!;
    const f = this.file;
    const rawLength = (f[at]! | (f[at + 1]! << 8) | (f[at + 2]! << 16) | (f[at + 3]! << 24)) >>> 0;
    // Invalidate first: a failed read must not leave the previous block's entries looking current.
    this.cachedBlock = -1;
    if (this.block.length < rawLength) this.block = new Uint8Array(Math.max(rawLength, 2 * this.block.length));
    dctx ??= new zstd.DCtx();
    let length: number;
    if (this.dictionary === null) {
      length = dctx.decompress(this.block.subarray(0, rawLength), f.subarray(at + 4, end));
    } else {
      this.ddict ??= new zstd.DDict(this.dictionary);
      length = dctx.decompressUsingDDict(this.block.subarray(0, rawLength), f.subarray(at + 4, end), this.ddict);
    }
    if (this.release !== null) noteMapRead(this);
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
    if (!sequential) blockCache.put({ bytes: block.slice(), starts: this.entryStarts.slice(0, i), owner: this.kept, block: b, used: false });
  }

  /**
   * Where doc's entry starts in `this.located`: in the block read last (a
   * scan), in entryCache, or in its block, read now (and the entry kept in
   * entryCache unless the block follows the one read before, as in a scan).
   */
  private locate(doc: number): number {
    const f = this.firstDocs;
    const c = this.cachedBlock;
    if (c >= 0 && doc >= f[c]! && (c + 1 === f.length || doc < f[c + 1]!)) {
      this.located = this.view;
      return this.entryStarts[doc - f[c]!]!;
    }
    const found = this.keptEntries.get(doc);
    if (found !== undefined) {
      this.located = entryCache.bytes;
      return found;
    }
    const b = this.blockOf(doc);
    const sequential = b === this.cachedBlock + 1;
    this.load(b);
    const at = this.entryStarts[doc - f[b]!]!;
    this.located = this.view;
    if (sequential) return at;
    const r = new ByteReader(this.view, at);
    const header = r.vint();
    if ((header & 1) === 1) r.skipUnits();
    const end = r.pos + Math.floor(header / 2);
    const kept = entryCache.reserve(this.keptEntries, doc, end - at);
    if (kept >= 0) entryCache.bytes.set(this.view.subarray(at, end), kept);
    return at;
  }

  document(doc: number): StoredDocument {
    const at = this.locate(doc);
    const r = new ByteReader(this.located, at);
    const header = r.vint();
    const routing = (header & 1) === 1 ? r.units() : null;
    const length = Math.floor(header / 2);
    return { source: this.located.subarray(r.pos, r.pos + length), routing };
  }

  sourceLength(doc: number): number {
    const at = this.locate(doc);
    const r = new ByteReader(this.located, at);
    return Math.floor(r.vint() / 2);
  }
}
