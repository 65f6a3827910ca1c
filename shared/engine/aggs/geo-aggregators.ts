/**
 * The shard side of the geo aggregations over a geo_point field's point
 * values (segment `points`): `geo_bounds` and `geo_centroid` keep a few
 * numbers per bucket; `geohash_grid` and `geo_distance` turn each segment's
 * points into per-doc numbers (the cell of each point as a base-32 number,
 * the distance from the origin) and hand them to the terms and range
 * aggregators, so buckets, sub-aggregations, ordering and the reduce are
 * theirs. The derived numbers live only while the segment is collected.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import { decodeLatitude, decodeLongitude, haversinMeters, planeMeters } from '../mapping/geo-point.ts';
import type { MappingLookup } from '../mapping/types.ts';
import type { NumericDocValues, PointValues, Segment } from '../segment/types.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { RangeAggregator } from './range-aggregator.ts';
import type { AggPathElement, GeoBoundsSpec, GeoCentroidSpec, GeoDistanceAggSpec, GeoHashGridSpec, RangeSpec, TermsSpec } from './spec.ts';
import type { AggState } from './state.ts';
import { NumericTermsAggregator } from './terms-aggregator.ts';
import { RAW_FORMAT } from './value-format.ts';
import { derivedName, withDerived } from './derived-values.ts';

/** ValuesSourceConfig's refusal of a field that is not a geo_point; null for an unmapped field. */
export function geoField(mapping: MappingLookup, field: string): string | null {
  const fm = mapping.field(field);
  if (fm === undefined) return null;
  if (fm.type !== 'geo_point') throw illegalArgument(`Expected geo_point type on field [${field}], but got [${fm.mappedType ?? fm.type}]`);
  return fm.path;
}

function pointsOf(segment: Segment, field: string | null): PointValues | null {
  if (field === null) return null;
  return segment.points?.get(field) ?? null;
}

export class GeoBoundsAggregator implements Aggregator {
  readonly name: string;
  /** Per bucket: top, bottom, posLeft, posRight, negLeft, negRight. */
  private edges = new Float64Array(0);
  private pv: PointValues | null = null;

  constructor(
    spec: GeoBoundsSpec,
    private readonly field: string | null,
  ) {
    this.name = spec.name;
  }

  setSegment(seg: SegmentContext): void {
    this.pv = pointsOf(seg.view.segment, this.field);
  }

  private grow(owner: number): void {
    const need = (owner + 1) * 6;
    if (this.edges.length >= need) return;
    const next = new Float64Array(Math.max(need, this.edges.length * 2));
    next.set(this.edges);
    for (let i = this.edges.length; i < next.length; i += 6) next.set([-Infinity, Infinity, Infinity, -Infinity, Infinity, -Infinity], i);
    this.edges = next;
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const pv = this.pv;
    if (pv === null) return;
    for (let k = 0; k < n; k++) {
      const d = docs[k]!;
      const o = owners[k]!;
      this.grow(o);
      const e = this.edges;
      const at = o * 6;
      for (let i = pv.starts[d]!, end = pv.starts[d + 1]!; i < end; i++) {
        const lat = decodeLatitude(pv.values[2 * i]!);
        const lon = decodeLongitude(pv.values[2 * i + 1]!);
        if (lat > e[at]!) e[at] = lat;
        if (lat < e[at + 1]!) e[at + 1] = lat;
        if (lon >= 0) {
          if (lon < e[at + 2]!) e[at + 2] = lon;
          if (lon > e[at + 3]!) e[at + 3] = lon;
        } else {
          if (lon < e[at + 4]!) e[at + 4] = lon;
          if (lon > e[at + 5]!) e[at + 5] = lon;
        }
      }
    }
  }

  build(owner: number): AggState {
    this.grow(owner);
    const e = this.edges;
    const at = owner * 6;
    const v = (i: number): number | null => (Number.isFinite(e[at + i]!) ? e[at + i]! : null);
    return { kind: 'geo_bounds', top: v(0), bottom: v(1), posLeft: v(2), posRight: v(3), negLeft: v(4), negRight: v(5) };
  }

