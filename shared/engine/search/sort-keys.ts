/**
 * Sort resolution on one shard: the request's sort specs checked against the
 * mapping (Elasticsearch's errors for text and unmapped fields) and turned into
 * per-doc keys read from doc values, plus the sort values reported to clients.
 *
 * Numeric keys (numbers, dates as epoch millis, booleans as 0/1, `_score`,
 * `_doc`) are doubles; keyword keys are strings (null = missing).
 */
import { fielddataOnTextField, illegalArgument, queryShardException } from '../../errors/es-errors.ts';
import type { FieldMapping, FieldType, MappingLookup } from '../mapping/types.ts';
import { ID_FIELD, type NumericArray, type OrdArray, type PointValues, type Segment, type SortedDocValues, type TermDictionary } from '../segment/types.ts';
import { decodeLatitude, decodeLongitude, haversinMeters, planeMeters } from '../mapping/geo-point.ts';
import type { SortMode, SortSpec, SortValue } from './types.ts';
import { nestedKeyReader } from './nested-sort-keys.ts';
import { ipTerm, ipTermText } from '../mapping/ip-address.ts';

export const LONG_MAX_VALUE = 9223372036854775807n;
export const LONG_MIN_VALUE = -9223372036854775808n;

export type ResolvedSortField =
  | { readonly kind: 'score'; readonly reverse: boolean }
  | { readonly kind: 'doc'; readonly reverse: boolean }
  | { readonly kind: 'id'; readonly reverse: boolean; readonly missingFirst: boolean }
  | {
      readonly kind: 'numeric';
      readonly field: string;
      readonly reverse: boolean;
      readonly mode: SortMode;
      /** Key of a doc without a value. */
      readonly missingKey: number;
      /** Integer-valued type: ±Infinity reports as Long.MAX/MIN_VALUE. */
      readonly longValued: boolean;
      /** float/half_float: values are single precision (reported with float digits). */
      readonly floatValued: boolean;
      /** `_geo_distance`: keys are distances from these points to the field's geo points. */
      readonly geo?: GeoSortParams;
      /** Keyed by the values of the document's nested objects of this path (nested-sort-keys.ts). */
      readonly nestedPath?: string | null;
    }
  | {
      readonly kind: 'string';
      readonly field: string;
      readonly reverse: boolean;
      readonly mode: 'min' | 'max';
      /** null: `_first`/`_last` (see missingFirst); else the replacement string. */
      readonly missingValue: string | null;
      readonly missingFirst: boolean;
      readonly nestedPath: string | null;
      /** An `ip` field: keys are the addresses' terms (hex, ip-address.ts), printed and read back as addresses. */
      readonly ip?: boolean;
    };

export interface GeoSortParams {
  readonly points: readonly (readonly [number, number])[];
  readonly unitMeters: number;
  readonly plane: boolean;
}

const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'date',
  'boolean',
]);
const LONG_VALUED: ReadonlySet<FieldType> = new Set(['long', 'integer', 'short', 'byte', 'date', 'boolean']);

export interface SortResolveContext {
  readonly mapping: MappingLookup;
  readonly index?: string;
  readonly indexUuid?: string;
}

function parseMissingNumber(field: FieldMapping | null, type: FieldType, value: string | number | boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (type === 'date' && field?.dateFormat) return field.dateFormat.parse(value);
  if (type === 'boolean') {
    if (value === 'true') return 1;
    if (value === 'false') return 0;
  }
  const n = Number(value.trim());
  if (value.trim() === '' || Number.isNaN(n)) throw illegalArgument(`For input string: "${value}"`);
  return n;
}

