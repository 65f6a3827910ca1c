/**
 * The completion field's pieces: values of a document (strings, arrays,
 * objects with weights, refusals) and the keys inputs are stored under
 * (the suggester itself is tested over HTTP, test/integration/completion.test.ts);
 * and the significant_terms heuristics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completionValues } from '../../../shared/engine/mapping/completion-values.ts';
import { completionKey, completionTerm, parseCompletionTerm } from '../../../shared/engine/suggest/completion-terms.ts';
import type { Analyzer, Token } from '../../../shared/engine/analysis/types.ts';
import { significanceScore } from '../../../shared/engine/aggs/significant-terms.ts';

const OPTS = { preserveSeparators: true, preservePositionIncrements: true, maxInputLength: 50 };

/** Lowercased words; `the` is removed and leaves a gap, as a stop filter does. */
const stopAnalyzer: Analyzer = {
  name: 'stop',
  analyzeInto: () => 0,
  analyze(text: string): Token[] {
    const out: Token[] = [];
    text.toLowerCase().split(/\s+/).filter((w) => w !== '').forEach((w, position) => {
      if (w !== 'the') out.push({ token: w, start_offset: 0, end_offset: 0, type: 'word', position });
    });
    return out;
  },
};

test('completion values: strings, arrays, {input, weight} with the highest weight of a repeated input, truncation', () => {
  assert.deepEqual(completionValues('Nirvana', 50), ['1\u0000Nirvana']);
  assert.deepEqual(completionValues([{ input: ['a', 'b'], weight: 3 }, 'c', { input: 'a', weight: '7' }, null], 50), ['7\u0000a', '3\u0000b', '1\u0000c']);
  assert.deepEqual(completionValues('abcdef', 3), ['1\u0000abc']);
  assert.deepEqual(completionValues('ab\ud83d\ude00cd', 3), ['1\u0000ab\ud83d\ude00'], 'never cut inside a surrogate pair');
  assert.deepEqual(completionValues(['  ', ''], 50), [], 'blank inputs are skipped');
});

test('completion values: Elasticsearch refusals', () => {
  assert.throws(() => completionValues({ input: 'a', weight: 1.5 }, 50), /weight must be an integer, but was \[1.5\]/);
  assert.throws(() => completionValues({ input: 'a', weight: 'x' }, 50), /weight must be an integer, but was \[x\]/);
  assert.throws(() => completionValues({ input: 'a', weight: 2147483648 }, 50), /weight must be in the interval \[0..2147483647\], but was \[2147483648\]/);
  assert.throws(() => completionValues({ input: 'a', weight: true }, 50), /weight must be a number or string, but was \[VALUE_BOOLEAN\]/);
  assert.throws(() => completionValues({ inputs: 'a' }, 50), /unknown field name \[inputs\], must be one of \[input, weight, contexts\]/);
  assert.throws(() => completionValues({ input: [1] }, 50), /input array must have string values/);
  assert.throws(() => completionValues('a\u001eb', 50), /reserved character \[0x1e\] at position 1/);
  assert.throws(() => completionValues(5, 50), /expected text or object, but got VALUE_NUMBER/);
});

test('keys: tokens joined by 0x1F, a removed word leaves a 0x1E hole unless position increments are off; terms round-trip', () => {
  assert.equal(completionKey('Nirvana Live', stopAnalyzer, OPTS), 'nirvana\u001flive');
  assert.equal(completionKey('Nirvana Live', stopAnalyzer, { ...OPTS, preserveSeparators: false }), 'nirvanalive');
  assert.equal(completionKey('The Beatles', stopAnalyzer, OPTS), '\u001e\u001fbeatles');
  assert.equal(completionKey('The Beatles', stopAnalyzer, { ...OPTS, preservePositionIncrements: false }), 'beatles');
  assert.equal(completionKey('Live at the Fillmore', stopAnalyzer, OPTS), 'live\u001fat\u001f\u001e\u001ffillmore');
  const term = completionTerm('34\u0000Nirvana Live', stopAnalyzer, OPTS)!;
  assert.deepEqual(parseCompletionTerm(term), { key: 'nirvana\u001flive', input: 'Nirvana Live', weight: 34 });
  assert.equal(completionTerm('1\u0000the', stopAnalyzer, OPTS), null, 'an input with no token has no key');
});

test('significance heuristics: JLH rewards a term more probable in the subset, zero when it is not; percentage is the share', () => {
  const jlh = { type: 'jlh' } as const;
  const pct = { type: 'percentage' } as const;
  assert.equal(significanceScore(jlh, 3, 4, 3, 12), (3 / 4 - 3 / 12) * (3 / 4 / (3 / 12)));
  assert.equal(significanceScore(jlh, 1, 4, 5, 12), 0);
  assert.equal(significanceScore(jlh, 0, 4, 5, 12), 0);
  assert.equal(significanceScore(jlh, 1, 0, 5, 12), 0);
  assert.equal(significanceScore(pct, 4, 6, 6, 16), 4 / 6);
  assert.equal(significanceScore(pct, 4, 6, 0, 16), 0);
});

test('chi_square, mutual_information and gnd (Manning et al.; Cilibrasi and Vitanyi) from the 2x2 table of the term and the subset', () => {
  const nxy = { includeNegatives: false, backgroundIsSuperset: true };
  // 3 of 4 subset docs and 3 of 12 docs have the term: N11 3, N01 1, N10 0, N00 8.
  assert.equal(significanceScore({ type: 'chi_square', ...nxy }, 3, 4, 3, 12), (12 * (3 * 8 - 1 * 0) ** 2) / (4 * 3 * 9 * 8));
  const mi = (3 / 12) * Math.log((12 * 3) / (3 * 4)) + (1 / 12) * Math.log((12 * 1) / (9 * 4)) + (8 / 12) * Math.log((12 * 8) / (9 * 8));
  assert.ok(Math.abs(significanceScore({ type: 'mutual_information', ...nxy }, 3, 4, 3, 12) - mi / Math.log(2)) < 1e-12);
  assert.equal(significanceScore({ type: 'chi_square', ...nxy }, 1, 4, 5, 12), -Infinity, 'rarer in the subset than outside: excluded');
  assert.equal(significanceScore({ type: 'gnd', includeNegatives: true, backgroundIsSuperset: true }, 3, 3, 3, 12), 1, 'perfect co-occurrence');
  assert.throws(() => significanceScore({ type: 'chi_square', ...nxy }, 5, 6, 2, 12), /subsetFreq > supersetFreq, does your background filter not include all documents in the bucket/);
});
