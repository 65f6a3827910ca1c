import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileScript, runScript } from '../../../shared/engine/aggs/painless-expression.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';

const run = (src: string, vars: Record<string, number> = {}, params: Record<string, unknown> = {}): unknown =>
  runScript(compileScript(src, 'painless', params), new Map(Object.entries(vars)));

describe('painless expression subset', () => {
  it('comparisons, boolean logic and arithmetic over params', () => {
    assert.equal(run('params.count > 10', { count: 11 }), true);
    assert.equal(run('params.count > 10', { count: 10 }), false);
    assert.equal(run('params.a >= 1 && params.b < 2 || !(params.a == params.b)', { a: 1, b: 1 }), true);
    assert.equal(run("params['total'] / params.n", { total: 7, n: 2 }), 3.5);
    assert.equal(run('(params.a + 2) * 3 % 5 - -1', { a: 1 }), 5);
    assert.equal(run('return params.x != null;', { x: 1 }), true);
    assert.equal(run('params.missing == null'), true);
    assert.equal(run('params.x > 0 ? 1.5 : 2', { x: -1 }), 2);
    assert.equal(run('true && false'), false);
  });

  it('int literals divide as Java ints; bucket values are doubles; NaN compares false', () => {
    assert.equal(run('7 / 2'), 3);
    assert.equal(run('7.0 / 2'), 3.5);
    assert.equal(run('params.v / 2', { v: 7 }), 3.5);
    assert.equal(run('params.limit * 2', {}, { limit: 5 }), 10);
    assert.equal(run('params.v > 1', { v: NaN }), false);
    assert.equal(run('params.v + 1 > 0 && params.w < 1', { v: 1, w: NaN }), false);
  });

  it('refuses anything outside the subset with a script_exception compile error', () => {
    for (const src of [
      'doc["x"].value > 1',
      'System.exit(0)',
      'params.x = 1',
      'params.x.length()',
      'while (true) {}',
      'params',
      'java.lang.Runtime.getRuntime()',
      'params.x >>> 1',
      '1 +',
      "params.a; params.b",
    ]) {
      assert.throws(
        () => compileScript(src, 'painless', {}),
        (e: unknown) => e instanceof EsError && e.type === 'script_exception' && e.reason === 'compile error' && e.status === 400,
        src,
      );
    }
    assert.throws(() => compileScript('1', 'groovy', {}), /script_lang not supported \[groovy\]/);
  });

  it('type errors at run time are script_exception runtime errors', () => {
    assert.throws(() => run('params.a && true', { a: 1 }), (e: unknown) => e instanceof EsError && e.reason === 'runtime error');
    assert.throws(() => run('params.nope > 1'), (e: unknown) => e instanceof EsError && e.reason === 'runtime error');
  });
});
