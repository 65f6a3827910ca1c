import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { mappingOf, runAggs } from './fixtures.ts';

const mapping = mappingOf({ name: 'keyword', num: 'integer', created: 'date', title: 'text', 'title.keyword': 'keyword' });

function refused(aggs: unknown, type: string, reason: string | RegExp, status = 400): void {
  assert.throws(
    () => parseAggregations(aggs, mapping),
    (e: unknown) => {
      assert.ok(e instanceof EsError, String(e));
      assert.equal(e.type, type);
      assert.equal(e.status, status);
      if (typeof reason === 'string') assert.equal(e.reason, reason);
      else assert.match(e.reason, reason);
      return true;
    },
  );
}

describe('parseAggregations refusals', () => {
  it('text fields need fielddata; keyword sub-fields work', () => {
    refused({ t: { terms: { field: 'title' } } }, 'illegal_argument_exception', /^Fielddata is disabled on text fields by default\. Set fielddata=true on \[title\]/);
    assert.equal(parseAggregations({ t: { terms: { field: 'title.keyword' } } }, mapping).length, 1);
  });

  it('numeric aggregations on keywords', () => {
    refused({ a: { avg: { field: 'name' } } }, 'illegal_argument_exception', 'Expected numeric type on field [name], but got [keyword]');
  });

  it('unknown aggregation type, missing type, two types, bad names, unknown parameters', () => {
    refused({ x: { termz: { field: 'name' } } }, 'named_object_not_found_exception', 'unable to parse BaseAggregationBuilder with name [termz]: parser not found');
    refused({ x: { aggs: { y: { avg: { field: 'num' } } } } }, 'parsing_exception', 'Missing definition for aggregation [x]');
    refused({ x: { avg: { field: 'num' }, max: { field: 'num' } } }, 'parsing_exception', 'Found two aggregation type definitions in [x]: [avg] and [max]');
    refused({ 'a>b': { avg: { field: 'num' } } }, 'parsing_exception', "Invalid aggregation name [a>b]. Aggregation names can contain any character except '[', ']', and '>'");
    refused({ x: 'avg' }, 'parsing_exception', 'Aggregation definition for [x starts with a [VALUE_STRING], expected a [START_OBJECT].');
    refused({ x: { terms: { field: 'name', foo: 1 } } }, 'x_content_parse_exception', '[terms] unknown field [foo], parser not found');
    refused({ x: { avg: { field: 'num' }, aggs: { y: { max: { field: 'num' } } } } }, 'aggregation_initialization_exception', 'Aggregator [x] of type [avg] cannot accept sub-aggregations', 500);
  });

  it('parameter ranges as Elasticsearch words them', () => {
    refused({ d: { cardinality: { field: 'num', precision_threshold: -1 } } }, 'illegal_argument_exception', '[precisionThreshold] must be greater than or equal to 0. Found [-1] in [d]');
    refused({ t: { terms: { field: 'name', size: 0 } } }, 'illegal_argument_exception', '[size] must be greater than 0. Found [0] in [t]');
    refused({ h: { histogram: { field: 'num', interval: 0 } } }, 'illegal_argument_exception', '[interval] must be >0 for histogram aggregation [h]');
    refused({ r: { range: { field: 'num' } } }, 'illegal_argument_exception', 'No [ranges] specified for the [r] aggregation');
    refused({ h: { date_histogram: { field: 'created', interval: 'fortnight' } } }, 'illegal_argument_exception', /unit is missing or unrecognized/);
    refused({ h: { date_histogram: { field: 'created', interval: 'day', time_zone: 'Mars/Olympus' } } }, 'illegal_argument_exception', "The datetime zone id 'Mars/Olympus' is not recognised");
  });

  it('deprecated _term and _time order keys warn', () => {
    const warnings: string[] = [];
    parseAggregations({ t: { terms: { field: 'name', order: { _term: 'desc' } } }, h: { histogram: { field: 'num', interval: 1, order: { _time: 'asc' } } } }, mapping, (w) => warnings.push(w));
    assert.deepEqual(warnings, [
      'Deprecated aggregation order key [_term] used, replaced by [_key]',
      'Deprecated aggregation order key [_time] used, replaced by [_key]',
    ]);
  });

  it('global only at the top level', () => {
    refused(
      { t: { terms: { field: 'name' }, aggs: { g: { global: {} } } } },
      'aggregation_execution_exception',
      'Aggregation [t] cannot have a global sub-aggregation [g]. Global aggregations can only be defined as top level aggregations',
      500,
    );
  });
});

