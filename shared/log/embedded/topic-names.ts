/**
 * Directory names for topics. Topic names (`<cluster>.<index>.<uuid>`) may hold
 * characters a file name must not (`/`, a leading `.`, or anything an index
 * name allows): every byte outside [A-Za-z0-9._-] becomes %XX, a leading dot
 * too, so the mapping is reversible and never escapes the log directory.
 * Very long names are shortened with a hash; the real name lives in the
 * topic's meta.json.
 */
import { createHash } from 'node:crypto';

const MAX_DIR_NAME_BYTES = 200;

function isPlain(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    byte === 0x2d || // -
    byte === 0x2e || // .
    byte === 0x5f // _
  );
}

export function topicDirName(topic: string): string {
  let out = '';
  const bytes = Buffer.from(topic, 'utf8');
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    out += isPlain(b) && !(i === 0 && b === 0x2e) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (out.length > MAX_DIR_NAME_BYTES) {
    out = `${out.slice(0, 150)}~${createHash('sha256').update(topic).digest('hex').slice(0, 40)}`;
  }
  return out;
}
