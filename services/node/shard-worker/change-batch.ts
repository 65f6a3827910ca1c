/**
 * The document changes one applied batch of a shard copy makes to its
 * searchable segments (index a version of a doc, delete a doc), packed into
 * one buffer that moves to the copy's worker thread without a copy
 * (transferred) and without an object per document on either side.
 *
 * Layout, little endian: per change a kind byte, a flags byte, version and
 * seq_no as doubles, then length-prefixed UTF-8 id, routing (when flagged)
 * and source (index only).
 */

const KIND_INDEX = 0;
const KIND_DELETE = 1;
/** The doc may have a live copy in the segments (its doc store had one). */
const FLAG_MAY_REPLACE = 1;
const FLAG_ROUTING = 2;

export interface ChangeVisitor {
  index(id: string, version: number, seqNo: number, routing: string | null, source: Buffer, mayReplace: boolean): void;
  delete(id: string): void;
}

export class ChangeBatchWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private at = 0;
  private n = 0;

  /** Changes written since the last take(). */
  get count(): number {
    return this.n;
  }

  index(id: string, version: number, seqNo: number, routing: string | null, source: Buffer, mayReplace: boolean): void {
    const idLen = Buffer.byteLength(id);
    const routingLen = routing === null ? 0 : Buffer.byteLength(routing);
    this.reserve(18 + 4 + idLen + (routing === null ? 0 : 4 + routingLen) + 4 + source.length);
    this.head(KIND_INDEX, (mayReplace ? FLAG_MAY_REPLACE : 0) | (routing === null ? 0 : FLAG_ROUTING), version, seqNo);
    this.string(id, idLen);
    if (routing !== null) this.string(routing, routingLen);
    this.buf.writeUInt32LE(source.length, this.at);
    source.copy(this.buf, this.at + 4);
    this.at += 4 + source.length;
    this.n++;
  }

  delete(id: string): void {
    const idLen = Buffer.byteLength(id);
    this.reserve(18 + 4 + idLen);
    this.head(KIND_DELETE, 0, 0, 0);
    this.string(id, idLen);
    this.n++;
  }

  /** The changes written so far, in a buffer of their own (transferable); the writer starts over. */
  take(): Uint8Array {
    const out = new Uint8Array(this.at);
    out.set(this.buf.subarray(0, this.at));
    this.at = 0;
    this.n = 0;
    return out;
  }

  private head(kind: number, flags: number, version: number, seqNo: number): void {
    const b = this.buf;
    b[this.at] = kind;
    b[this.at + 1] = flags;
    b.writeDoubleLE(version, this.at + 2);
    b.writeDoubleLE(seqNo, this.at + 10);
    this.at += 18;
  }

  private string(s: string, byteLength: number): void {
    this.buf.writeUInt32LE(byteLength, this.at);
    this.buf.write(s, this.at + 4, byteLength, 'utf8');
    this.at += 4 + byteLength;
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.at + bytes, 2 * this.buf.length));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
}

/** Calls `visit` for each change of a batch, in order. Sources are views of `bytes`. */
export function readChangeBatch(bytes: Uint8Array, visit: ChangeVisitor): void {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const str = (): string => {
    const len = b.readUInt32LE(at);
    const s = b.toString('utf8', at + 4, at + 4 + len);
    at += 4 + len;
    return s;
  };
  while (at < b.length) {
    const kind = b[at];
    const flags = b[at + 1];
    const version = b.readDoubleLE(at + 2);
    const seqNo = b.readDoubleLE(at + 10);
    at += 18;
    const id = str();
    if (kind === KIND_DELETE) {
      visit.delete(id);
      continue;
    }
    const routing = (flags & FLAG_ROUTING) !== 0 ? str() : null;
    const len = b.readUInt32LE(at);
    const source = b.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    visit.index(id, version, seqNo, routing, source, (flags & FLAG_MAY_REPLACE) !== 0);
  }
}
