/**
 * The bytes of a `_bulk` response's items. A successful index, create or
 * delete (almost every item of a load) is written straight into a buffer, in
 * writeResponse's field order: a string per item (and the generic serialiser
 * before it) allocated most of what a 10 MB bulk made the thread serving HTTP
 * collect (issue 11). Other items are the generic serialiser's JSON.
 */
import type { WriteItemResult } from '../../coordinator/write-coordinator.ts';

/** A growing buffer of JSON bytes. */
export class JsonWriter {
  private buf: Buffer;
  private at = 0;

  constructor(expected = 4096) {
    this.buf = Buffer.allocUnsafe(Math.max(64, expected));
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  /** Text known to be ASCII (keys, punctuation). */
  ascii(s: string): void {
    this.room(s.length);
    this.at += this.buf.write(s, this.at, 'latin1');
  }

  /** Any text, as UTF-8 (a JSON value already serialised). */
  text(s: string): void {
    this.room(Buffer.byteLength(s, 'utf8'));
    this.at += this.buf.write(s, this.at, 'utf8');
  }

  bytes(b: Buffer): void {
    this.room(b.length);
    this.at += b.copy(this.buf, this.at);
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  /** A number as JSON.stringify writes it (integers of up to 15 digits without a string in between). */
  number(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0 || n >= 1e15) {
      this.ascii(JSON.stringify(n));
      return;
    }
    this.room(15);
    if (n === 0) {
      this.buf[this.at++] = 0x30;
      return;
    }
    let digits = 0;
    for (let m = n; m > 0; m = Math.floor(m / 10)) digits++;
    let p = this.at + digits;
    this.at = p;
    for (let m = n; m > 0; m = Math.floor(m / 10)) this.buf[--p] = 0x30 + (m % 10);
  }

  /** A JSON string: printable ASCII without `"` or `\` as it is, anything else through JSON.stringify. */
  string(s: string): void {
    for (let k = 0; k < s.length; k++) {
      const c = s.charCodeAt(k);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        this.text(JSON.stringify(s));
        return;
      }
    }
    this.room(s.length + 2);
    this.buf[this.at++] = 0x22;
    this.at += this.buf.write(s, this.at, 'latin1');
    this.buf[this.at++] = 0x22;
  }

  get length(): number {
    return this.at;
  }

  /** What was written (a view of this writer's buffer: write nothing more to it). */
  take(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

/** Writes the bulk items of one response; `{"index":{"_index":..,"_type":..,` is encoded once per action, index and type. */
export class BulkItemWriter {
  private readonly heads = new Map<string, Buffer>();
  /** The last head, and what it was for: the items of a bulk mostly share it. */
  private last: { action: string; index: string; type: string; head: Buffer } | null = null;

  /** A successful index, create or delete: `{"<action>":{...,"status":N}}`. */
  success(o: JsonWriter, action: string, r: WriteItemResult & { ok: true }, status: number): void {
    const last = this.last;
    let head: Buffer;
    if (last !== null && last.action === action && last.index === r.index && last.type === r.type) head = last.head;
    else {
      const key = `${action}\u0000${r.index}\u0000${r.type}`;
      head = this.heads.get(key) ?? Buffer.from(`{"${action}":{"_index":${JSON.stringify(r.index)},"_type":${JSON.stringify(r.type)},"_id":`, 'utf8');
      this.heads.set(key, head);
      this.last = { action, index: r.index, type: r.type, head };
    }
    o.bytes(head);
    o.string(r.id);
    o.ascii(',"_version":');
    o.number(r.version);
    o.ascii(',"result":"');
    o.ascii(r.result);
    o.ascii(r.forcedRefresh ? '","forced_refresh":true,"_shards":{"total":' : '","_shards":{"total":');
    o.number(r.shardsTotal);
    o.ascii(',"successful":');
    o.number(r.shardsSuccessful);
    o.ascii(',"failed":0},"_seq_no":');
    o.number(r.seqNo);
    o.ascii(',"_primary_term":1,"status":');
    o.number(status);
    o.ascii('}}');
  }
}
