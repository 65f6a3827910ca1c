/**
 * The shard side of `range` and `date_range`: ranges sorted by (from, to) as
 * Elasticsearch sorts them, `from` inclusive and `to` exclusive, a doc counted
 * once per range it has a value in. Bucket id = owner × ranges + range.
 */
import type { NumericDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { DocOwnerBuffer, flushToChildren, growI32 } from './aggregator.ts';
import { dateFormatterFor, DEFAULT_DATE_FORMAT, resolveDateValue } from './date-formats.ts';
import { illegalArgument } from '../../errors/es-errors.ts';
import type { AggPathElement, RangeSpec } from './spec.ts';
import type { AggState, RangeBucketState, ValueFormat } from './state.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues } from './value-source.ts';
import { formatValue } from './value-format.ts';
import { subAggSortValue } from './aggregator.ts';

interface ResolvedRange {
  readonly key: string;
  readonly from: number; // -Infinity when open
  readonly to: number; // +Infinity when open
}

export function resolveRanges(spec: RangeSpec, format: ValueFormat, nowMillis: number): ResolvedRange[] {
  const parse = (v: string | number | null, open: number): number => {
    if (v === null) return open;
    if (spec.type === 'date_range') {
      const pattern = format.kind === 'date' ? format.pattern : DEFAULT_DATE_FORMAT;
      // a number is read with the format too, as a range query reads it (6.0+: `from: 1000` on epoch_second is 1000 s)
      return resolveDateValue(String(v), dateFormatterFor(pattern), spec.timeZone, nowMillis);
    }
    const n = typeof v === 'number' ? v : Number(v);
    if (Number.isNaN(n)) throw illegalArgument(`For input string: "${String(v)}"`);
    return n;
  };
  const ranges = spec.ranges.map((r) => {
    const from = parse(r.from, -Infinity);
    const to = parse(r.to, Infinity);
    const key =
      r.key ??
      `${from === -Infinity ? '*' : formatValue(format, from)}-${to === Infinity ? '*' : formatValue(format, to)}`;
    return { key, from, to };
  });
  return ranges.sort((a, b) => (a.from !== b.from ? a.from - b.from : a.to - b.to));
}

export class RangeAggregator implements Aggregator {
  readonly name: string;
  private readonly ranges: ResolvedRange[];
  private counts = new Int32Array(16);
  private readonly buf = new DocOwnerBuffer();
  private dv: NumericDocValues | null = null;
  private readonly hit: Uint8Array;

  constructor(
    private readonly spec: RangeSpec,
    private readonly subs: readonly Aggregator[],
    scope: ShardScope,
    private readonly source: (ResolvedSource & { kind: 'numeric' }) | null,
    private readonly format: ValueFormat,
  ) {
    this.name = spec.name;
    this.ranges = resolveRanges(spec, format, scope.ctx.nowMillis);
    this.hit = new Uint8Array(this.ranges.length);
  }

  setSegment(seg: SegmentContext): void {
    this.dv = this.source === null ? null : numericValues(seg.view.segment, this.source.field);
    for (const s of this.subs) s.setSegment(seg);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    if (this.source === null) return;
    const dv = this.dv;
    const missing = this.source.missing;
    const R = this.ranges.length;
    const buf = this.buf;
    const hasSubs = this.subs.length > 0;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const base = owners[i]! * R;
      this.hit.fill(0);
      if (dv === null || dv.starts === null) {
        let v = dv === null ? NaN : dv.values[doc]!;
        if (v !== v) {
          if (missing === null) continue;
          v = missing;
        }
        this.mark(v);
      } else {
        const from = dv.starts[doc]!;
        const to = dv.starts[doc + 1]!;
        if (from === to) {
          if (missing === null) continue;
          this.mark(missing);
        }
        for (let j = from; j < to; j++) this.mark(dv.values[j]!);
      }
      if (hasSubs) buf.ensure(R);
      for (let r = 0; r < R; r++) {
        if (this.hit[r] === 0) continue;
        const b = base + r;
        if (b >= this.counts.length) this.counts = growI32(this.counts, b + 1);
        this.counts[b]!++;
        if (hasSubs) {
          buf.docs[buf.n] = doc;
          buf.owners[buf.n++] = b;
        }
      }
    }
    flushToChildren(this.subs, buf);
  }

  private mark(v: number): void {
    const ranges = this.ranges;
    for (let r = 0; r < ranges.length; r++) {
      const range = ranges[r]!;
      if (v >= range.from && v < range.to) this.hit[r] = 1;
    }
  }

  build(owner: number): AggState {
    const R = this.ranges.length;
    const buckets: RangeBucketState[] = this.ranges.map((r, i) => {
      const b = owner * R + i;
      const inRange = owner !== 0x7fffffff && b < this.counts.length;
      return {
        key: r.key,
        from: r.from === -Infinity ? null : r.from,
        to: r.to === Infinity ? null : r.to,
        docCount: inRange ? this.counts[b]! : 0,
        subs: this.subs.map((s) => s.build(inRange ? b : 0x7fffffff)),
      };
    });
    return { kind: 'range', format: this.format, buckets };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    // range['key']>metric or range['key']._count
    const el = path[at];
    const idx = el?.key === null || el === undefined ? -1 : this.ranges.findIndex((r) => r.key === el.key);
    if (idx < 0) return NaN;
    const b = owner * this.ranges.length + idx;
    if (at === path.length - 1) return metric === null || metric === '_count' ? (b < this.counts.length ? this.counts[b]! : 0) : NaN;
    return subAggSortValue(this.subs, b, path, at + 1, metric);
  }
}
