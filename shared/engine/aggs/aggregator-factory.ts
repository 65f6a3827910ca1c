/**
 * Builds the shard's aggregator tree from the specs, resolving every field
 * against this shard's mapping (children first, so a parent receives its
 * collectors ready made).
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { Aggregator, ShardScope } from './aggregator.ts';
import { CardinalityAggregator } from './cardinality-aggregator.ts';
import { HistogramAggregator } from './histogram-aggregator.ts';
import { NumericMetricsAggregator } from './numeric-metrics-aggregator.ts';
import { PercentilesAggregator } from './percentiles-aggregator.ts';
import { RangeAggregator } from './range-aggregator.ts';
import { FilterAggregator, FiltersAggregator, GlobalAggregator, MissingAggregator } from './single-bucket-aggregators.ts';
import { NestedAggregator, ReverseNestedAggregator } from './nested-aggregators.ts';
import type { AggSpec, BucketAggSpec, MetricAggSpec } from './spec.ts';
import { collectedAggs } from './spec.ts';
import type { AggState } from './state.ts';
import { NumericTermsAggregator, OrdinalsTermsAggregator, unmappedTermsState } from './terms-aggregator.ts';
import { TopHitsAggregator } from './top-hits-aggregator.ts';
import { SamplerAggregator } from './sampler-aggregator.ts';
import { SignificantTermsAggregator, sourceTerms } from './significant-terms.ts';
import { resolveSource, type ResolvedSource } from './value-source.ts';
import { DEFAULT_DATE_FORMAT } from './date-formats.ts';
import { RAW_FORMAT } from './value-format.ts';
import { IpRangeAggregator } from './ip-range-aggregator.ts';
import { CompositeAggregator } from './composite-aggregator.ts';
import { WeightedAvgAggregator } from './weighted-avg.ts';
import { AdjacencyMatrixAggregator } from './adjacency-matrix.ts';
import { AutoDateHistogramAggregator } from './auto-date-histogram.ts';
import { GeoBoundsAggregator, GeoCentroidAggregator, GeoDistanceAggregator, GeoHashGridAggregator, geoField } from './geo-aggregators.ts';

/** An aggregation on a field this shard does not map: a fixed empty state. */
class FixedStateAggregator implements Aggregator {
  constructor(
    readonly name: string,
    private readonly state: AggState,
  ) {}
  setSegment(): void {}
  collect(): void {}
  build(): AggState {
    return this.state;
  }
  sortValue(): number {
    return NaN;
  }
}

export function createAggregators(specs: readonly AggSpec[], scope: ShardScope, singleOwner: boolean): Aggregator[] {
  return collectedAggs(specs).map((s) => createAggregator(s, scope, singleOwner));
}