export function resolveSort(specs: readonly SortSpec[], ctx: SortResolveContext): ResolvedSortField[] {
  return specs.map((spec): ResolvedSortField => {
    const reverse = spec.order === 'desc';
    if (spec.kind === 'score') return { kind: 'score', reverse };
    if (spec.kind === 'doc') return { kind: 'doc', reverse };
    if (spec.kind === 'geo_distance') return resolveGeoSort(spec, reverse, ctx);
    const missingFirst = spec.missing === '_first';
    if (spec.field === '_id') return { kind: 'id', reverse, missingFirst };
    const nestedPath = spec.nestedPath ?? null;
    if (nestedPath !== null) checkNestedSortPath(ctx, nestedPath);
    const mapped = ctx.mapping.field(spec.field);
    let type: FieldType;
    if (mapped === undefined) {
      if (spec.unmappedType === null) {
        throw queryShardException(`No mapping found for [${spec.field}] in order to sort on`, null, ctx.index, ctx.indexUuid);
      }
      type = (spec.unmappedType === 'string' ? 'keyword' : spec.unmappedType) as FieldType;
    } else {
      type = mapped.type;
    }
    if (type === 'text') throw fielddataOnTextField(spec.field);
    if (type === 'geo_point') throw illegalArgument(`can't sort on geo_point field without using specific sorting feature, like geo_distance`);
    if (type.endsWith('_range') || type === 'binary') {
      throw illegalArgument(`Fielddata is not supported on field [${spec.field}] of type [${type}]`);
    }
    if (type === 'object') throw illegalArgument(`Can't load fielddata on [${spec.field}] because fielddata is unsupported on fields of type [object]. Use doc values instead.`);
    if (mapped !== undefined && !mapped.docValues) {
      throw illegalArgument(`Can't load fielddata on [${spec.field}] because fielddata is unsupported on fields of type [${type}]. Use doc values instead.`);
    }
    if (NUMERIC_TYPES.has(type)) {
      let missingKey: number;
      if (spec.missing === '_last') missingKey = reverse ? -Infinity : Infinity;
      else if (spec.missing === '_first') missingKey = reverse ? Infinity : -Infinity;
      else missingKey = parseMissingNumber(mapped ?? null, type, spec.missing);
      return {
        kind: 'numeric',
        // a field alias sorts on its target
        field: mapped?.path ?? spec.field,
        reverse,
        mode: spec.mode ?? (reverse ? 'max' : 'min'),
        missingKey,
        longValued: LONG_VALUED.has(type),
        floatValued: type === 'float' || type === 'half_float',
        nestedPath,
      };
    }
    const mode = spec.mode ?? (reverse ? 'max' : 'min');
    if (mode !== 'min' && mode !== 'max') {
      throw illegalArgument(`Sort mode [${mode}] is not supported on string fields`);
    }
    const ip = mapped?.mappedType === 'ip';
    const missingText = spec.missing === '_last' || spec.missing === '_first' ? null : String(spec.missing);
    const missingValue = missingText !== null && ip ? ipTerm(missingText) : missingText;
    return { kind: 'string', field: mapped?.path ?? spec.field, reverse, mode, missingValue, missingFirst, nestedPath, ...(ip ? { ip } : {}) };
  });
}

function resolveGeoSort(spec: Extract<SortSpec, { kind: 'geo_distance' }>, reverse: boolean, ctx: SortResolveContext): ResolvedSortField {
  const mapped = ctx.mapping.field(spec.field);
  if (mapped === undefined && !spec.ignoreUnmapped) {
    throw illegalArgument(`failed to find mapper for [${spec.field}] for geo distance based sort`);
  }
  if (mapped !== undefined && mapped.type !== 'geo_point') {
    throw illegalArgument(`failed to find mapper for [${spec.field}] for geo distance based sort`);
  }
  return {
    kind: 'numeric',
    field: mapped?.path ?? spec.field,
    reverse,
    mode: spec.mode ?? (reverse ? 'max' : 'min'),
    // a doc without a point sorts last either way (Double.POSITIVE_INFINITY, as Elasticsearch reports it)
    missingKey: Infinity,
    longValued: false,
    floatValued: false,
    geo: { points: spec.points, unitMeters: spec.unitMeters, plane: spec.plane },
  };
}

/** NestedSortBuilder's path checks (QueryShardException). */
function checkNestedSortPath(ctx: SortResolveContext, path: string): void {
  if (ctx.mapping.nestedObject?.(path) !== undefined) return;
  const why = ctx.mapping.isObject?.(path) === true ? `[nested] nested object under path [${path}] is not of nested type` : `[nested] failed to find nested object under path [${path}]`;
  throw queryShardException(why, null, ctx.index, ctx.indexUuid);
}

/** Reads one sort field's key for local docs of one segment. */
export interface SegmentKeyReader {
  numeric(d: number): number;
  string(d: number): string | null;
}

function medianOf(values: NumericArray, s: number, e: number): number {
  const n = e - s;
  const mid = s + (n >>> 1);
  return n % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
}

/*
 * Key readers are small classes rather than closures: one is made per segment
 * and sort field on every query, and a class costs nothing to instantiate
 * where a named closure does.
 */

