/**
 * Conversion between the commit log's records and Kafka messages as kafkajs
 * sends and receives them.
 */
import type { KafkaMessage, Message } from 'kafkajs';
import type { AppendRecord, LogRecord } from '../commit-log.ts';

const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

function copyBytes(v: unknown, what: string): Buffer {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${what} must be a Buffer`);
  return Buffer.from(v);
}

/**
 * Turns a batch into kafkajs messages for one partition. Payloads are copied,
 * so the caller may reuse its buffers as soon as `append` returns (kafkajs
 * encodes them later, after its metadata look-ups).
 */
export function toMessages(records: readonly AppendRecord[], partition: number): Message[] {
  if (!Array.isArray(records)) throw new TypeError('records must be an array');
  const timestamp = String(Date.now());
  return records.map((r, i) => {
    const message: Message = {
      partition,
      value: copyBytes(r.value, `record ${i} value`),
      key: r.key == null ? null : copyBytes(r.key, `record ${i} key`),
      timestamp,
    };
    const headers = r.headers;
    if (headers !== undefined && Object.keys(headers).length > 0) {
      const out: Record<string, string> = {};
      for (const name of Object.keys(headers)) {
        const v: unknown = headers[name];
        if (typeof v !== 'string') throw new TypeError(`record ${i} header [${name}] must be a string`);
        out[name] = v;
      }
      message.headers = out;
    }
    return message;
  });
}

function headerText(v: Buffer | string): string {
  return typeof v === 'string' ? v : v.toString('utf8');
}

/** A fetched message as the log hands it out. A repeated header keeps its last value. */
export function toLogRecord(m: KafkaMessage): LogRecord {
  let headers = EMPTY_HEADERS;
  if (m.headers !== undefined) {
    const names = Object.keys(m.headers);
    if (names.length > 0) {
      const out: Record<string, string> = {};
      for (const name of names) {
        const v = m.headers[name];
        if (v === undefined) continue;
        const last = Array.isArray(v) ? v[v.length - 1] : v;
        if (last !== undefined) out[name] = headerText(last);
      }
      headers = out;
    }
  }
  return {
    offset: Number(m.offset),
    value: m.value ?? Buffer.alloc(0),
    key: m.key,
    headers,
    timestamp: Number(m.timestamp),
  };
}