  sortValue(): number {
    throw illegalArgument(`Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end. [${this.name}] is not a metrics aggregation`);
  }
}

export class GeoCentroidAggregator implements Aggregator {
  readonly name: string;
  /** Per bucket: latitude sum, longitude sum, count. */
  private sums = new Float64Array(0);
  private pv: PointValues | null = null;

  constructor(
    spec: GeoCentroidSpec,
    private readonly field: string | null,
  ) {
    this.name = spec.name;
  }

  setSegment(seg: SegmentContext): void {
    this.pv = pointsOf(seg.view.segment, this.field);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const pv = this.pv;
    if (pv === null) return;
    for (let k = 0; k < n; k++) {
      const d = docs[k]!;
      const at = owners[k]! * 3;
      if (this.sums.length < at + 3) {
        const next = new Float64Array(Math.max(at + 3, this.sums.length * 2));
        next.set(this.sums);
        this.sums = next;
      }
      for (let i = pv.starts[d]!, end = pv.starts[d + 1]!; i < end; i++) {
        this.sums[at]! += decodeLatitude(pv.values[2 * i]!);
        this.sums[at + 1]! += decodeLongitude(pv.values[2 * i + 1]!);
        this.sums[at + 2]!++;
      }
    }
  }

  build(owner: number): AggState {
    const at = owner * 3;
    const s = this.sums;
    return { kind: 'geo_centroid', latSum: s[at] ?? 0, lonSum: s[at + 1] ?? 0, count: s[at + 2] ?? 0 };
  }

  sortValue(): number {
    throw illegalArgument(`Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end. [${this.name}] is not a metrics aggregation`);
  }
}

// ---- derived numbers: geohash cells, distances ----------------------------------------------

/** Per-doc numbers from each point: multi-valued layout, each doc's values ascending. */
function derive(pv: PointValues, maxDoc: number, f: (lat: number, lon: number) => number): NumericDocValues {
  const starts = Uint32Array.from(pv.starts);
  const values = new Float64Array(starts[maxDoc]!);
  for (let d = 0; d < maxDoc; d++) {
    const s = starts[d]!;
    const e = starts[d + 1]!;
    for (let i = s; i < e; i++) values[i] = f(decodeLatitude(pv.values[2 * i]!), decodeLongitude(pv.values[2 * i + 1]!));
    if (e - s > 1) values.subarray(s, e).sort();
  }
  return { kind: 'numeric', values, starts };
}

const EMPTY_STARTS = new Uint32Array(0);

function emptyDerived(maxDoc: number): NumericDocValues {
  return { kind: 'numeric', values: new Float64Array(0), starts: maxDoc === 0 ? EMPTY_STARTS : new Uint32Array(maxDoc + 1) };
}

/** Hands the wrapped aggregator each segment with the derived numbers added. */
function derivedContext(seg: SegmentContext, field: string | null, name: string, f: (lat: number, lon: number) => number): SegmentContext {
  const segment = seg.view.segment;
  const pv = pointsOf(segment, field);
  const dv = pv === null ? emptyDerived(segment.maxDoc) : derive(pv, segment.maxDoc, f);
  return { ...seg, view: { ...seg.view, segment: withDerived(segment, name, dv) } };
}

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/** The most characters a cell number keeps exactly (5 bits each within a double's 53). */
export const MAX_GEOHASH_PRECISION_HERE = 10;

/** A geohash cell as the number its base-32 digits make (cells of one precision sort as their geohashes). */
function cellNumber(lat: number, lon: number, precision: number): number {
  let minLat = -90;
  let maxLat = 90;
  let minLon = -180;
  let maxLon = 180;
  let n = 0;
  for (let bit = 0; bit < precision * 5; bit++) {
    if (bit % 2 === 0) {
      const mid = (minLon + maxLon) / 2;
      if (lon >= mid) {
        n = n * 2 + 1;
        minLon = mid;
      } else {
        n *= 2;
        maxLon = mid;
      }
    } else {
      const mid = (minLat + maxLat) / 2;
      if (lat >= mid) {
        n = n * 2 + 1;
        minLat = mid;
      } else {
        n *= 2;
        maxLat = mid;
      }
    }
  }
  return n;
}

