/**
 * Mapping parameter values read as Elasticsearch's XContentMapValues reads
 * them, with its errors: shared by the mapping parser and the parameter
 * readers of single field types.
 */
import { javaCause, javaCauseChain, numberFormatException } from '../../errors/es-errors.ts';

/** XContentMapValues.nodeBooleanValue(node, name): strict true/false. */
export function nodeBooleanValue(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  const s = String(value);
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw javaCauseChain(
    'illegal_argument_exception',
    `Could not convert [${name}] to boolean`,
    javaCause('illegal_argument_exception', `Failed to parse value [${s}] as only [true] or [false] are allowed.`),
  );
}

/** XContentMapValues.nodeIntegerValue. */
export function nodeIntegerValue(value: unknown): number {
  if (typeof value === 'number') return Math.trunc(value);
  const s = String(value);
  if (!/^[+-]?\d+$/.test(s)) throw numberFormatException(`For input string: "${s}"`);
  return Number(s);
}

/** XContentMapValues.nodeFloatValue / Double.parseDouble(toString()) (kept as given: Elasticsearch prints the shortest form, which is the same). */
export function nodeFloatValue(value: unknown): number {
  if (typeof value === 'number') return value;
  const n = Number(String(value).trim());
  if (String(value).trim() === '' || Number.isNaN(n)) throw numberFormatException(`For input string: "${String(value)}"`);
  return n;
}
