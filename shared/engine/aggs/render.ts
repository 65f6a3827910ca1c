/**
 * The response's `aggregations` object from the reduced tree, in
 * Elasticsearch 6.8's shapes and field order, with `typed_keys` names
 * (`sterms#name`, `date_histogram#name`, `avg#name`, ...).
 */
import { javaDoubleToString } from './java-double.ts';
import type { ReducedAgg, ReducedBucket } from './reduced.ts';
import { bucketKeyString, percentilesEmpty, percentileValue } from './reduced.ts';
import type { TopHitState, ValueFormat } from './state.ts';
import { formatValue } from './value-format.ts';
import { setOwn } from '../../json/own-keys.ts';

type Json = Record<string, unknown>;

function typeName(agg: ReducedAgg): string {
  switch (agg.kind) {
    case 'terms':
      // UnmappedTerms.getType() is StringTerms.NAME: clients parse an unmapped field's terms as string terms.
      return agg.typeName === 'umterms' ? 'sterms' : agg.typeName;
    case 'histogram':
    case 'range':
    case 'single':
    case 'metric':
    case 'percentiles':
    case 'significant_terms':
      return agg.typeName;
    case 'filters':
      return agg.typeName ?? 'filters';
    case 'composite':
      return 'composite';
    case 'cardinality':
      return 'cardinality';
    case 'top_hits':
      return 'top_hits';
    case 'simple_value':
      return agg.typeName ?? 'simple_value';
    case 'bucket_metric_value':
      return 'bucket_metric_value';
    case 'stats_bucket':
      return 'stats_bucket';
    case 'geo_bounds':
      return 'geo_bounds';
    case 'geo_centroid':
      return 'geo_centroid';
  }
}

