/**
 * IP addresses as ordered values: 16 bytes (IPv4 mapped into IPv6, as
 * Lucene's InetAddressPoint orders them) written as 32 hex digits, so that
 * comparing the texts compares the addresses; CIDR blocks as the range of
 * addresses they cover (InetAddresses.parseCidr, InetAddressPoint.newPrefixQuery).
 *
 * An `ip` field's terms and doc values are these 32 hex digits (its term
 * dictionary, ordinals, sort keys and terms buckets are then in address
 * order, as Elasticsearch's 16-byte doc values are); they print as the
 * address (DocValueFormat.IP) wherever a user sees them.
 */
import { illegalArgumentCause, type EsError } from '../../errors/es-errors.ts';
import { ipBytes, ipText, toIp } from './value-coercion.ts';

export const MIN_IP_HEX = '0'.repeat(32);
export const MAX_IP_HEX = 'f'.repeat(32);

function notAnIp(text: string): EsError {
  return illegalArgumentCause(`'${text}' is not an IP string literal.`);
}

export function hexOfBytes(bytes: readonly number[]): string {
  let out = '';
  for (const b of bytes) out += (b < 16 ? '0' : '') + b.toString(16);
  return out;
}

export function bytesOfHex(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < 32; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

/** The ordered form of an address's text, or null when it is not an address. */
export function ipHexOrNull(text: string): string | null {
  const b = ipBytes(text);
  return b === null ? null : hexOfBytes(b);
}

export function ipHex(text: string): string {
  const h = ipHexOrNull(text);
  if (h === null) throw notAnIp(text);
  return h;
}

export function ipTextOfHex(hex: string): string {
  return ipText(bytesOfHex(hex));
}

/** A document's or a query's value of an `ip` field as its term (toIp's errors for what is not an address). */
export function ipTerm(value: unknown): string {
  return ipHex(toIp(value));
}

/** A term of an `ip` field as the address it holds; a term that is not 32 hex digits prints as it is. */
export function ipTermText(term: string): string {
  return term.length === 32 && /^[0-9a-f]{32}$/.test(term) ? ipTextOfHex(term) : term;
}

/** The address one above (null at the top), for exclusive bounds. */
export function nextIpHex(hex: string): string | null {
  const b = bytesOfHex(hex);
  for (let i = 15; i >= 0; i--) {
    if (b[i]! < 255) {
      b[i]!++;
      return hexOfBytes(b);
    }
    b[i] = 0;
  }
  return null;
}

/** The address one below (null at the bottom). */
export function prevIpHex(hex: string): string | null {
  const b = bytesOfHex(hex);
  for (let i = 15; i >= 0; i--) {
    if (b[i]! > 0) {
      b[i]!--;
      return hexOfBytes(b);
    }
    b[i] = 255;
  }
  return null;
}

/** The first and last address of a CIDR block `address/prefix` (an IPv4 prefix counts from the mapped address's 97th bit). */
export function cidrRange(text: string): [string, string] {
  const slash = text.indexOf('/');
  if (slash < 0 || slash !== text.lastIndexOf('/')) throw illegalArgumentCause(`Expected [ip/prefix] but was [${text}]`);
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const bytes = ipBytes(address);
  if (bytes === null) throw notAnIp(address);
  const v4 = !address.includes(':');
  if (!/^\d{1,3}$/.test(prefixText)) throw illegalArgumentCause(`For input string: "${prefixText}"`);
  const prefix = Number(prefixText);
  const max = v4 ? 32 : 128;
  if (prefix > max) {
    throw illegalArgumentCause(`Illegal prefix length [${prefix}]. Must be 0 to ${max}.`);
  }
  const bits = v4 ? prefix + 96 : prefix;
  const lo = [...bytes];
  const hi = [...bytes];
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    const mask = keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
    lo[i] = lo[i]! & mask;
    hi[i] = (hi[i]! & mask) | (~mask & 0xff);
  }
  return [hexOfBytes(lo), hexOfBytes(hi)];
}
