/**
 * The Avro binary body of a DocOp (schemas/doc-op.avsc, the current version)
 * written and read field by field: one exactly sized buffer per record and
 * no per-field allocations, where avsc spends several microseconds a record
 * (every op of a bulk load goes through both). The bytes are Avro's: zigzag
 * varints for int, long, enum and union indexes, length-prefixed strings and
 * bytes, one byte per boolean. test/unit/records/doc-op-binary.test.ts checks
 * them byte for byte against avsc with the same schema.
 */
import type { DocOp, OpType, UpdateBody, VersionType } from './doc-op-types.ts';

/** Enum symbols in schema order. */
const OP_TYPES: readonly OpType[] = ['INDEX', 'CREATE', 'UPDATE', 'DELETE'];
const VERSION_TYPES: readonly VersionType[] = ['INTERNAL', 'EXTERNAL', 'EXTERNAL_GTE', 'FORCE'];
const OP_INDEX: Readonly<Record<OpType, number>> = { INDEX: 0, CREATE: 1, UPDATE: 2, DELETE: 3 };
const VERSION_TYPE_INDEX: Readonly<Record<VersionType, number>> = { INTERNAL: 0, EXTERNAL: 1, EXTERNAL_GTE: 2, FORCE: 3 };

/** Longs in this range zigzag in 32-bit integer arithmetic. */
const SMALL_LONG = 0x40000000;
const TWO_POW_63 = 2 ** 63;
/** Varint bytes that together stay below 2^53 (7 bits each), so a double accumulates them exactly. */
const EXACT_VARINT_BYTES = 7;

function stringSize(s: string): number {
  const n = Buffer.byteLength(s, 'utf8');
  return longSize(n) + n;
}

function bytesSize(b: Buffer): number {
  return longSize(b.length) + b.length;
}

function longSize(n: number): number {
  if (n >= 0 && n < 64) return 1;
  if (n < -SMALL_LONG) return bigLongSize(n);
  let size = 1;
  let f = n >= 0 ? 2 * n : -2 * n - 1;
  while (f >= 128) {
    f = Math.floor(f / 128);
    size++;
  }
  return size;
}

/** Negative longs beyond the small range: -2n - 1 is not always an exact double, so count in BigInt. */
function bigLongSize(n: number): number {
  let z = BigInt.asUintN(64, (BigInt(n) << 1n) ^ (BigInt(n) >> 63n));
  let size = 1;
  while (z >= 128n) {
    z >>= 7n;
    size++;
  }
  return size;
}

/** Size in bytes of the body of `op`. */
function bodySize(op: DocOp): number {
  let size = stringSize(op.request_id) + longSize(op.item) + 1 + stringSize(op.index_uuid) + stringSize(op.type) + stringSize(op.id);
  size += 1 + (op.routing === null ? 0 : stringSize(op.routing));
  size += 1 + (op.source === null ? 0 : bytesSize(op.source));
  size += 1 + (op.version === null ? 0 : longSize(Math.trunc(op.version)));
  size += 1;
  size += 1 + (op.if_seq_no === null ? 0 : longSize(Math.trunc(op.if_seq_no)));
  size += 1 + (op.if_primary_term === null ? 0 : longSize(Math.trunc(op.if_primary_term)));
  size += 1;
  const u = op.update;
  if (u !== null) {
    size += 1 + (u.doc === null ? 0 : bytesSize(u.doc)) + 1 + (u.upsert === null ? 0 : bytesSize(u.upsert)) + 2;
    size += 1 + (u.script === null ? 0 : stringSize(u.script.source) + stringSize(u.script.lang) + stringSize(u.script.params_json)) + 2;
  }
  size += longSize(Math.trunc(op.timestamp));
  return size;
}

