/**
 * Index settings and time values as Elasticsearch 6.8 parses, validates and
 * prints them (GET /{index}/_settings).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError, type EsError } from '../../../shared/errors/es-errors.ts';
import { parseIndexSettings, renderSettings, validateSettingsUpdate } from '../../../shared/engine/mapping/index-settings.ts';
import { parseTimeValue } from '../../../shared/engine/mapping/time-value.ts';

function failure(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    assert.ok(isEsError(e), `expected an EsError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

const META = { uuid: 'Xq1', creationDate: 1577836800000, providedName: 'test_index' };

describe('index settings', () => {
  it('defaults: 5 shards, 1 replica, refresh every second, 10000 result window', () => {
    const s = parseIndexSettings(undefined);
    assert.equal(s.numberOfShards, 5);
    assert.equal(s.numberOfReplicas, 1);
    assert.equal(s.refreshInterval, '1s');
    assert.equal(s.refreshIntervalMs, 1000);
    assert.equal(s.maxResultWindow, 10000);
    assert.equal(s.maxNgramDiff, 1);
    assert.equal(s.routingNumShards, 5);
    assert.equal(s.analysis, undefined);
  });

  it('index.shard.check_on_startup takes true, false, fix or checksum, and refuses anything else with Elasticsearch\'s message', () => {
    for (const v of ['true', 'false', 'fix', 'checksum', true, false]) parseIndexSettings({ 'index.shard.check_on_startup': v });
    const e = failure(() => parseIndexSettings({ index: { shard: { check_on_startup: 'blargh' } } }));
    assert.equal(e.status, 400);
    assert.equal(e.type, 'illegal_argument_exception');
    assert.equal(e.reason, 'unknown value for [index.shard.check_on_startup] must be one of [true, false, fix, checksum] but was: blargh');
  });

  it('nested, flat and bare keys, numbers or strings, all mean the same', () => {
    for (const body of [
      { index: { number_of_shards: 3, number_of_replicas: '0' } },
      { 'index.number_of_shards': '3', 'index.number_of_replicas': 0 },
      { number_of_shards: 3, number_of_replicas: 0 },
    ]) {
      const s = parseIndexSettings(body);
      assert.equal(s.numberOfShards, 3);
      assert.equal(s.numberOfReplicas, 0);
    }
  });

  it('prints every value as a string, with the index metadata, in Elasticsearch\'s order', () => {
    const s = parseIndexSettings({ number_of_replicas: '0' });
    const out = renderSettings(s, META);
    assert.equal(
      JSON.stringify(out),
      JSON.stringify({
        index: {
          creation_date: '1577836800000',
          number_of_shards: '5',
          number_of_replicas: '0',
          uuid: 'Xq1',
          version: { created: '6080099' },
          provided_name: 'test_index',
        },
      }),
    );
  });

  it('analysis is kept for the analysis registry and printed with string values', () => {
    const analysis = {
      analyzer: { plate_ngram: { type: 'custom', tokenizer: 'plate_tokenizer', filter: ['lowercase'] } },
      tokenizer: { plate_tokenizer: { type: 'ngram', min_gram: 2, max_gram: 3, token_chars: ['letter', 'digit'] } },
    };
    const s = parseIndexSettings({ index: { analysis, max_ngram_diff: 1 } });
    assert.deepEqual(s.analysis, analysis);
    const printed = renderSettings(s, META).index as Record<string, unknown>;
    assert.deepEqual(printed.analysis, {
      analyzer: { plate_ngram: { type: 'custom', tokenizer: 'plate_tokenizer', filter: ['lowercase'] } },
      tokenizer: { plate_tokenizer: { type: 'ngram', min_gram: '2', max_gram: '3', token_chars: ['letter', 'digit'] } },
    });
  });

  it('unknown index settings are kept as given', () => {
    const s = parseIndexSettings({ 'index.codec': 'best_compression' });
    assert.equal((renderSettings(s, META).index as Record<string, unknown>).codec, 'best_compression');
  });

  it('refresh_interval -1 disables refresh; values without unit are refused', () => {
    assert.equal(parseIndexSettings({ refresh_interval: -1 }).refreshIntervalMs, -1);
    assert.equal(parseIndexSettings({ refresh_interval: '500ms' }).refreshIntervalMs, 500);
    assert.equal(
      failure(() => parseIndexSettings({ refresh_interval: '10' })).reason,
      'failed to parse setting [index.refresh_interval] with value [10] as a time value: unit is missing or unrecognized',
    );
  });

  it('out-of-range and malformed numbers are refused with Setting\'s texts', () => {
    assert.equal(failure(() => parseIndexSettings({ number_of_shards: 0 })).reason, 'Failed to parse value [0] for setting [index.number_of_shards] must be >= 1');
    assert.equal(failure(() => parseIndexSettings({ number_of_shards: 1025 })).reason, 'Failed to parse value [1025] for setting [index.number_of_shards] must be <= 1024');
    assert.equal(failure(() => parseIndexSettings({ number_of_replicas: -1 })).reason, 'Failed to parse value [-1] for setting [index.number_of_replicas] must be >= 0');
    const e = failure(() => parseIndexSettings({ number_of_shards: 'abc' }));
    assert.equal(e.type, 'illegal_argument_exception');
    assert.equal(e.reason, 'Failed to parse value [abc] for setting [index.number_of_shards]');
    assert.equal(e.causedBy?.type, 'number_format_exception');
    assert.equal(e.causedBy?.reason, 'For input string: "abc"');
  });

  it('routing shards must be a multiple of the shards', () => {
    assert.equal(parseIndexSettings({ number_of_shards: 2, number_of_routing_shards: 8 }).routingNumShards, 8);
    assert.equal(
      failure(() => parseIndexSettings({ number_of_shards: 4, number_of_routing_shards: 2 })).reason,
      'index.number_of_routing_shards [2] must be >= index.number_of_shards [4]',
    );
  });
});

describe('settings updates', () => {
  const current = parseIndexSettings({ number_of_shards: 3, number_of_replicas: 1 });

  it('replicas and refresh interval change; null resets to the default', () => {
    const next = validateSettingsUpdate(current, { index: { number_of_replicas: 2, refresh_interval: '-1' } });
    assert.equal(next.numberOfReplicas, 2);
    assert.equal(next.refreshIntervalMs, -1);
    assert.equal(next.numberOfShards, 3);
    const reset = validateSettingsUpdate(next, { refresh_interval: null, number_of_replicas: null });
    assert.equal(reset.refreshIntervalMs, 1000);
    assert.equal(reset.numberOfReplicas, 1);
  });

  it('number_of_shards cannot change on an open index', () => {
    const e = failure(() => validateSettingsUpdate(current, { number_of_shards: 6 }, { index: 'idx', uuid: 'u1' }));
    assert.equal(e.type, 'illegal_argument_exception');
    assert.equal(e.reason, "Can't update non dynamic settings [[index.number_of_shards]] for open indices [[idx/u1]]");
  });
});

describe('time values', () => {
  it('units', () => {
    assert.equal(parseTimeValue('1s', 't'), 1000);
    assert.equal(parseTimeValue('500ms', 't'), 500);
    assert.equal(parseTimeValue('1m', 't'), 60_000);
    assert.equal(parseTimeValue('2h', 't'), 7_200_000);
    assert.equal(parseTimeValue('1d', 't'), 86_400_000);
    assert.equal(parseTimeValue('1500micros', 't'), 1);
    assert.equal(parseTimeValue('-1', 't'), -1);
    assert.equal(parseTimeValue('0', 't'), 0);
    assert.equal(parseTimeValue(' 5S ', 't'), 5000);
  });

  it('errors', () => {
    assert.equal(failure(() => parseTimeValue('1M', 'x')).reason, 'failed to parse setting [x] with value [1M] as a time value: unit is missing or unrecognized');
    assert.equal(failure(() => parseTimeValue('1.5s', 'x')).reason, 'failed to parse [1.5s], fractional time values are not supported');
    assert.equal(failure(() => parseTimeValue('abcs', 'x')).reason, 'failed to parse [abcs]');
    assert.equal(failure(() => parseTimeValue('-2s', 'x')).reason, 'failed to parse setting [x] with value [-2s] as a time value: negative durations are not supported');
  });
});
