/**
 * Byte-identical sections of one segment's files, written once. A keyword
 * field that repeats the document's `_id` (the pass records' `event_id`:
 * the application indexes each record under it) has the very dictionary and
 * ordinals of `_id`, and every field that all docs have has the same
 * presence bitset; each such section is a few bytes a doc (at 5 million
 * records, `event_id` alone was 52 MiB). The segment's table of contents
 * then points both fields at the one copy; readers see the same bytes
 * either way.
 *
 * Sections are compared by a SHA-256 of their bytes, the kind of the
 * section and how it is read (a dictionary's metadata is read differently
 * for fields with positions), so only identical content is shared.
 */
import { createHash } from 'node:crypto';
import { ByteWriter } from '../codec/byte-writer.ts';
import type { ByteSink, DictionaryLayout } from '../codec/front-coded.ts';
import type { FileOutput } from '../codec/file-output.ts';
import { toColumn, writeColumn, type ColumnKind, type ColumnLayout } from '../codec/typed-columns.ts';

/**
 * Largest dictionary held in memory to be compared before it is written; a
 * larger one (an n-gram field of millions of docs) streams to the file and
 * is never shared.
 */
const MAX_BUFFERED_DICTIONARY = 32 * 1024 * 1024;

/** A ByteSink that gathers a dictionary in memory, at the file position it will be written at. */
export class DictionarySink implements ByteSink {
  private readonly buffer = new ByteWriter(4096);
  private readonly base: number;
  /** The bytes went to the file (too large to hold): not comparable. */
  private direct = false;

  constructor(private readonly out: FileOutput) {
    this.base = out.position;
  }

  get position(): number {
    return this.direct ? this.out.position : this.base + this.buffer.length;
  }

  get streamed(): boolean {
    return this.direct;
  }

  bytes(): Uint8Array {
    return this.buffer.view();
  }

  private room(n: number): boolean {
    if (this.direct) return false;
    if (this.buffer.length + n <= MAX_BUFFERED_DICTIONARY) return true;
    this.out.write(this.buffer.view());
    this.buffer.clear();
    this.direct = true;
    return false;
  }

  write(bytes: Uint8Array): void {
    if (this.room(bytes.length)) this.buffer.raw(bytes);
    else this.out.write(bytes);
  }

  writePrefix(src: Uint8Array, length: number): void {
    if (this.room(length)) this.buffer.raw(src.subarray(0, length));
    else this.out.writePrefix(src, length);
  }

  align(alignment: number): void {
    const pad = (alignment - (this.position % alignment)) % alignment;
    if (pad > 0) this.write(new Uint8Array(pad));
  }

  writeArray(array: ArrayBufferView): void {
    this.write(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  }

  /** Writes the gathered bytes to the file (which must not have moved since). */
  commit(): void {
    if (this.direct) return;
    if (this.out.position !== this.base) throw new Error(`a dictionary gathered at ${this.base} is written at ${this.out.position}`);
    this.out.write(this.buffer.view());
    this.buffer.clear();
  }
}

export class SharedSections {
  private readonly dictionaries = new Map<string, DictionaryLayout>();
  private readonly columns = new Map<string, ColumnLayout>();
  private readonly bitsets = new Map<string, number>();

  /** The dictionary `sink` gathered: written, or an identical one written before (its layout). */
  dictionary(sink: DictionarySink, layout: DictionaryLayout, readAs: string): DictionaryLayout {
    if (sink.streamed) return layout;
    const key = `${readAs}|${layout.count}|${layout.withMeta}|${layout.blockSize}|${layout.blocksAt - layout.at}|${digest(sink.bytes())}`;
    const earlier = this.dictionaries.get(key);
    if (earlier !== undefined) return earlier;
    sink.commit();
    this.dictionaries.set(key, layout);
    return layout;
  }

  /** writeColumn, or the layout of an identical column written before. */
  column(out: FileOutput, values: ArrayLike<number>, n: number, kind: ColumnKind): ColumnLayout {
    const typed = toColumn(values, n, kind);
    const key = `${kind}|${n}|${digest(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength))}`;
    const earlier = this.columns.get(key);
    if (earlier !== undefined) return earlier;
    const layout = writeColumn(out, typed, n, kind);
    this.columns.set(key, layout);
    return layout;
  }

  /** Writes a bitset (8-aligned), or finds an identical one written before; returns its offset. */
  bitset(out: FileOutput, bits: Uint32Array): number {
    const key = `${bits.length}|${digest(new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength))}`;
    const earlier = this.bitsets.get(key);
    if (earlier !== undefined) return earlier;
    out.align(8);
    const at = out.position;
    out.writeArray(bits);
    this.bitsets.set(key, at);
    return at;
  }
}

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}