class Writer {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
  ) {
    this.pos = start;
  }

  long(value: number): void {
    const n = Math.trunc(value);
    const buf = this.buf;
    if (n >= -SMALL_LONG && n < SMALL_LONG) {
      let m = n >= 0 ? n << 1 : (~n << 1) | 1;
      while (m > 0x7f) {
        buf[this.pos++] = (m & 0x7f) | 0x80;
        m >>>= 7;
      }
      buf[this.pos++] = m;
      return;
    }
    if (!(n > -TWO_POW_63 && n < TWO_POW_63)) throw new RangeError(`long out of range: ${value}`);
    if (n > 0) {
      // 2n is an exact double, and so is every remainder and quotient by 128 below.
      let f = 2 * n;
      while (f >= 128) {
        const low = f % 128;
        buf[this.pos++] = low | 0x80;
        f = (f - low) / 128;
      }
      buf[this.pos++] = f;
      return;
    }
    // Large negative longs (never written by the application, but valid Avro): exact in BigInt.
    let z = (BigInt(n) << 1n) ^ (BigInt(n) >> 63n);
    z = BigInt.asUintN(64, z);
    while (z >= 128n) {
      buf[this.pos++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    buf[this.pos++] = Number(z);
  }

  string(s: string): void {
    // ASCII (ids, uuids, type names) is copied char by char; anything else goes through the encoder.
    const n = s.length;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      if (s.charCodeAt(i) >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      this.long(n);
      const buf = this.buf;
      let p = this.pos;
      for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
      this.pos = p;
      return;
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.long(bytes);
    this.buf.write(s, this.pos, bytes, 'utf8');
    this.pos += bytes;
  }

  bytes(b: Buffer): void {
    this.long(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }

  nullableLong(v: number | null): void {
    if (v === null) this.buf[this.pos++] = 0;
    else {
      this.buf[this.pos++] = 2;
      this.long(v);
    }
  }

  nullableBytes(b: Buffer | null): void {
    if (b === null) this.buf[this.pos++] = 0;
    else {
      this.buf[this.pos++] = 2;
      this.bytes(b);
    }
  }
}

/** A buffer holding `prefix` bytes the caller fills, then the Avro body of `op`. */
export function encodeDocOp(op: DocOp, prefix: number): Buffer {
  const size = prefix + bodySize(op);
  const buf = Buffer.allocUnsafe(size);
  const w = new Writer(buf, prefix);
  w.string(op.request_id);
  w.long(op.item);
  const opIndex = OP_INDEX[op.op];
  if (opIndex === undefined) throw new Error(`invalid DocOp op: ${String(op.op)}`);
  w.long(opIndex);
  w.string(op.index_uuid);
  w.string(op.type);
  w.string(op.id);
  if (op.routing === null) buf[w.pos++] = 0;
  else {
    buf[w.pos++] = 2;
    w.string(op.routing);
  }
  w.nullableBytes(op.source);
  w.nullableLong(op.version);
  const versionType = VERSION_TYPE_INDEX[op.version_type];
  if (versionType === undefined) throw new Error(`invalid DocOp version_type: ${String(op.version_type)}`);
  w.long(versionType);
  w.nullableLong(op.if_seq_no);
  w.nullableLong(op.if_primary_term);
  const u = op.update;
  if (u === null) buf[w.pos++] = 0;
  else {
    buf[w.pos++] = 2;
    w.nullableBytes(u.doc);
    w.nullableBytes(u.upsert);
    buf[w.pos++] = u.doc_as_upsert ? 1 : 0;
    buf[w.pos++] = u.detect_noop ? 1 : 0;
    if (u.script === null) buf[w.pos++] = 0;
    else {
      buf[w.pos++] = 2;
      w.string(u.script.source);
      w.string(u.script.lang);
      w.string(u.script.params_json);
    }
    buf[w.pos++] = u.scripted_upsert ? 1 : 0;
    buf[w.pos++] = u.by_query ? 1 : 0;
  }
  w.long(op.timestamp);
  if (w.pos !== size) throw new Error(`DocOp encoding wrote ${w.pos - prefix} bytes, expected ${size - prefix}`);
  return buf;
}

/**
 * The last string decoded for a field that repeats from op to op (request id,
 * index uuid, type): equal bytes give the same string without decoding again.
 */
class RepeatedString {
  private bytes = new Uint8Array(64);
  private length = -1;
  private value = '';

  read(buf: Buffer, start: number, end: number): string {
    const n = end - start;
    const bytes = this.bytes;
    if (n === this.length) {
      let k = 0;
      while (k < n && bytes[k] === buf[start + k]) k++;
      if (k === n) return this.value;
    }
    this.value = buf.toString('utf8', start, end);
    if (n > bytes.length) this.bytes = new Uint8Array(n);
    this.bytes.set(buf.subarray(start, end));
    this.length = n;
    return this.value;
  }
}

const requestIds = new RepeatedString();
const indexUuids = new RepeatedString();
const typeNames = new RepeatedString();

class Reader {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
  ) {}

  repeatedString(cache: RepeatedString): string {
    const n = this.long();
    const start = this.pos;
    this.pos += n;
    if (this.pos > this.buf.length) throw new Error('DocOp record ends inside a string');
    return cache.read(this.buf, start, this.pos);
  }

  long(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b < 0x80) return (b >>> 1) ^ -(b & 1);
    let f = b & 0x7f;
    let scale = 128;
    let count = 1;
    do {
      if (this.pos >= buf.length) throw new Error('DocOp record ends inside a varint');
      b = buf[this.pos++];
      if (++count > EXACT_VARINT_BYTES) return this.bigLong(f, count, b);
      f += (b & 0x7f) * scale;
      scale *= 128;
    } while (b >= 0x80);
    return f % 2 === 0 ? f / 2 : -(f + 1) / 2;
  }

  /** The rest of a varint too long for exact double arithmetic; `low` holds its first count-1 bytes. */
  private bigLong(low: number, count: number, b: number): number {
    let z = BigInt(low);
    let shift = BigInt(7 * (count - 1));
    for (;;) {
      z |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) break;
      if (this.pos >= this.buf.length) throw new Error('DocOp record ends inside a varint');
      b = this.buf[this.pos++];
      shift += 7n;
    }
    z = BigInt.asUintN(64, z);
    return Number((z >> 1n) ^ -(z & 1n));
  }

  string(): string {
    const n = this.long();
    const start = this.pos;
    this.pos += n;
    if (this.pos > this.buf.length) throw new Error('DocOp record ends inside a string');
    return this.buf.toString('utf8', start, this.pos);
  }

  /** A copy: the record's buffer may be a view of a larger log read. */
  bytes(): Buffer {
    const n = this.long();
    const start = this.pos;
    this.pos += n;
    if (this.pos > this.buf.length) throw new Error('DocOp record ends inside a bytes field');
    const out = Buffer.allocUnsafe(n);
    this.buf.copy(out, 0, start, this.pos);
    return out;
  }

  union(): boolean {
    const branch = this.long();
    if (branch !== 0 && branch !== 1) throw new Error(`invalid union branch ${branch} in DocOp record`);
    return branch === 1;
  }

  boolean(): boolean {
    return this.buf[this.pos++] !== 0;
  }
}

