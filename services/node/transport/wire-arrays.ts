/**
 * Typed arrays and sort values as they travel: doc ids and scores as the raw
 * bytes of their typed array (little-endian, as x86 and ARM hosts store them:
 * no per-hit encoding), sort values as an Avro union with bigints as text.
 */
import { endianness } from 'node:os';
import type { SortValue } from '../../../shared/engine/search/types.ts';
import type { WireSortValue } from './rpc-messages.ts';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

type NumericArray = Int32Array | Float32Array | Float64Array;

/** The array's bytes, little-endian (a view, no copy, on a little-endian host). */
export function typedArrayBytes(a: NumericArray): Buffer {
  if (LITTLE_ENDIAN_HOST) return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const out = Buffer.allocUnsafe(a.byteLength);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const step = a.BYTES_PER_ELEMENT;
  for (let i = 0; i < a.length; i++) {
    if (a instanceof Int32Array) view.setInt32(i * step, a[i], true);
    else if (a instanceof Float32Array) view.setFloat32(i * step, a[i], true);
    else view.setFloat64(i * step, a[i], true);
  }
  return out;
}

/**
 * Copies little-endian bytes into a fresh typed array (a copy, because the
 * received buffer is rarely aligned to the element size).
 */
function fromBytes<T extends NumericArray>(bytes: Uint8Array, make: (n: number) => T, what: string): T {
  const out = make(0);
  const step = out.BYTES_PER_ELEMENT;
  if (bytes.length % step !== 0) throw new Error(`${what}: ${bytes.length} bytes is not a whole number of ${step}-byte elements`);
  const arr = make(bytes.length / step);
  if (LITTLE_ENDIAN_HOST) {
    new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength).set(bytes);
    return arr;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < arr.length; i++) {
    if (arr instanceof Int32Array) arr[i] = view.getInt32(i * step, true);
    else if (arr instanceof Float32Array) arr[i] = view.getFloat32(i * step, true);
    else arr[i] = view.getFloat64(i * step, true);
  }
  return arr;
}

export const int32FromBytes = (b: Uint8Array): Int32Array => fromBytes(b, (n) => new Int32Array(n), 'doc ids');
export const float32FromBytes = (b: Uint8Array): Float32Array => fromBytes(b, (n) => new Float32Array(n), 'scores');
export const float64FromBytes = (b: Uint8Array): Float64Array => fromBytes(b, (n) => new Float64Array(n), 'scores');

export function sortValueToWire(v: SortValue): WireSortValue {
  return typeof v === 'bigint' ? { decimal: v.toString() } : v;
}

export function sortValueFromWire(v: WireSortValue): SortValue {
  return v !== null && typeof v === 'object' ? BigInt(v.decimal) : v;
}

export function sortValuesToWire(vs: readonly SortValue[]): WireSortValue[] {
  return vs.map(sortValueToWire);
}

export function sortValuesFromWire(vs: readonly WireSortValue[]): SortValue[] {
  return vs.map(sortValueFromWire);
}
