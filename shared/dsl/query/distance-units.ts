/**
 * Elasticsearch's DistanceUnit: distances as `12km`, `300m`, `2mi` or a number
 * in a given unit, converted to meters. Units are matched by suffix in the
 * enum's order (so `km` is kilometers, not meters).
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { Json } from './json-source.ts';

export interface DistanceUnit {
  readonly meters: number;
  readonly names: readonly string[];
}

const UNITS: readonly DistanceUnit[] = [
  { meters: 0.0254, names: ['in', 'inch'] },
  { meters: 0.9144, names: ['yd', 'yards'] },
  { meters: 0.3048, names: ['ft', 'feet'] },
  { meters: 1000, names: ['km', 'kilometers'] },
  { meters: 1852, names: ['NM', 'nmi', 'nauticalmiles'] },
  { meters: 0.001, names: ['mm', 'millimeters'] },
  { meters: 0.01, names: ['cm', 'centimeters'] },
  { meters: 1609.344, names: ['mi', 'miles'] },
  { meters: 1, names: ['m', 'meters'] },
];

/** DistanceUnit.DEFAULT. */
export const METERS = UNITS[UNITS.length - 1]!;

/** DistanceUnit.fromString. */
export function parseDistanceUnit(name: string): DistanceUnit {
  for (const u of UNITS) if (u.names.includes(name)) return u;
  throw illegalArgument(`No distance unit match [${name}]`);
}

/** A distance in meters: a number in `unit` (default meters), or text with an optional unit suffix. */
export function parseDistance(value: Json, unit: DistanceUnit | null): number {
  const base = unit ?? METERS;
  if (typeof value === 'number') return value * base.meters;
  if (typeof value === 'bigint') return Number(value) * base.meters;
  const text = String(value).trim();
  for (const u of UNITS) {
    for (const name of u.names) {
      if (text.endsWith(name)) return javaDouble(text.slice(0, text.length - name.length), text) * u.meters;
    }
  }
  return javaDouble(text, text) * base.meters;
}

function javaDouble(s: string, whole: string): number {
  const t = s.trim();
  const n = Number(t);
  if (t === '' || Number.isNaN(n)) throw illegalArgument(`For input string: "${whole === s ? s : t}"`);
  return n;
}