/** The DocOp whose Avro body starts at `start` of `buf`. */
/** Just the first two fields, request_id and item: who waits for the op's outcome. */
export function decodeDocOpHeader(buf: Buffer, start: number): { requestId: string; item: number } {
  const r = new Reader(buf, start);
  const requestId = r.repeatedString(requestIds);
  return { requestId, item: r.long() };
}

/** Just what routes the op to a shard, `id` and `routing`, without the source or the rest. */
export function decodeDocOpRoute(buf: Buffer, start: number): { id: string; routing: string | null; op: OpType } {
  const r = new Reader(buf, start);
  r.repeatedString(requestIds);
  r.long(); // item
  const op = OP_TYPES[r.long()];
  if (op === undefined) throw new Error('invalid DocOp op index');
  r.repeatedString(indexUuids);
  r.repeatedString(typeNames);
  const id = r.string();
  return { id, routing: r.union() ? r.string() : null, op };
}

export function decodeDocOp(buf: Buffer, start: number): DocOp {
  const r = new Reader(buf, start);
  const request_id = r.repeatedString(requestIds);
  const item = r.long();
  const op = OP_TYPES[r.long()];
  if (op === undefined) throw new Error('invalid DocOp op index');
  const index_uuid = r.repeatedString(indexUuids);
  const type = r.repeatedString(typeNames);
  const id = r.string();
  const routing = r.union() ? r.string() : null;
  const source = r.union() ? r.bytes() : null;
  const version = r.union() ? r.long() : null;
  const version_type = VERSION_TYPES[r.long()];
  if (version_type === undefined) throw new Error('invalid DocOp version_type index');
  const if_seq_no = r.union() ? r.long() : null;
  const if_primary_term = r.union() ? r.long() : null;
  let update: UpdateBody | null = null;
  if (r.union()) {
    const doc = r.union() ? r.bytes() : null;
    const upsert = r.union() ? r.bytes() : null;
    const docAsUpsert = r.boolean();
    const detectNoop = r.boolean();
    const script = r.union() ? { source: r.string(), lang: r.string(), params_json: r.string() } : null;
    update = { doc, upsert, doc_as_upsert: docAsUpsert, detect_noop: detectNoop, script, scripted_upsert: r.boolean(), by_query: r.boolean() };
  }
  const timestamp = r.long();
  if (r.pos !== buf.length) throw new Error(`DocOp record has ${buf.length - r.pos} trailing bytes`);
  return { request_id, item, op, index_uuid, type, id, routing, source, version, version_type, if_seq_no, if_primary_term, update, timestamp };
}