class ConstantKeys implements SegmentKeyReader {
  constructor(
    private readonly num: number,
    private readonly str: string | null,
  ) {}
  numeric(): number {
    return this.num;
  }
  string(): string | null {
    return this.str;
  }
}

/**
 * The values of a packed dictionary as strings, each made once per reader:
 * docs that share a value (a checkpoint, a plate) reuse it.
 */
class DictStrings {
  private readonly made: (string | undefined)[] = [];
  constructor(private readonly dict: TermDictionary) {}
  get(o: number): string {
    return (this.made[o] ??= this.dict.get(o));
  }
}

/** Exported so that a top-N loop can read the values without a call per doc. */
export class SingleNumericKeys implements SegmentKeyReader {
  constructor(
    readonly values: NumericArray,
    readonly missing: number,
  ) {}
  numeric(d: number): number {
    const v = this.values[d]!;
    return v === v ? v : this.missing;
  }
  string(): string | null {
    return null;
  }
}

class MultiNumericKeys implements SegmentKeyReader {
  constructor(
    private readonly values: NumericArray,
    private readonly starts: Uint32Array,
    private readonly mode: SortMode,
    private readonly missing: number,
  ) {}
  numeric(d: number): number {
    const values = this.values;
    const s = this.starts[d]!;
    const e = this.starts[d + 1]!;
    if (s === e) return this.missing;
    switch (this.mode) {
      case 'min':
        return values[s]!;
      case 'max':
        return values[e - 1]!;
      case 'median':
        return medianOf(values, s, e);
      default: {
        let sum = 0;
        for (let i = s; i < e; i++) sum += values[i]!;
        return this.mode === 'sum' ? sum : sum / (e - s);
      }
    }
  }
  string(): string | null {
    return null;
  }
}

class SingleSortedKeys implements SegmentKeyReader {
  constructor(
    private readonly dict: DictStrings,
    private readonly ords: OrdArray,
    private readonly missing: string | null,
  ) {}
  numeric(): number {
    return NaN;
  }
  string(d: number): string | null {
    const o = this.ords[d]!;
    return o < 0 ? this.missing : this.dict.get(o);
  }
}

class MultiSortedKeys implements SegmentKeyReader {
  constructor(
    private readonly dict: DictStrings,
    private readonly ords: OrdArray,
    private readonly starts: Uint32Array,
    private readonly useMax: boolean,
    private readonly missing: string | null,
  ) {}
  numeric(): number {
    return NaN;
  }
  string(d: number): string | null {
    const s = this.starts[d]!;
    const e = this.starts[d + 1]!;
    if (s === e) return this.missing;
    return this.dict.get(this.ords[this.useMax ? e - 1 : s]!);
  }
}

/** Distances from the sort's origins to a doc's geo points (GeoDistanceSortBuilder: nearest origin per point, then the mode). */
class GeoDistanceKeys implements SegmentKeyReader {
  private readonly measure: (a: number, b: number, c: number, d: number) => number;
  private readonly scratch: number[] = [];
  constructor(
    private readonly pv: PointValues,
    private readonly geo: GeoSortParams,
    private readonly mode: SortMode,
    private readonly missing: number,
  ) {
    this.measure = geo.plane ? planeMeters : haversinMeters;
  }
  numeric(d: number): number {
    const { values, starts } = this.pv;
    const s = starts[d]!;
    const e = starts[d + 1]!;
    if (s === e) return this.missing;
    const ds = this.scratch;
    ds.length = 0;
    for (let i = s; i < e; i++) {
      const lat = decodeLatitude(values[2 * i]!);
      const lon = decodeLongitude(values[2 * i + 1]!);
      let best = Infinity;
      for (const [oLat, oLon] of this.geo.points) best = Math.min(best, this.measure(oLat, oLon, lat, lon));
      ds.push(best / this.geo.unitMeters);
    }
    if (ds.length === 1) return ds[0]!;
    ds.sort((a, b) => a - b);
    switch (this.mode) {
      case 'min':
        return ds[0]!;
      case 'max':
        return ds[ds.length - 1]!;
      case 'median': {
        const mid = ds.length >>> 1;
        return ds.length % 2 === 1 ? ds[mid]! : (ds[mid - 1]! + ds[mid]!) / 2;
      }
      default: {
        let sum = 0;
        for (const x of ds) sum += x;
        return this.mode === 'sum' ? sum : sum / ds.length;
      }
    }
  }
  string(): string | null {
    return null;
  }
}