function createAggregator(spec: BucketAggSpec | MetricAggSpec, scope: ShardScope, singleOwner: boolean): Aggregator {
  const mapping = scope.ctx.mapping;
  const children = (single: boolean): Aggregator[] => createAggregators(spec.subs, scope, single);
  switch (spec.type) {
    case 'terms': {
      const src = resolveSource(spec.source, mapping, { numericOnly: false, timeZone: null, unmappedDefault: 'bytes' });
      if (src.kind === 'unmapped') return new FixedStateAggregator(spec.name, unmappedTermsState());
      if (src.kind === 'bytes') return new OrdinalsTermsAggregator(spec, children(false), singleOwner, scope, src);
      return new NumericTermsAggregator(spec, children(false), singleOwner, scope, src);
    }
    case 'date_histogram':
    case 'histogram': {
      const tz = spec.type === 'date_histogram' ? spec.timeZone : null;
      const src = resolveSource(spec.source, mapping, { numericOnly: true, timeZone: tz, unmappedDefault: 'numeric' });
      const numeric: ResolvedSource & { kind: 'numeric' } =
        src.kind === 'numeric'
          ? src
          : {
              kind: 'numeric',
              field: null,
              numKind: spec.type === 'date_histogram' ? 'date' : 'double',
              missing: null,
              format:
                spec.type === 'date_histogram'
                  ? { kind: 'date', pattern: spec.source.format ?? DEFAULT_DATE_FORMAT, timeZone: tz }
                  : RAW_FORMAT,
            };
      return new HistogramAggregator(spec, children(false), singleOwner, scope, numeric);
    }
    case 'range':
    case 'date_range': {
      const tz = spec.type === 'date_range' ? spec.timeZone : null;
      const src = resolveSource(spec.source, mapping, { numericOnly: true, timeZone: tz, unmappedDefault: 'numeric' });
      const format =
        src.kind === 'numeric'
          ? src.format
          : spec.type === 'date_range'
            ? { kind: 'date' as const, pattern: spec.source.format ?? DEFAULT_DATE_FORMAT, timeZone: tz }
            : RAW_FORMAT;
      return new RangeAggregator(spec, children(false), scope, src.kind === 'numeric' ? src : null, format);
    }
    case 'filter':
      return new FilterAggregator(spec, children(singleOwner));
    case 'filters':
      return new FiltersAggregator(spec, children(false));
    case 'missing': {
      const src = resolveSource(spec.source, mapping, { numericOnly: false, timeZone: null, unmappedDefault: 'bytes' });
      return new MissingAggregator(spec, children(singleOwner), src);
    }
    case 'global':
      return new GlobalAggregator(spec, children(singleOwner));
    case 'sampler':
    case 'diversified_sampler': {
      const diversity = spec.diversity === null ? null : resolveSource(spec.diversity.source, mapping, { numericOnly: false, timeZone: null, unmappedDefault: 'bytes' });
      return new SamplerAggregator(spec, children(false), diversity);
    }
    case 'significant_text': {
      const fm = spec.source.field === null ? undefined : mapping.field(spec.source.field);
      const src: ResolvedSource = fm === undefined ? { kind: 'unmapped' } : { kind: 'bytes', field: spec.source.field, missing: null };
      return new SignificantTermsAggregator(spec, src, scope, children(false), fm === undefined ? null : sourceTerms(spec.text!.sourceFields, fm, scope.ctx.analyzers, spec.text!.filterDuplicateText));
    }
    case 'significant_terms': {
      const fm = spec.source.field === null ? undefined : mapping.field(spec.source.field);
      if (fm !== undefined && fm.type === 'text' && fm.fielddata) {
        // a text field's field data are its analysed terms: read as significant_text reads them, from _source
        const src: ResolvedSource = { kind: 'bytes', field: fm.path, missing: null };
        return new SignificantTermsAggregator(spec, src, scope, children(false), sourceTerms([fm.path], fm, scope.ctx.analyzers, false));
      }
      const src = resolveSource(spec.source, mapping, { numericOnly: false, timeZone: null, unmappedDefault: 'bytes' });
      return new SignificantTermsAggregator(spec, src, scope, children(false));
    }
    case 'nested':
      return new NestedAggregator(spec, children(singleOwner), mapping);
    case 'reverse_nested':
      return new ReverseNestedAggregator(spec, children(singleOwner), mapping);
    case 'avg':
    case 'sum':
    case 'min':
    case 'max':
    case 'stats':
    case 'extended_stats':
    case 'value_count': {
      const numericOnly = spec.type !== 'value_count';
      const src = resolveSource(spec.source, mapping, { numericOnly, timeZone: null, unmappedDefault: numericOnly ? 'numeric' : 'bytes' });
      return new NumericMetricsAggregator(spec, src);
    }
    case 'cardinality': {
      const src = resolveSource(spec.source, mapping, { numericOnly: false, timeZone: null, unmappedDefault: 'bytes' });
      return new CardinalityAggregator(spec, src, singleOwner);
    }
    case 'percentiles':
    case 'percentile_ranks': {
      const src = resolveSource(spec.source, mapping, { numericOnly: true, timeZone: null, unmappedDefault: 'numeric' });
      return new PercentilesAggregator(spec, src);
    }
    case 'top_hits':
      return new TopHitsAggregator(spec, scope);
    case 'geo_bounds':
      return new GeoBoundsAggregator(spec, geoField(mapping, spec.field));
    case 'geo_centroid':
      return new GeoCentroidAggregator(spec, geoField(mapping, spec.field));
    case 'geohash_grid':
      return new GeoHashGridAggregator(spec, children(false), singleOwner, scope, geoField(mapping, spec.field));
    case 'ip_range': {
      const fm = mapping.field(spec.field);
      if (fm !== undefined && fm.mappedType !== 'ip') {
        throw illegalArgument(`Field [${spec.field}] of type [${fm.mappedType ?? fm.type}] is not supported for aggregation [ip_range]`);
      }
      return new IpRangeAggregator(spec, children(false), scope, fm === undefined ? null : fm.path);
    }
    case 'composite':
      return new CompositeAggregator(spec, children(false), scope);
    case 'median_absolute_deviation': {
      // the values' t-digest per bucket, as percentiles collect it
      const src = resolveSource(spec.source, mapping, { numericOnly: true, timeZone: null, unmappedDefault: 'numeric' });
      const digestSpec = { ...spec, type: 'percentiles' as const, points: [], keyed: false, method: 'tdigest' as const, digits: 0 };
      return new PercentilesAggregator(digestSpec, src);
    }
    case 'weighted_avg': {
      const opts = { numericOnly: true, timeZone: null, unmappedDefault: 'numeric' as const };
      return new WeightedAvgAggregator(spec, resolveSource(spec.value, mapping, opts), resolveSource(spec.weight, mapping, opts));
    }
    case 'auto_date_histogram': {
      const src = resolveSource(spec.source, mapping, { numericOnly: true, timeZone: spec.timeZone, unmappedDefault: 'numeric' });
      const numeric: ResolvedSource & { kind: 'numeric' } =
        src.kind === 'numeric'
          ? src
          : { kind: 'numeric', field: null, numKind: 'date', missing: null, format: { kind: 'date', pattern: spec.source.format ?? DEFAULT_DATE_FORMAT, timeZone: spec.timeZone } };
      return new AutoDateHistogramAggregator(spec, children(false), scope, numeric);
    }
    case 'adjacency_matrix':
      return new AdjacencyMatrixAggregator(spec, children(false), scope);
    case 'geo_distance':
      return new GeoDistanceAggregator(spec, children(false), scope, geoField(mapping, spec.field));
    default: {
      const never: never = spec;
      throw illegalArgument(`unsupported aggregation ${(never as { type: string }).type}`);
    }
  }
}
