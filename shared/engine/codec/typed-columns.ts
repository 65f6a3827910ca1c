/**
 * Columns of numbers in segment files: each kept as the narrowest typed array
 * that holds every value exactly (a speed of 20..120 in one byte, a date in a
 * double), aligned so that the mapped file is read through a view in place,
 * with no decoding. Readers index them as they would a Float64Array.
 */
import type { ByteSink } from './front-coded.ts';
import type { NumericArray } from '../segment/types.ts';

export type ColumnKind = 'i8' | 'u8' | 'i16' | 'u16' | 'i32' | 'u32' | 'f32' | 'f64';

export interface ColumnLayout {
  readonly kind: ColumnKind;
  /** File offset (aligned to the element size). */
  readonly at: number;
  readonly length: number;
}

const CONSTRUCTORS = {
  i8: Int8Array,
  u8: Uint8Array,
  i16: Int16Array,
  u16: Uint16Array,
  i32: Int32Array,
  u32: Uint32Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;

/** The narrowest kind that holds values[0..n) exactly; NaN (a missing value) needs a float kind. */
export function narrowestKind(values: ArrayLike<number>, n: number): ColumnKind {
  let min = Infinity;
  let max = -Infinity;
  let integral = true;
  let float32 = true;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v !== v) {
      integral = false;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    if (integral && !Number.isInteger(v)) integral = false;
    if (float32 && Math.fround(v) !== v) float32 = false;
    // -0 is not an integer value an integer array keeps.
    if (v === 0 && 1 / v < 0) integral = false;
  }
  if (integral) {
    if (n === 0) return 'u8';
    if (min >= 0) {
      if (max <= 0xff) return 'u8';
      if (max <= 0xffff) return 'u16';
      if (max <= 0xffffffff) return 'u32';
    } else {
      if (min >= -0x80 && max <= 0x7f) return 'i8';
      if (min >= -0x8000 && max <= 0x7fff) return 'i16';
      if (min >= -0x80000000 && max <= 0x7fffffff) return 'i32';
    }
  }
  return float32 ? 'f32' : 'f64';
}

/** The kind of ordinals in [-1, maxOrd] (single-valued: -1 = no value). */
export function ordKind(maxOrd: number, withMissing: boolean): ColumnKind {
  if (withMissing) return maxOrd <= 0x7f ? 'i8' : maxOrd <= 0x7fff ? 'i16' : 'i32';
  return maxOrd <= 0xff ? 'u8' : maxOrd <= 0xffff ? 'u16' : 'i32';
}

/** values[0..n) as a typed array of `kind` (the bytes writeColumn writes). */
export function toColumn(values: ArrayLike<number>, n: number, kind: ColumnKind): NumericArray {
  const column = new CONSTRUCTORS[kind](n);
  for (let i = 0; i < n; i++) column[i] = values[i]!;
  return column;
}

/** Writes values[0..n) as `kind`. */
export function writeColumn(out: ByteSink, values: ArrayLike<number>, n: number, kind: ColumnKind): ColumnLayout {
  const Ctor = CONSTRUCTORS[kind];
  out.align(8);
  const at = out.position;
  const CHUNK = 65536;
  const chunk = new Ctor(Math.min(n, CHUNK));
  for (let from = 0; from < n; from += CHUNK) {
    const len = Math.min(CHUNK, n - from);
    for (let i = 0; i < len; i++) chunk[i] = values[from + i]!;
    out.writeArray(len === chunk.length ? chunk : chunk.subarray(0, len));
  }
  return { kind, at, length: n };
}

/** A view of a column in a mapped file. */
export function viewColumn(file: Uint8Array, layout: ColumnLayout): NumericArray {
  const Ctor = CONSTRUCTORS[layout.kind];
  return new Ctor(file.buffer as ArrayBuffer, file.byteOffset + layout.at, layout.length);
}

/** A view of a Uint32 array (starts, bitsets) in a mapped file. */
export function viewUint32(file: Uint8Array, at: number, length: number): Uint32Array {
  return new Uint32Array(file.buffer, file.byteOffset + at, length);
}