/** A number as JSON can carry it: NaN and ±∞ become null. */
function num(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

export function renderAggs(aggs: readonly ReducedAgg[], typedKeys: boolean, into: Json = {}): Json {
  for (const agg of aggs) {
    const key = typedKeys ? `${typeName(agg)}#${agg.name}` : agg.name;
    const body: Json = {};
    if (agg.meta !== null) body.meta = agg.meta;
    renderBody(agg, typedKeys, body);
    setOwn(into, key, body);
  }
  return into;
}

function valueFields(body: Json, value: number, hasValue: boolean, format: ValueFormat): void {
  body.value = hasValue ? num(value) : null;
  if (hasValue && Number.isFinite(value) && format.kind !== 'raw') body.value_as_string = formatValue(format, value);
}

function renderBucket(b: ReducedBucket, typedKeys: boolean, fields: Json): Json {
  fields.doc_count = b.docCount;
  return renderAggs(b.aggs, typedKeys, fields);
}

function renderHit(h: TopHitState): Json {
  const out: Json = { _index: h.index, _type: h.type, _id: h.id };
  if (h.version !== null) out._version = h.version;
  out._score = h.score;
  if (h.source !== undefined) out._source = h.source;
  if (h.sort !== null) out.sort = h.printedSort ?? h.sort;
  return out;
}

function renderBody(agg: ReducedAgg, typedKeys: boolean, body: Json): void {
  switch (agg.kind) {
    case 'geo_bounds':
      if (agg.box !== null) {
        body.bounds = {
          top_left: { lat: agg.box.top, lon: agg.box.left },
          bottom_right: { lat: agg.box.bottom, lon: agg.box.right },
        };
      }
      return;
    case 'geo_centroid':
      if (agg.location !== null) body.location = { lat: agg.location[0], lon: agg.location[1] };
      body.count = agg.count;
      return;
    case 'terms': {
      if (agg.typeName !== 'geohash_grid') {
        body.doc_count_error_upper_bound = agg.docCountError;
        body.sum_other_doc_count = agg.sumOtherDocCount;
      }
      body.buckets = agg.buckets.map((b) => {
        const f: Json = { key: b.key };
        if (b.keyAsString !== null) f.key_as_string = b.keyAsString;
        f.doc_count = b.docCount;
        if (agg.showDocCountError) f.doc_count_error_upper_bound = b.docCountError ?? 0;
        return renderAggs(b.aggs, typedKeys, f);
      });
      return;
    }
    case 'histogram': {
      const render = (b: ReducedBucket): Json => {
        const f: Json = {};
        if (b.keyAsString !== null) f.key_as_string = b.keyAsString;
        f.key = b.key;
        return renderBucket(b, typedKeys, f);
      };
      if (agg.keyed) {
        const out: Json = {};
        for (const b of agg.buckets) setOwn(out, b.keyAsString ?? javaDoubleToString(b.key as number), render(b));
        body.buckets = out;
      } else {
        body.buckets = agg.buckets.map(render);
      }
      if (agg.interval !== undefined) body.interval = agg.interval;
      return;
    }
    case 'range': {
      const render = (b: ReducedBucket, withKey: boolean): Json => {
        const f: Json = withKey ? { key: b.key } : {};
        if (b.fromText !== undefined || b.toText !== undefined) {
          if (b.fromText !== null) f.from = b.fromText;
          if (b.toText !== null) f.to = b.toText;
          return renderBucket(b, typedKeys, f);
        }
        if (b.from !== null && b.from !== undefined) {
          f.from = b.from;
          if (agg.format.kind !== 'raw') f.from_as_string = formatValue(agg.format, b.from);
        }
        if (b.to !== null && b.to !== undefined) {
          f.to = b.to;
          if (agg.format.kind !== 'raw') f.to_as_string = formatValue(agg.format, b.to);
        }
        return renderBucket(b, typedKeys, f);
      };
      if (agg.keyed) {
        const out: Json = {};
        for (const b of agg.buckets) setOwn(out, String(b.key), render(b, false));
        body.buckets = out;
      } else {
        body.buckets = agg.buckets.map((b) => render(b, true));
      }
      return;
    }
    case 'filters': {
      if (agg.typeName === 'adjacency_matrix') {
        body.buckets = agg.buckets.map((b) => renderBucket(b, typedKeys, { key: b.key }));
        return;
      }
      if (agg.keyed) {
        const out: Json = {};
        for (const b of agg.buckets) setOwn(out, bucketKeyString(b), renderBucket(b, typedKeys, {}));
        body.buckets = out;
      } else {
        body.buckets = agg.buckets.map((b) => renderBucket(b, typedKeys, {}));
      }
      return;
    }
    case 'composite':
      // InternalComposite.doXContentBody: after_key first, then the buckets.
      if (agg.afterKey !== null) body.after_key = agg.afterKey;
      body.buckets = agg.buckets.map((b) => renderBucket(b, typedKeys, { key: b.compositeKey ?? {} }));
      return;
    case 'single':
      body.doc_count = agg.docCount;
      renderAggs(agg.aggs, typedKeys, body);
      return;
    case 'significant_terms':
      // InternalSignificantTerms.doXContentBody and its buckets' toXContent.
      body.doc_count = agg.subsetSize;
      body.bg_count = agg.supersetSize;
      body.buckets = agg.buckets.map((b) => {
        const f: Json = { key: b.key };
        if (b.keyAsString !== null) f.key_as_string = b.keyAsString;
        f.doc_count = b.docCount;
        f.score = b.score;
        f.bg_count = b.bgCount;
        return renderAggs(b.aggs, typedKeys, f);
      });
      return;
    case 'metric':
      renderNumericMetric(agg, body);
      return;
    case 'cardinality':
      body.value = agg.value;
      return;
    case 'percentiles': {
      const empty = percentilesEmpty(agg);
      const valueOf = (p: number): number => percentileValue(agg, p);
      if (agg.keyed) {
        const out: Json = {};
        for (const p of agg.points) {
          const k = javaDoubleToString(p);
          const v = valueOf(p);
          out[k] = empty ? null : num(v);
          if (!empty && agg.format.kind !== 'raw') out[`${k}_as_string`] = formatValue(agg.format, v);
        }
        body.values = out;
      } else {
        body.values = agg.points.map((p) => {
          const v = valueOf(p);
          const f: Json = { key: p, value: empty ? null : num(v) };
          if (!empty && agg.format.kind !== 'raw') f.value_as_string = formatValue(agg.format, v);
          return f;
        });
      }
      return;
    }
    case 'top_hits':
      body.hits = { total: agg.total, max_score: agg.maxScore, hits: agg.hits.map(renderHit) };
      return;
    case 'simple_value':
      valueFields(body, agg.value, Number.isFinite(agg.value), agg.format);
      return;
    case 'bucket_metric_value':
      valueFields(body, agg.value, Number.isFinite(agg.value), agg.format);
      body.keys = agg.keys;
      return;
    case 'stats_bucket': {
      body.count = agg.count;
      body.min = agg.count === 0 ? null : num(agg.min);
      body.max = agg.count === 0 ? null : num(agg.max);
      body.avg = agg.count === 0 ? null : num(agg.sum / agg.count);
      body.sum = agg.count === 0 ? 0 : agg.sum;
      return;
    }
  }
}

function renderNumericMetric(agg: ReducedAgg & { kind: 'metric' }, body: Json): void {
  const fmt = agg.format;
  const count = agg.count;
  switch (agg.typeName) {
    case 'avg':
      valueFields(body, count === 0 ? NaN : agg.sum / count, count !== 0, fmt);
      return;
    case 'sum':
      valueFields(body, agg.sum, true, fmt);
      return;
    case 'min':
      valueFields(body, agg.min, Number.isFinite(agg.min), fmt);
      return;
    case 'max':
      valueFields(body, agg.max, Number.isFinite(agg.max), fmt);
      return;
    case 'value_count':
      body.value = count;
      return;
    case 'stats':
    case 'extended_stats': {
      body.count = count;
      const avg = count === 0 ? NaN : agg.sum / count;
      if (count !== 0) {
        body.min = num(agg.min);
        body.max = num(agg.max);
        body.avg = num(avg);
        body.sum = agg.sum;
      } else {
        body.min = null;
        body.max = null;
        body.avg = null;
        body.sum = 0;
      }
      if (agg.typeName === 'extended_stats') {
        if (count !== 0) {
          const variance = (agg.sumOfSquares - (agg.sum * agg.sum) / count) / count;
          const std = Math.sqrt(variance);
          body.sum_of_squares = agg.sumOfSquares;
          body.variance = num(variance);
          body.std_deviation = num(std);
          body.std_deviation_bounds = { upper: num(avg + std * agg.sigma), lower: num(avg - std * agg.sigma) };
        } else {
          body.sum_of_squares = null;
          body.variance = null;
          body.std_deviation = null;
          body.std_deviation_bounds = { upper: null, lower: null };
        }
      }
      if (count !== 0 && fmt.kind !== 'raw') {
        body.min_as_string = formatValue(fmt, agg.min);
        body.max_as_string = formatValue(fmt, agg.max);
        body.avg_as_string = formatValue(fmt, avg);
        body.sum_as_string = formatValue(fmt, agg.sum);
      }
      return;
    }
  }
}
