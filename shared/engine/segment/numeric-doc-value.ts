/**
 * The number Elasticsearch 6.8 keeps in doc values for a numeric, date or
 * boolean value: what sorting and aggregations see. `float` is stored as a
 * 32-bit float, `half_float` as a 16-bit one and `scaled_float` as the long
 * `round(value * scaling_factor)`, so a sum over floats reads
 * 0.10000000149011612 for 0.1, exactly as Elasticsearch answers.
 */
import type { FieldMapping } from '../mapping/types.ts';

export function numericDocValue(mapping: FieldMapping, value: string | number | boolean): number {
  const n = typeof value === 'number' ? value : typeof value === 'boolean' ? (value ? 1 : 0) : Number(value);
  switch (mapping.type) {
    case 'float':
      return Math.fround(n);
    case 'half_float':
      return toHalfFloat(Math.fround(n));
    case 'scaled_float': {
      const factor = mapping.scalingFactor ?? 1;
      // Java's Math.round (floor(x + 0.5)) is what JS Math.round does.
      return Math.round(n * factor) / factor;
    }
    default:
      return n;
  }
}

const HALF_MAX_FINITE = 65504;
/** Halfway between 65504 and the next step (65536): from here rounding reaches infinity. */
const HALF_OVERFLOW = 65520;
const HALF_MIN_NORMAL = 2 ** -14;

/** Rounds to the nearest IEEE 754 binary16 value (ties to even), as Lucene's HalfFloatPoint does. */
export function toHalfFloat(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.abs(value);
  if (magnitude >= HALF_OVERFLOW) return value > 0 ? Infinity : -Infinity;
  let quantum: number;
  if (magnitude < HALF_MIN_NORMAL) {
    quantum = 2 ** -24;
  } else {
    let exponent = Math.floor(Math.log2(magnitude));
    // log2 can be off by one at powers of two.
    if (2 ** exponent > magnitude) exponent--;
    else if (2 ** (exponent + 1) <= magnitude) exponent++;
    quantum = 2 ** (exponent - 10);
  }
  const scaled = magnitude / quantum;
  let steps = Math.floor(scaled);
  const rest = scaled - steps;
  if (rest > 0.5 || (rest === 0.5 && steps % 2 === 1)) steps++;
  const rounded = Math.min(steps * quantum, HALF_MAX_FINITE);
  return value < 0 ? -rounded : rounded;
}