const NO_KEYS = new ConstantKeys(NaN, null);

export function keyReader(field: ResolvedSortField, seg: Segment): SegmentKeyReader {
  if ((field.kind === 'numeric' || field.kind === 'string') && (field.nestedPath ?? null) !== null) return nestedKeyReader(field, seg);
  if (field.kind === 'id') {
    const dv = seg.docValues.get(ID_FIELD) as SortedDocValues | undefined;
    return dv === undefined ? NO_KEYS : new SingleSortedKeys(new DictStrings(dv.dict), dv.ords, null);
  }
  if (field.kind === 'numeric' && field.geo !== undefined) {
    const pv = seg.points?.get(field.field);
    return pv === undefined ? new ConstantKeys(field.missingKey, null) : new GeoDistanceKeys(pv, field.geo, field.mode, field.missingKey);
  }
  if (field.kind === 'numeric') {
    const dv = seg.docValues.get(field.field);
    if (dv === undefined || dv.kind !== 'numeric') return new ConstantKeys(field.missingKey, null);
    if (dv.starts === null) return new SingleNumericKeys(dv.values, field.missingKey);
    return new MultiNumericKeys(dv.values, dv.starts, field.mode, field.missingKey);
  }
  if (field.kind === 'string') {
    const dv = seg.docValues.get(field.field);
    if (dv === undefined || dv.kind !== 'sorted') return new ConstantKeys(NaN, field.missingValue);
    const dict = new DictStrings(dv.dict);
    if (dv.starts === null) return new SingleSortedKeys(dict, dv.ords, field.missingValue);
    return new MultiSortedKeys(dict, dv.ords, dv.starts, field.mode === 'max', field.missingValue);
  }
  return NO_KEYS;
}

/** The sort value Elasticsearch reports for a numeric key. */
export function numericSortValue(field: ResolvedSortField, key: number): SortValue {
  if (field.kind === 'numeric' && field.longValued) {
    if (key === Infinity) return LONG_MAX_VALUE;
    if (key === -Infinity) return LONG_MIN_VALUE;
  }
  if (field.kind === 'numeric' && field.floatValued && Number.isFinite(key)) return shortestFloat(key);
  return key;
}

/** The shortest decimal that reads back as the same float (how Java prints a Float). */
function shortestFloat(x: number): number {
  const fx = Math.fround(x);
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(fx.toPrecision(p));
    if (Math.fround(candidate) === fx) return candidate;
  }
  return fx;
}

/** The sort value a user sees for a string key: an `ip` key prints as the address (DocValueFormat.IP). */
export function printedStringSortValue(field: ResolvedSortField | undefined, key: string | null): string | null {
  return key !== null && field?.kind === 'string' && field.ip === true ? ipTermText(key) : key;
}

/**
 * A `search_after` value (`fromUser`: as printed in a hit's `sort`) or a
 * scroll's last key (as the shard keeps it) as a key of this sort field.
 */
export function keyFromSortValue(field: ResolvedSortField, value: SortValue | boolean, fromUser = false): { num: number; str: string | null } {
  if (field.kind === 'string' || field.kind === 'id') {
    if (value === null) return { num: NaN, str: null };
    return { num: NaN, str: fromUser && field.kind === 'string' && field.ip === true ? ipTerm(String(value)) : String(value) };
  }
  if (value === null) {
    return { num: field.kind === 'numeric' ? field.missingKey : NaN, str: null };
  }
  if (typeof value === 'bigint') {
    if (value >= LONG_MAX_VALUE) return { num: Infinity, str: null };
    if (value <= LONG_MIN_VALUE) return { num: -Infinity, str: null };
    return { num: Number(value), str: null };
  }
  if (typeof value === 'boolean') return { num: value ? 1 : 0, str: null };
  let n = typeof value === 'number' ? value : Number(value);
  if (typeof value === 'string' && (value.trim() === '' || Number.isNaN(n))) {
    throw illegalArgument(`Failed to parse search_after value for field [${field.kind === 'numeric' ? field.field : field.kind}].`);
  }
  if (field.kind === 'numeric' && field.longValued) {
    if (n >= 2 ** 63) n = Infinity;
    else if (n <= -(2 ** 63)) n = -Infinity;
  }
  if (field.kind === 'numeric' && field.floatValued) n = Math.fround(n);
  return { num: n, str: null };
}