/** The geohash text of a cell number. */
export function cellGeohash(n: number, precision: number): string {
  let out = '';
  let v = n;
  for (let i = 0; i < precision; i++) {
    out = BASE32[v % 32]! + out;
    v = Math.floor(v / 32);
  }
  return out;
}

/**
 * The terms aggregation a geohash_grid runs as: buckets by cell, most docs
 * first; ties by cell descending, as InternalGeoHashGrid's priority queue
 * leaves them.
 */
export function geohashTermsSpec(spec: GeoHashGridSpec): TermsSpec {
  return {
    type: 'terms',
    name: spec.name,
    meta: spec.meta,
    subs: spec.subs,
    source: { field: derivedName(spec.name), missing: null, valueType: null, format: null },
    size: spec.size,
    shardSize: spec.shardSize,
    minDocCount: 1,
    shardMinDocCount: 0,
    order: [
      { kind: 'count', asc: false },
      { kind: 'key', asc: false },
    ],
    include: null,
    exclude: null,
    showTermDocCountError: false,
  };
}

export class GeoHashGridAggregator implements Aggregator {
  readonly name: string;
  private readonly inner: NumericTermsAggregator;
  private readonly derived: string;

  constructor(
    private readonly spec: GeoHashGridSpec,
    subs: readonly Aggregator[],
    singleOwner: boolean,
    scope: ShardScope,
    private readonly field: string | null,
  ) {
    this.name = spec.name;
    this.derived = derivedName(spec.name);
    this.inner = new NumericTermsAggregator(geohashTermsSpec(spec), subs, singleOwner, scope, {
      kind: 'numeric',
      field: this.derived,
      numKind: 'long',
      missing: null,
      format: RAW_FORMAT,
    });
  }

  setSegment(seg: SegmentContext): void {
    const p = this.spec.precision;
    this.inner.setSegment(derivedContext(seg, this.field, this.derived, (lat, lon) => cellNumber(lat, lon, p)));
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    this.inner.collect(docs, owners, n);
  }

  build(owner: number): AggState {
    return this.inner.build(owner);
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    return this.inner.sortValue(owner, path, at, metric);
  }
}

/** The range aggregation a geo_distance aggregation runs as, over distances in its unit. */
export function geoDistanceRangeSpec(spec: GeoDistanceAggSpec): RangeSpec {
  return {
    type: 'range',
    name: spec.name,
    meta: spec.meta,
    subs: spec.subs,
    source: { field: derivedName(spec.name), missing: null, valueType: null, format: null },
    ranges: spec.ranges,
    keyed: spec.keyed,
    timeZone: null,
  };
}

export class GeoDistanceAggregator implements Aggregator {
  readonly name: string;
  private readonly inner: RangeAggregator;
  private readonly derived: string;

  constructor(
    private readonly spec: GeoDistanceAggSpec,
    subs: readonly Aggregator[],
    scope: ShardScope,
    private readonly field: string | null,
  ) {
    this.name = spec.name;
    this.derived = derivedName(spec.name);
    this.inner = new RangeAggregator(geoDistanceRangeSpec(spec), subs, scope, { kind: 'numeric', field: this.derived, numKind: 'double', missing: null, format: RAW_FORMAT }, RAW_FORMAT);
  }

  setSegment(seg: SegmentContext): void {
    const [oLat, oLon] = this.spec.origin;
    const measure = this.spec.plane ? planeMeters : haversinMeters;
    const unit = this.spec.unitMeters;
    this.inner.setSegment(derivedContext(seg, this.field, this.derived, (lat, lon) => measure(oLat, oLon, lat, lon) / unit));
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    this.inner.collect(docs, owners, n);
  }

  build(owner: number): AggState {
    return this.inner.build(owner);
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    return this.inner.sortValue(owner, path, at, metric);
  }
}
