/**
 * Elasticsearch 6.8's byte sizes (`ByteSizeValue.parseBytesSizeValue`):
 * `512b`, `64kb`, `100mb`, `1.5gb` (`k`, `m`, `g`, `t`, `p` alone too),
 * case-insensitive, and the unit-less `-1` and `0`. The settings of a node
 * and of an index read sizes through this one parser, as times go through
 * time-value.ts.
 */
import { javaCause, javaCauseChain, numberFormatException, type EsError } from '../../errors/es-errors.ts';
import { javaDoubleToString } from '../aggs/java-double.ts';

const KB = 1024;

/** Longest suffix first, so `kb` is not read as `b`. */
const UNITS: readonly { readonly suffix: string; readonly bytes: number }[] = [
  { suffix: 'kb', bytes: KB },
  { suffix: 'mb', bytes: KB ** 2 },
  { suffix: 'gb', bytes: KB ** 3 },
  { suffix: 'tb', bytes: KB ** 4 },
  { suffix: 'pb', bytes: KB ** 5 },
  { suffix: 'k', bytes: KB },
  { suffix: 'm', bytes: KB ** 2 },
  { suffix: 'g', bytes: KB ** 3 },
  { suffix: 't', bytes: KB ** 4 },
  { suffix: 'p', bytes: KB ** 5 },
  { suffix: 'b', bytes: 1 },
];

/** Bytes for a size (`-1` for `-1`, which Elasticsearch uses to mean "unbounded"). */
export function parseByteSizeValue(value: string | number, settingName: string): number {
  const raw = String(value);
  const normalized = raw.toLowerCase().trim();
  const unit = UNITS.find((u) => normalized.endsWith(u.suffix));
  if (unit === undefined) {
    if (/^-0*1$/.test(normalized)) return -1;
    if (/^0+$/.test(normalized)) return 0;
    throw byteSizeError(`failed to parse setting [${settingName}] with value [${raw}] as a size in bytes: unit is missing or unrecognized`);
  }
  const number = normalized.slice(0, normalized.length - unit.suffix.length).trim();
  // Java's Double.parseDouble on the number part; fractions are allowed (deprecated in 6.x, still accepted).
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(number)) {
    throw javaCauseChain('illegal_argument_exception', `failed to parse [${raw}]`, numberFormatException(`For input string: "${number}"`));
  }
  const bytes = Math.trunc(Number(number) * unit.bytes);
  if (bytes < 0) {
    throw byteSizeError(`failed to parse setting [${settingName}] with value [${raw}] as a size in bytes: negative sizes are not supported`);
  }
  return bytes;
}

function byteSizeError(reason: string): EsError {
  return javaCause('illegal_argument_exception', reason);
}

/**
 * Elasticsearch's Strings.format1Decimals: the value as Java prints a
 * double, cut (not rounded) after the first decimal, `.0` left out.
 */
export function format1Decimals(value: number, suffix: string): string {
  const p = javaDoubleToString(value);
  const dot = p.indexOf('.') + 1;
  const ex = p.indexOf('E');
  const fraction = p.charAt(dot);
  const exponent = ex === -1 ? '' : p.slice(ex);
  if (fraction === '0') return p.slice(0, dot - 1) + exponent + suffix;
  return p.slice(0, dot) + fraction + exponent + suffix;
}

/** ByteSizeValue.toString: `0b`, `1023b`, `1kb`, `1.5mb`, the largest unit the size reaches. */
export function formatByteSize(bytes: number): string {
  for (let i = BYTE_UNITS.length - 1; i > 0; i--) {
    const size = KB ** i;
    if (bytes >= size) return format1Decimals(bytes / size, BYTE_UNITS[i]!);
  }
  return format1Decimals(bytes, 'b');
}

const BYTE_UNITS = ['b', 'kb', 'mb', 'gb', 'tb', 'pb'];

/** A size in one unit as `bytes=` asks for it (`b`, `k`/`kb`, ... `p`/`pb`): whole units, truncated; null for an unknown unit. */
export function byteSizeIn(bytes: number, unit: string): number | null {
  const i = ['b', 'k', 'm', 'g', 't', 'p'].indexOf(unit.length === 2 && unit.endsWith('b') ? unit[0]! : unit);
  if (i < 0) return null;
  return Math.trunc(bytes / KB ** i);
}
