/**
 * JSON's insignificant whitespace (RFC 8259: space, tab, line feed, carriage
 * return), skipped in bytes by the readers that scan a body without parsing it.
 */

/** The first position from `p` (before `end`) that is not JSON whitespace. */
export function skipJsonSpace(bytes: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = bytes[p]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    p++;
  }
  return p;
}
