/**
 * Resolving an aggregation's field against one shard's mapping, as
 * Elasticsearch's ValuesSourceConfig.resolve does: keyword fields read
 * ordinals, numeric/date/boolean fields read numbers, text fields are refused
 * (fielddata), unmapped fields read nothing unless `missing` is given (then
 * every doc has the missing value, typed by `value_type`).
 */
import { fielddataOnTextField, illegalArgument } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../mapping/types.ts';
import { ipTerm } from '../mapping/ip-address.ts';
import type { NumericDocValues, Segment, SortedDocValues } from '../segment/types.ts';
import { DEFAULT_DATE_FORMAT, dateFormatterFor } from './date-formats.ts';
import type { ValueTypeName, ValuesSourceSpec } from './spec.ts';
import type { ValueFormat } from './state.ts';
import { BOOLEAN_FORMAT, RAW_FORMAT } from './value-format.ts';

export type NumericKind = 'long' | 'double' | 'date' | 'boolean';

export type ResolvedSource =
  | {
      readonly kind: 'bytes';
      readonly field: string | null;
      readonly missing: string | null;
      /** An `ip` field (or `value_type: ip`): values are the addresses' terms (hex, ip-address.ts), keys print as addresses. */
      readonly ip?: boolean;
    }
  | {
      readonly kind: 'numeric';
      readonly field: string | null;
      readonly numKind: NumericKind;
      readonly missing: number | null;
      readonly format: ValueFormat;
    }
  | { readonly kind: 'unmapped' };

export interface ResolveOptions {
  /** Numeric-only aggregations (avg, sum, histogram, ...). */
  readonly numericOnly: boolean;
  /** Time zone of date formats (date_histogram, date_range). */
  readonly timeZone: string | null;
  /** Kind used for an unmapped field with `missing` and no `value_type`. */
  readonly unmappedDefault: 'bytes' | 'numeric';
}

const LONG_TYPES = new Set(['long', 'integer', 'short', 'byte']);
const POINT_TYPES: ReadonlySet<string> = new Set(['geo_point', 'integer_range', 'long_range', 'float_range', 'double_range', 'date_range', 'ip_range']);
const DOUBLE_TYPES = new Set(['double', 'float', 'half_float', 'scaled_float']);

function numKindOfValueType(vt: ValueTypeName | null): NumericKind | 'bytes' | null {
  switch (vt) {
    case null:
      return null;
    case 'string':
    case 'ip':
      return 'bytes';
    case 'long':
      return 'long';
    case 'double':
    case 'number':
    case 'numeric':
      return 'double';
    case 'date':
      return 'date';
    case 'boolean':
      return 'boolean';
  }
}

function formatFor(kind: NumericKind, pattern: string | null, tz: string | null): ValueFormat {
  if (kind === 'date') return { kind: 'date', pattern: pattern ?? DEFAULT_DATE_FORMAT, timeZone: tz };
  if (kind === 'boolean') return BOOLEAN_FORMAT;
  return RAW_FORMAT;
}

function missingNumber(kind: NumericKind, missing: string | number | boolean, pattern: string): number {
  if (kind === 'boolean') {
    if (missing === true || missing === 'true') return 1;
    if (missing === false || missing === 'false' || missing === '') return 0;
    throw illegalArgument(`Can't parse boolean value [${String(missing)}], expected [true] or [false]`);
  }
  if (kind === 'date') {
    if (typeof missing === 'boolean') throw illegalArgument(`failed to parse date field [${missing}] with format [${pattern}]`);
    return dateFormatterFor(pattern).parse(missing);
  }
  const n = typeof missing === 'number' ? missing : Number(missing);
  if (typeof missing === 'boolean' || Number.isNaN(n)) {
    throw illegalArgument(`For input string: "${String(missing)}"`);
  }
  return kind === 'long' ? Math.trunc(n) : n;
}

export function resolveSource(spec: ValuesSourceSpec, mapping: MappingLookup, opts: ResolveOptions): ResolvedSource {
  const field = spec.field;
  const fm = field === null ? undefined : mapping.field(field);
  if (field === null || fm === undefined || fm.type === 'object') {
    if (spec.missing === null) return { kind: 'unmapped' };
    const vk = numKindOfValueType(spec.valueType);
    const kind = vk ?? (opts.numericOnly || opts.unmappedDefault === 'numeric' ? 'double' : 'bytes');
    if (kind === 'bytes') {
      if (opts.numericOnly) throw illegalArgument(`Expected numeric type on field [${field}], but got [keyword]`);
      if (spec.valueType === 'ip') return { kind: 'bytes', field: null, missing: ipTerm(String(spec.missing)), ip: true };
      return { kind: 'bytes', field: null, missing: String(spec.missing) };
    }
    const pattern = spec.format ?? DEFAULT_DATE_FORMAT;
    return {
      kind: 'numeric',
      field: null,
      numKind: kind,
      missing: missingNumber(kind, spec.missing, pattern),
      format: formatFor(kind, kind === 'date' ? pattern : null, opts.timeZone),
    };
  }
  if (fm.type === 'text') throw fielddataOnTextField(field);
  // geo points and ranges keep no per-value doc values: only their own aggregations read them (geo-aggregators.ts)
  if (POINT_TYPES.has(fm.type)) throw illegalArgument(`Field [${field}] of type [${fm.type}] is not supported for this aggregation: use the ${fm.type === 'geo_point' ? 'geo aggregations' : 'range query'} instead`);
  if (!fm.docValues) {
    throw illegalArgument(
      `Can't load fielddata on [${field}] because fielddata is unsupported on fields of type [${fm.type}]. Use doc values instead.`,
    );
  }
  if (fm.type === 'keyword') {
    if (opts.numericOnly) throw illegalArgument(`Expected numeric type on field [${field}], but got [keyword]`);
    // fm.path: a field alias reads its target's values
    if (fm.mappedType === 'ip') return { kind: 'bytes', field: fm.path, missing: spec.missing === null ? null : ipTerm(String(spec.missing)), ip: true };
    return { kind: 'bytes', field: fm.path, missing: spec.missing === null ? null : String(spec.missing) };
  }
  let numKind: NumericKind;
  if (LONG_TYPES.has(fm.type)) numKind = 'long';
  else if (DOUBLE_TYPES.has(fm.type)) numKind = 'double';
  else if (fm.type === 'date') numKind = 'date';
  else numKind = 'boolean';
  const pattern = numKind === 'date' ? (spec.format ?? fm.dateFormat?.pattern ?? DEFAULT_DATE_FORMAT) : '';
  return {
    kind: 'numeric',
    field: fm.path,
    numKind,
    missing: spec.missing === null ? null : missingNumber(numKind, spec.missing, pattern),
    format: formatFor(numKind, numKind === 'date' ? pattern : null, opts.timeZone),
  };
}

/** The field's numeric doc values in a segment, or null (field absent there, or not numeric). */
export function numericValues(segment: Segment, field: string | null): NumericDocValues | null {
  if (field === null) return null;
  const dv = segment.docValues.get(field);
  return dv !== undefined && dv.kind === 'numeric' ? dv : null;
}

/** The field's keyword doc values in a segment, or null. */
export function sortedValues(segment: Segment, field: string | null): SortedDocValues | null {
  if (field === null) return null;
  const dv = segment.docValues.get(field);
  return dv !== undefined && dv.kind === 'sorted' ? dv : null;
}