describe('typed_keys', () => {
  it('names every aggregation type as Elasticsearch 6.8 does', () => {
    const docs = [
      { name: 'one', num: 1, created: '2010-03-12T01:07:45Z' },
      { name: 'two', num: 2, created: '2010-03-12T04:11:00Z' },
      { name: 'three', num: 3, created: '2010-04-27T03:43:34Z' },
    ];
    const out = runAggs(
      {
        test_avg: { avg: { field: 'num' } },
        test_cardinality: { cardinality: { field: 'name' } },
        test_extended_stats: { extended_stats: { field: 'num' } },
        test_max: { max: { field: 'num' } },
        test_min: { min: { field: 'num' } },
        test_percentiles: { percentiles: { field: 'num' } },
        test_percentile_ranks: { percentile_ranks: { field: 'num', values: [0, 10] } },
        test_stats: { stats: { field: 'num' } },
        test_sum: { sum: { field: 'num' } },
        test_terms: { terms: { field: 'name' }, aggs: { test_top_hits: { top_hits: { sort: 'num' } } } },
        test_lterms: { terms: { field: 'num' } },
        test_value_count: { value_count: { field: 'num' } },
        test_created_histogram: {
          date_histogram: { field: 'created', interval: 'month' },
          aggregations: { test_sum: { sum: { field: 'num' } }, test_moving_avg: { moving_avg: { buckets_path: 'test_sum' } } },
        },
        test_max_bucket: { max_bucket: { buckets_path: 'test_created_histogram>test_sum' } },
        f: { filter: { term: { name: 'one' } } },
        fs: { filters: { filters: { a: { term: { name: 'one' } } } } },
        m: { missing: { field: 'num' } },
        g: { global: {} },
        r: { range: { field: 'num', ranges: [{ to: 2 }] } },
        dr: { date_range: { field: 'created', ranges: [{ to: 'now' }] } },
        h: { histogram: { field: 'num', interval: 1 } },
      },
      [[docs]],
      mapping,
      { typedKeys: true },
    );
    assert.deepEqual(Object.keys(out), [
      'avg#test_avg',
      'cardinality#test_cardinality',
      'extended_stats#test_extended_stats',
      'max#test_max',
      'min#test_min',
      'tdigest_percentiles#test_percentiles',
      'tdigest_percentile_ranks#test_percentile_ranks',
      'stats#test_stats',
      'sum#test_sum',
      'sterms#test_terms',
      'lterms#test_lterms',
      'value_count#test_value_count',
      'date_histogram#test_created_histogram',
      'filter#f',
      'filters#fs',
      'missing#m',
      'global#g',
      'range#r',
      'date_range#dr',
      'histogram#h',
      'bucket_metric_value#test_max_bucket',
    ]);
    const terms = out['sterms#test_terms'] as { buckets: Record<string, unknown>[] };
    for (const b of terms.buckets) assert.ok(b['top_hits#test_top_hits']);
    const histo = out['date_histogram#test_created_histogram'] as { buckets: Record<string, unknown>[] };
    assert.ok(histo.buckets[0]!['sum#test_sum']);
    assert.ok(histo.buckets[1]!['simple_value#test_moving_avg']);
    assert.deepEqual(out['tdigest_percentile_ranks#test_percentile_ranks'], { values: { '0.0': 0, '10.0': 100 } });
  });
});
