import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ewma, holt, holtWinters, linearWeightedAvg, max, min, stdDev, sum, unweightedAvg } from '../../../shared/engine/aggs/moving-functions.ts';
import { compileScript, runMovingFunction, runScript } from '../../../shared/engine/aggs/painless-expression.ts';
import { mappingOf, runAggs, type Doc } from './fixtures.ts';
import { renderError, type EsError } from '../../../shared/errors/es-errors.ts';

describe('MovingFunctions', () => {
  const w = [1, 2, NaN, 4];
  it('max, min (NaN wins, empty is NaN), sum (NaN as 0, empty 0)', () => {
    assert.equal(max([3, 9, 2]), 9);
    assert.equal(min([3, 9, 2]), 2);
    assert.ok(Number.isNaN(max(w)));
    assert.ok(Number.isNaN(max([])));
    assert.equal(sum(w), 7);
    assert.equal(sum([]), 0);
  });
  it('unweightedAvg and stdDev skip NaN', () => {
    assert.equal(unweightedAvg(w), 7 / 3);
    assert.ok(Number.isNaN(unweightedAvg([])));
    assert.equal(stdDev([2, 4, 4, 4, 5, 5, 7, 9], 5), 2);
    assert.ok(Number.isNaN(stdDev([], NaN)));
  });
  it('linearWeightedAvg: weights 1..n over a total that starts at 1', () => {
    // (1×1 + 2×2 + 4×3) / (1 + 1 + 2 + 3)
    assert.equal(linearWeightedAvg(w), 17 / 7);
    assert.ok(Number.isNaN(linearWeightedAvg([])));
  });
  it('ewma, holt and holtWinters follow Elasticsearch\'s recurrences', () => {
    assert.equal(ewma([10, 20, 30], 0.5), 22.5);
    // s1 = 10; s2 = .5×20 + .5×(10 + 0) = 15, b2 = .5×5 = 2.5; s3 = .5×30 + .5×(15 + 2.5) = 23.75
    assert.equal(holt([10, 20, 30], 0.5, 0.5), 23.75);
    assert.ok(Number.isNaN(holt([], 0.5, 0.5)));
    const season = [1, 2, 1, 2, 1, 2];
    const hw = holtWinters(season, 0.5, 0.5, 0.5, 2, false);
    assert.ok(Number.isFinite(hw));
    assert.throws(() => holtWinters([1, 2, 3], 0.5, 0.5, 0.5, 2, false), /requires at least \(2 \* period == 2 \* 2 == 4\) data-points/);
  });
});

describe('moving_fn scripts', () => {
  it('read values, values.length, values[i], params and call MovingFunctions', () => {
    const run = (src: string, values: number[], params: Record<string, unknown> = {}): number => runMovingFunction(compileScript(src, 'painless', params, 'moving_fn'), values);
    assert.equal(run('MovingFunctions.unweightedAvg(values)', [1, 2, 3]), 2);
    assert.equal(run('return values.length > 0 ? values[values.length - 1] : Double.NaN;', [4, 5]), 5);
    assert.ok(Number.isNaN(run('values.length > 0 ? values[0] : Double.NaN', [])));
    assert.equal(run('MovingFunctions.ewma(values, params.alpha)', [10, 20, 30], { alpha: 0.5 }), 22.5);
    assert.equal(run('MovingFunctions.stdDev(values, MovingFunctions.unweightedAvg(values))', [2, 4, 4, 4, 5, 5, 7, 9]), 2);
  });
  it('refuses unknown functions, wrong arity, and values outside moving_fn', () => {
    assert.throws(() => compileScript('MovingFunctions.windowMax(values)', 'painless', {}, 'moving_fn'), (e: unknown) => /Unknown call \[windowMax\] with \[1\] arguments/.test(JSON.stringify(renderError(e as EsError))));
    assert.throws(() => compileScript('MovingFunctions.ewma(values)', 'painless', {}, 'moving_fn'));
    assert.throws(() => compileScript('values.length', 'painless', {}), (e: unknown) => /Variable \[values\] is not defined/.test(JSON.stringify(renderError(e as EsError))));
    assert.equal(runScript(compileScript('params.a > 1', 'painless', {}), new Map([['a', 2]])), true);
  });
});

describe('moving_fn aggregation', () => {
  it('each bucket with a value gets the script over the previous window values', () => {
    const mapping = mappingOf({ t: 'date', v: 'long' });
    const day = (d: number): string => `2024-01-0${d}T00:00:00Z`;
    const docs: Doc[] = [
      { t: day(1), v: 10 },
      { t: day(2), v: 20 },
      { t: day(4), v: 40 },
      { t: day(5), v: 50 },
    ];
    const out = runAggs(
      { h: { date_histogram: { field: 't', interval: 'day' }, aggs: { s: { sum: { field: 'v' } }, m: { moving_fn: { buckets_path: 's', window: 2, script: 'MovingFunctions.sum(values)' } } } } },
      [[docs]],
      mapping,
    ) as { h: { buckets: { s: { value: number }; m?: { value: number | null } }[] } };
    // day 3 is empty: skipped, no value and not in the window
    assert.deepEqual(out.h.buckets.map((b) => b.m?.value), [0, 10, undefined, 30, 60]);
  });
});
