/**
 * Issue 11, item 5 (wildcard part): `{"wildcard":{"k":"*a*a*a*a*b"}}` against a
 * 200-character keyword took 19.7 s in a backtracking regular expression. The
 * matcher now takes at most pattern × text steps, and agrees with a dynamic
 * programming reference on generated patterns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileWildcard, wildcardMatches } from '../../shared/engine/search/term-scan.ts';
import { simpleMatch } from '../../shared/engine/mapping/simple-match.ts';

/** Reference: the textbook dynamic program over (pattern position, text position). */
function reference(pattern: string, text: string): boolean {
  const p = Array.from(pattern);
  const t = Array.from(text);
  let prev = new Array<boolean>(t.length + 1).fill(false);
  prev[0] = true;
  for (let i = 1; i <= p.length; i++) {
    const cur = new Array<boolean>(t.length + 1).fill(false);
    cur[0] = prev[0] && p[i - 1] === '*';
    for (let j = 1; j <= t.length; j++) {
      if (p[i - 1] === '*') cur[j] = prev[j] || cur[j - 1];
      else cur[j] = prev[j - 1] && (p[i - 1] === '?' || p[i - 1] === t[j - 1]);
    }
    prev = cur;
  }
  return prev[t.length];
}

test('the pathological pattern of the issue answers in milliseconds', () => {
  const w = compileWildcard('*a*a*a*a*a*a*a*a*b');
  const text = 'a'.repeat(32_766);
  const started = performance.now();
  assert.equal(wildcardMatches(w, text), false);
  assert.equal(wildcardMatches(compileWildcard('*a*a*a*a*b'), 'a'.repeat(200)), false);
  assert.ok(performance.now() - started < 500, `took ${performance.now() - started} ms`);
});

test('agrees with a reference on generated patterns and texts (code points, ? and *)', () => {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
  const alphabet = ['a', 'b', '京'];
  for (let k = 0; k < 3000; k++) {
    const text = Array.from({ length: rnd(8) }, () => alphabet[rnd(3)]).join('');
    const pattern = Array.from({ length: rnd(6) }, () => ['a', 'b', '京', '*', '?'][rnd(5)]).join('');
    assert.equal(wildcardMatches(compileWildcard(pattern), text), reference(pattern, text), `${pattern} ~ ${text}`);
  }
});

test('an escaped * or ? is a literal, and the prefix stops at the first wildcard', () => {
  const w = compileWildcard('a\\*b?');
  assert.equal(w.prefix, 'a*b');
  assert.equal(wildcardMatches(w, 'a*bc'), true);
  assert.equal(wildcardMatches(w, 'axbc'), false);
});

test('index, alias and filter_path patterns (simpleMatch) are linear too', () => {
  const started = performance.now();
  assert.equal(simpleMatch('*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(20_000)), false);
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
  for (const [p, t, want] of [
    ['logs-*', 'logs-1', true],
    ['*-1', 'logs-1', true],
    ['l*s*1', 'logs-1', true],
    ['l*x*1', 'logs-1', false],
    ['**', '', true],
    ['a?', 'a?', true],
    ['a?', 'ab', false],
  ] as const) {
    assert.equal(simpleMatch(p, t), want, `${p} ~ ${t}`);
  }
});
