/**
 * `ip_range` (IpRangeAggregationBuilder, InternalBinaryRange): ranges of
 * addresses on an `ip` field, given as `from`/`to` or as a CIDR `mask`,
 * `from` inclusive and `to` exclusive in address order. Each segment's
 * addresses become their place among the ranges' sorted bounds (2i on
 * bound i, 2i+1 between bounds i and i+1), so the range aggregator counts
 * them, sub-aggregations included, and the reduce prints the bounds back as
 * addresses.
 */
import { ipTextOfHex } from '../mapping/ip-address.ts';
import type { NumericDocValues, Segment } from '../segment/types.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { derivedName, withDerived } from './derived-values.ts';
import { RangeAggregator } from './range-aggregator.ts';
import { reduceRange } from './reduce-fixed-buckets.ts';
import type { LevelReducer } from './reduce-terms.ts';
import type { ReducedRange } from './reduced.ts';
import type { AggPathElement, IpRangeAggSpec, RangeSpec } from './spec.ts';
import type { AggState, RangeState } from './state.ts';
import { sortedValues } from './value-source.ts';
import { RAW_FORMAT } from './value-format.ts';

/** The ranges' distinct bounds, ascending (as 32 hex digits). */
function boundsOf(spec: IpRangeAggSpec): string[] {
  const all = new Set<string>();
  for (const r of spec.ranges) {
    if (r.from !== null) all.add(r.from);
    if (r.to !== null) all.add(r.to);
  }
  return [...all].sort();
}

/** The place of an address among the bounds (see the module comment). */
function place(bounds: readonly string[], hex: string): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bounds[mid]! < hex) lo = mid + 1;
    else hi = mid;
  }
  return lo < bounds.length && bounds[lo] === hex ? 2 * lo : 2 * lo - 1;
}

/** The range aggregation ip_range runs as, over places. */
export function ipPlacesRangeSpec(spec: IpRangeAggSpec): RangeSpec {
  const bounds = boundsOf(spec);
  const at = (hex: string | null): number | null => (hex === null ? null : 2 * bounds.indexOf(hex));
  return {
    type: 'range',
    name: spec.name,
    meta: spec.meta,
    subs: spec.subs,
    source: { field: derivedName(spec.name), missing: null, valueType: null, format: null },
    ranges: spec.ranges.map((r) => ({ key: r.key ?? defaultKey(r.from, r.to), from: at(r.from), to: at(r.to) })),
    keyed: spec.keyed,
    timeZone: null,
  };
}

/** InternalBinaryRange's key: `from-to` with `*` for an open end. */
function defaultKey(from: string | null, to: string | null): string {
  return `${from === null ? '*' : ipTextOfHex(from)}-${to === null ? '*' : ipTextOfHex(to)}`;
}

/** Places of the addresses of a segment's docs (keyword doc values of the ip field). */
function placesOf(segment: Segment, field: string | null, bounds: readonly string[]): NumericDocValues {
  const maxDoc = segment.maxDoc;
  const starts = new Uint32Array(maxDoc + 1);
  const dv = sortedValues(segment, field);
  if (dv === null) return { kind: 'numeric', values: new Float64Array(0), starts };
  const ordPlace = new Float64Array(dv.dict.length);
  // the field's terms are the addresses in hex (ip-address.ts), ascending
  for (let o = 0; o < dv.dict.length; o++) ordPlace[o] = place(bounds, dv.dict.get(o));
  const values: number[] = [];
  for (let d = 0; d < maxDoc; d++) {
    starts[d] = values.length;
    const from = values.length;
    if (dv.starts === null) {
      const o = dv.ords[d]!;
      if (o >= 0) values.push(ordPlace[o]!);
    } else {
      for (let j = dv.starts[d]!; j < dv.starts[d + 1]!; j++) values.push(ordPlace[dv.ords[j]!]!);
    }
    if (values.length - from > 1) {
      const mine = values.splice(from).sort((a, b) => a - b);
      values.push(...mine);
    }
  }
  starts[maxDoc] = values.length;
  return { kind: 'numeric', values: Float64Array.from(values), starts };
}

export class IpRangeAggregator implements Aggregator {
  readonly name: string;
  private readonly inner: RangeAggregator;
  private readonly derived: string;
  private readonly bounds: string[];

  constructor(
    spec: IpRangeAggSpec,
    subs: readonly Aggregator[],
    scope: ShardScope,
    private readonly field: string | null,
  ) {
    this.name = spec.name;
    this.derived = derivedName(spec.name);
    this.bounds = boundsOf(spec);
    this.inner = new RangeAggregator(ipPlacesRangeSpec(spec), subs, scope, { kind: 'numeric', field: this.derived, numKind: 'double', missing: null, format: RAW_FORMAT }, RAW_FORMAT);
  }

  setSegment(seg: SegmentContext): void {
    const segment = seg.view.segment;
    const dv = placesOf(segment, this.field, this.bounds);
    this.inner.setSegment({ ...seg, view: { ...seg.view, segment: withDerived(segment, this.derived, dv) } });
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

/** The reduced ranges, with each bucket's bounds as addresses. */
export function reduceIpRange(spec: IpRangeAggSpec, states: readonly RangeState[], reduceLevel: LevelReducer): ReducedRange {
  const bounds = boundsOf(spec);
  const text = (place: number | null | undefined): string | null => (place === null || place === undefined || !Number.isFinite(place) ? null : ipTextOfHex(bounds[place / 2]!));
  const reduced = reduceRange(ipPlacesRangeSpec(spec), states, reduceLevel);
  return {
    ...reduced,
    typeName: 'ip_range',
    buckets: reduced.buckets.map((b) => ({ ...b, fromText: text(b.from), toText: text(b.to) })),
  };
}
