/**
 * The Painless subset: what scripts in updates, by-query requests and
 * script fields do in practice, and the errors of what is outside it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePainless } from '../../../shared/script/painless/interpreter.ts';
import { DocField, DocLookup, type Value } from '../../../shared/script/painless/values.ts';
import { runUpdateScript } from '../../../shared/script/update-script.ts';
import { parseScriptSpec } from '../../../shared/script/script-spec.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';

const run = (src: string, vars: Record<string, Value> = {}): Value => compilePainless(src, ['ctx', 'params', 'doc']).run(vars);

function scriptError(src: string, vars: Record<string, Value> = {}): { reason: string; cause: string; causeReason: string; stack: string[] } {
  try {
    run(src, vars);
  } catch (err) {
    assert.ok(err instanceof EsError, String(err));
    assert.equal(err.type, 'script_exception');
    assert.equal(err.status, 400);
    return { reason: err.reason, cause: err.causedBy!.type, causeReason: err.causedBy!.reason, stack: err.extra.script_stack as string[] };
  }
  assert.fail(`[${src}] ran without an error`);
}

test('field assignment, compound assignment, list add and map remove change the source in place', () => {
  const ctx = { _source: { n: 1, tags: ['a'], gone: true }, op: 'index' };
  run("ctx._source.n += params.by; ctx._source.tags.add(params.t); ctx._source.remove('gone'); ctx._source['new'] = 'x'", { ctx, params: { by: 4, t: 'b' } });
  assert.deepEqual(ctx._source, { n: 5, tags: ['a', 'b'], new: 'x' });
});

test('if/else sets ctx.op', () => {
  const src = "if (ctx._source.speed > params.limit) { ctx._source.flag = true } else { ctx.op = 'noop' }";
  const slow = { _source: { speed: 40 }, op: 'index' };
  run(src, { ctx: slow, params: { limit: 80 } });
  assert.equal(slow.op, 'noop');
  const fast = { _source: { speed: 120 }, op: 'index' };
  run(src, { ctx: fast, params: { limit: 80 } });
  assert.deepEqual(fast, { _source: { speed: 120, flag: true }, op: 'index' });
});

test('loops, declarations and the value of the last expression', () => {
  assert.equal(run('int total = 0; for (int i = 1; i <= 4; i++) { total += i; } total'), 10);
  assert.equal(run('def s = 0; for (def x : [1, 2, 3]) { if (x == 2) { continue; } s += x } return s'), 4);
  assert.equal(run('def s = 0; for (x in [5, 6]) s += x; s'), 11);
  assert.equal(run('int i = 0; while (i < 7) { i++; if (i == 3) break; } i'), 3);
  assert.equal(run('int i = 0; do { i += 2 } while (i < 5); i'), 6);
});

test('integer division truncates as in Java; a double operand divides as doubles', () => {
  assert.equal(run('7 / 2'), 3);
  assert.equal(run('-7 / 2'), -3);
  assert.equal(run('7 / 2.0'), 3.5);
  assert.equal(run('double d = 7; d / 2'), 3.5);
  assert.equal(run('(double) 7 / 2'), 3.5);
  assert.equal(run('7 % 3'), 1);
});

test('strings: concatenation, methods and equality by value', () => {
  assert.equal(run("'n=' + 5 + ', ' + true + ', ' + null"), 'n=5, true, null');
  assert.equal(run("'京A12345'.substring(1, 4).toLowerCase()"), 'a12');
  assert.equal(run("String a = 'x' + 'y'; a == 'xy'"), true);
  assert.equal(run("'a,b,c'.splitOnToken(',').size()"), 3);
  assert.equal(run("'abc'.contains('b') && 'abc'.startsWith('a') && 'abc'.endsWith('c')"), true);
  assert.equal(run("String.join('-', ['a', 'b'])"), 'a-b');
});

test('lists and maps: literals, lambdas, nested access, null-safe access and elvis', () => {
  assert.deepEqual(run("def l = [3, 1, 2]; l.sort(null); l"), [1, 2, 3]);
  assert.deepEqual(run("def l = ['a', 'b', 'a']; l.removeIf(t -> t == 'a'); l"), ['b']);
  assert.deepEqual(run("def m = ['k': [1, 2]]; m.k.add(3); m"), { k: [1, 2, 3] });
  assert.equal(run("def m = [:]; m.a?.b"), null);
  assert.equal(run("params.missing ?: 'default'", { params: {} }), 'default');
  assert.equal(run("def l = new ArrayList(); l.add('x'); l.size() == 1 && l.contains('x') && l.indexOf('x') == 0"), true);
  assert.equal(run("def m = new HashMap(); m.put('a', 1); m.containsKey('a') && m.get('a') == 1 && m.getOrDefault('b', 2) == 2"), true);
});

test('map keys are data: __proto__ and constructor are ordinary keys', () => {
  const out = run("def m = new HashMap(); m.put('__proto__', 1); m['constructor'] = 2; m") as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ['__proto__', 'constructor']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(run("def m = [:]; m.constructor"), null);
});

test('statics: Math, Integer, Double, String, Objects', () => {
  assert.equal(run('Math.max(3, Math.abs(-9))'), 9);
  assert.equal(run("Integer.parseInt('42') + Double.parseDouble('0.5')"), 42.5);
  assert.equal(run('String.valueOf(12) + Math.floor(2.7)'), '122');
  assert.equal(run('Objects.equals([1], [1])'), true);
});

test('doc values in script fields: value, values, size and the missing-value error', () => {
  const doc = new DocLookup((f) => {
    if (f === 'speed') return new DocField(f, [80, 90]);
    if (f === 'empty') return new DocField(f, []);
    throw new Error('unmapped');
  });
  assert.equal(run("doc['speed'].value * 2", { doc }), 160);
  assert.equal(run("doc['speed'].size() + doc.speed.values.size()", { doc }), 4);
  assert.equal(run("doc['empty'].size() == 0 ? -1 : doc['empty'].value", { doc }), -1);
  const e = scriptError("doc['empty'].value", { doc });
  assert.equal(e.cause, 'illegal_state_exception');
  assert.match(e.causeReason, /doesn't have a value/);
});

test('a loop is bounded: after 1,000,000 iterations the script fails with painless_error', () => {
  const e = scriptError('while (true) {}');
  assert.equal(e.reason, 'runtime error');
  assert.equal(e.cause, 'painless_error');
  assert.match(e.causeReason, /maximum number of statements that can be executed in a loop/);
});

test('a string may not grow without bound', () => {
  const e = scriptError("String s = 'xxxxxxxxxxxxxxxx'; for (int i = 0; i < 40; i++) { s = s + s } s");
  assert.equal(e.cause, 'painless_error');
});

test('runtime errors name the Java exception and point at the expression', () => {
  const npe = scriptError('ctx._source.missing.x = 1', { ctx: { _source: {} } });
  assert.equal(npe.cause, 'null_pointer_exception');
  assert.equal(npe.stack[1]!.indexOf('^'), 'ctx._source.missing.'.length);
  assert.equal(scriptError('1 / 0').cause, 'arithmetic_exception');
  assert.equal(scriptError("Integer.parseInt('x1')").cause, 'number_format_exception');
  assert.equal(scriptError('[1].get(5)').cause, 'index_out_of_bounds_exception');
  assert.equal(scriptError("'a' < 1").cause, 'class_cast_exception');
});

test('what is outside the subset is a compile error with the position and what is supported', () => {
  const cases: [string, RegExp][] = [
    ['ctx._source.a.frobnicate()', /Unknown call \[frobnicate\]/],
    ['int f(int x) { return x } f(1)', /function definitions are not supported; supported:/],
    ["ctx._source.a =~ /x/", /Regexes are disabled/],
    ['new Random()', /only new ArrayList\(\), new HashMap\(\)/],
    ['Math.random()', /every shard copy the same result/],
    ['undeclared + 1', /cannot resolve symbol \[undeclared\]/],
    ['int[] a = new int[2]', /arrays are not supported/],
    ['ctx._source.x = ', /unexpected end of script/],
    ['try { 1 } catch (Exception e) {}', /\[try\] is not supported/],
  ];
  for (const [src, reason] of cases) {
    const e = scriptError(src, { ctx: { _source: {} } });
    assert.equal(e.reason, 'compile error', src);
    assert.match(e.causeReason, reason, src);
    assert.match(e.stack[1]!, /\^---- HERE/);
  }
  assert.match(scriptError('('.repeat(500) + '1' + ')'.repeat(500)).causeReason, /nests deeper/);
});

test('update scripts: ctx.op noop and delete, metadata, _now from the op and by-query rules', () => {
  const script = (source: string, params = {}) => ({ source, lang: 'painless', params_json: JSON.stringify(params) });
  const doc = { index: 'i', type: '_doc', id: '1', version: 3, routing: null, now: 1_700_000_000_000, source: Buffer.from('{"n":1}'), op: 'index' as const };
  const indexed = runUpdateScript(script('ctx._source.n = ctx._version * 10; ctx._source.t = ctx._now'), doc, false);
  assert.equal(indexed.op, 'index');
  assert.deepEqual(JSON.parse((indexed as { source: Buffer }).source.toString()), { n: 30, t: 1_700_000_000_000 });
  assert.equal(runUpdateScript(script("ctx.op = 'noop'"), doc, false).op, 'noop');
  assert.equal(runUpdateScript(script("ctx.op = 'delete'"), doc, true).op, 'delete');
  assert.throws(() => runUpdateScript(script("ctx._id = 'other'"), doc, true), /Modifying \[_id\] not allowed/);
  assert.throws(() => runUpdateScript(script("ctx.op = 'create'"), doc, true), /Operation type \[create\] not allowed, only \[noop, index, delete\] are allowed/);
  assert.throws(
    () => runUpdateScript(script('ctx._source.a.b = 1'), doc, false),
    (err: EsError) => err.type === 'illegal_argument_exception' && err.reason === 'failed to execute script' && err.causedBy?.type === 'script_exception',
  );
});

test('the script object: string form, source or inline, stored id, params, and refused languages', () => {
  assert.deepEqual(parseScriptSpec('ctx._source.a = 1'), { kind: 'inline', source: 'ctx._source.a = 1', lang: 'painless', params: {} });
  const warnings: string[] = [];
  assert.equal((parseScriptSpec({ inline: '1', params: { a: 1 } }, (m) => warnings.push(m)) as { source: string }).source, '1');
  assert.deepEqual(warnings, ['Deprecated field [inline] used, expected [source] instead']);
  assert.deepEqual(parseScriptSpec({ id: 'my-script', params: { a: 1 } }), { kind: 'stored', id: 'my-script', params: { a: 1 } });
  assert.throws(() => parseScriptSpec({ source: '1', lang: 'expression' }), /script_lang not supported \[expression\]/);
  assert.throws(() => parseScriptSpec({ source: '1', id: 'x' }), /must specify either \[source\] for an inline script or \[id\] for a stored script/);
  assert.throws(() => parseScriptSpec({ source: '1', colour: 1 }), /\[script\] unknown field \[colour\]/);
  assert.throws(() => parseScriptSpec({ source: 'x'.repeat(70_000) }), /exceeded max allowed inline script size/);
});
