import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { compileJavaPattern } from '../../../shared/engine/regex/linear-regex.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';

/** Every match of a pattern as [start, end, ...groups] arrays. */
function ours(pattern: string, text: string, flags = ''): number[][] {
  return [...compileJavaPattern(pattern, flags).findAll(text)].map((m) => Array.from(m));
}

/** The same through V8's backtracking engine: an independent answer for patterns whose syntax and meaning agree. */
function v8(pattern: string, text: string, flags = ''): number[][] {
  const re = new RegExp(pattern, `gdu${flags}`);
  const out: number[][] = [];
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push(m.indices!.flatMap((span) => (span === undefined ? [-1, -1] : [span[0], span[1]])));
    if (m[0].length === 0) re.lastIndex += (text.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1;
  }
  return out;
}

function refusal(fn: () => unknown): EsError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EsError);
    return err;
  }
  assert.fail('expected an error');
}

describe('linear-time Java regular expressions', () => {
  const cases: [string, string][] = [
    ['\\W+', 'hello, world! foo-bar'],
    ['(\\w+)@(\\w+)\\.com', 'x joe@ex.com y ann@b.com'],
    ['a*?', 'aaa'],
    ['a|ab', 'ab'],
    ['(a|ab)(c|bcd)(d*)', 'abcd'],
    ['x{2,3}', 'xxxxxxx'],
    ['x{2,3}?', 'xxxxxxx'],
    ['(\\d+)?x', 'x 12x'],
    ['(a*)*b', 'aaab ab b'],
    ['(a|b)*c', 'ababc abc c'],
    ['[^\\]]+', 'ab]cd'],
    ['(?:ab)+|a', 'abababa'],
    ['\\bfoo\\b', 'foo food foo'],
    ['^\\s+|\\s+$', '  both ends  '],
    ['(\\d+)-(?=\\d)', '123-456-789 12-x'],
    ['(?<=\\$)\\d+', 'cost $45 and 30'],
    ['foo(?!bar)', 'foobar foobaz'],
    ['.', 'a😀b'],
    ['[😀-😂]+', 'x😀😁😂y'],
    ['', 'abc'],
  ];
  for (const [pattern, text] of cases) {
    test(`/${pattern}/ on "${text}" finds what a backtracking engine finds`, () => {
      assert.deepEqual(ours(pattern, text), v8(pattern, text));
    });
  }

  test('a group keeps its last value across iterations, as in Java (ECMAScript resets it)', () => {
    assert.deepEqual(ours('((a)|b)+', 'abab'), [[0, 4, 3, 4, 2, 3]]);
  });

  test('case-insensitive matching is ASCII-only unless UNICODE_CASE, as in Java', () => {
    assert.deepEqual(ours('straße', 'STRASSE Straße STRAßE', 'CASE_INSENSITIVE'), [
      [8, 14],
      [15, 21],
    ]);
    assert.deepEqual(ours('é', 'É', 'CASE_INSENSITIVE'), []);
    assert.deepEqual(ours('é', 'É', 'CASE_INSENSITIVE|UNICODE_CASE'), [[0, 1]]);
    assert.deepEqual(ours('(?i)[a-c]+', 'xABCy'), [[1, 4]]);
  });

  test('Java-only syntax: class intersection, \\p{IsX} and POSIX names, \\Q..\\E, \\h, \\z and \\Z', () => {
    assert.deepEqual(ours('[a-z&&[^aeiou]]+', 'hello'), [
      [0, 1],
      [2, 4],
    ]);
    assert.deepEqual(ours('\\p{IsLatin}+', 'abc абв'), [[0, 3]]);
    assert.deepEqual(ours('\\p{Punct}', 'a,b'), [[1, 2]]);
    assert.deepEqual(ours('\\p{javaLowerCase}+', 'abcD'), [[0, 3]]);
    assert.deepEqual(ours('\\Qa.b\\E', 'axb a.b'), [[4, 7]]);
    assert.deepEqual(ours('\\h+', 'a \t\u00a0b'), [[1, 4]]);
    assert.deepEqual(ours('b\\Z', 'ab\n'), [[1, 2]]);
    assert.deepEqual(ours('b\\z', 'ab\n'), []);
    assert.deepEqual(ours('^b', 'a\nb', 'MULTILINE'), [[2, 3]]);
    assert.deepEqual(ours('a # comment\n b', 'ab', 'COMMENTS'), [[0, 2]]);
  });

  test('matches() is a whole-text match', () => {
    const re = compileJavaPattern('[a-z]+_\\d+');
    assert.equal(re.matches('field_12'), true);
    assert.equal(re.matches('field_12x'), false);
    assert.equal(re.matches('xfield_12 '), false);
  });

  test('catastrophic patterns for a backtracking engine answer at once, with the right result', () => {
    const started = performance.now();
    assert.equal(compileJavaPattern('(a+)+$').find(`${'a'.repeat(5000)}!`), null);
    assert.equal(compileJavaPattern('(a|aa)+$').find(`${'a'.repeat(5000)}!`), null);
    assert.equal(compileJavaPattern('(x+x+)+y').find('x'.repeat(5000)), null);
    assert.equal(compileJavaPattern('(\\w|\\d)*@').find('1'.repeat(5000)), null);
    assert.deepEqual(Array.from(compileJavaPattern('(a+)+b').find(`${'a'.repeat(5000)}b`)!), [0, 5001, 0, 5000]);
    // Each would take a backtracking engine longer than the age of the universe; generous for a busy machine.
    assert.ok(performance.now() - started < 5000);
  });

  test('backreferences, atomic groups, possessive quantifiers and unbounded lookaround are refused with a 400 naming the pattern', () => {
    for (const pattern of ['(a)\\1', '(?<n>a)\\k<n>', '(?>a+)b', 'a*+b', '(?=.*x)', '(?<=a+)b', 'a{1001}', '\\Ga']) {
      const err = refusal(() => compileJavaPattern(pattern));
      assert.equal(err.type, 'illegal_argument_exception', pattern);
      assert.equal(err.status, 400);
      assert.ok(err.message.startsWith(`Regular expression [${pattern}] `), err.message);
    }
  });

  test('a pattern that compiles to too many states is refused', () => {
    const err = refusal(() => compileJavaPattern('((a{100}){100}){100}'));
    assert.match(err.message, /compiles to more than \[?10000\]? states/);
  });

  test('syntax errors are pattern_syntax_exception with Java\'s description and index', () => {
    const err = refusal(() => compileJavaPattern('ab(c'));
    assert.equal(err.type, 'pattern_syntax_exception');
    assert.equal(err.status, 400);
    assert.equal(err.message, 'Unclosed group near index 4\nab(c\n    ^');
    assert.equal(refusal(() => compileJavaPattern('*a')).message, "Dangling meta character '*' near index 0\n*a\n^");
    assert.equal(refusal(() => compileJavaPattern('[a')).type, 'pattern_syntax_exception');
    assert.equal(refusal(() => compileJavaPattern('\\p{InGreek}')).type, 'pattern_syntax_exception');
    assert.equal(refusal(() => compileJavaPattern('a', 'NOT_A_FLAG')).message, 'Unknown regex flag [NOT_A_FLAG]');
  });
});
