/**
 * The term suggester's pieces: Lucene's string distances, and the direct
 * spellchecker over segments read back from files (document frequencies
 * summed over segments, suggest modes, prefix length, max_term_freq).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { damerauLevenshtein, jaroWinkler, levenshtein, ngramDistance } from '../../../shared/engine/suggest/string-distance.ts';
import { ShardTerms, suggestSimilar } from '../../../shared/engine/suggest/direct-spellchecker.ts';
import { DEFAULT_SPELLCHECK } from '../../../shared/engine/suggest/types.ts';
import { field, segmentsOf, snapshotOf } from '../search/fixtures.ts';

test('string distances are similarities in [0, 1] as Lucene computes them (float)', () => {
  assert.equal(damerauLevenshtein('quick', 'quikc'), Math.fround(0.8), 'a swap is one edit, over the shorter length');
  assert.equal(levenshtein('quick', 'quikc'), Math.fround(0.6), 'without transpositions a swap is two edits, over the longer length');
  assert.equal(levenshtein('brwn', 'brown'), Math.fround(0.8));
  assert.equal(damerauLevenshtein('brwn', 'brown'), Math.fround(0.75));
  assert.equal(jaroWinkler('martha', 'marhta'), Math.fround(0.96111107));
  assert.equal(jaroWinkler('abc', 'xyz'), 0);
  assert.equal(ngramDistance('abc', 'abc'), 1);
  assert.ok(ngramDistance('quick', 'quikc') > ngramDistance('quick', 'slow'));
  assert.equal(levenshtein('', ''), 1);
  assert.equal(levenshtein('', 'a'), 0);
});

const mapping = [field('w', 'text')];
const words = ['quick brown', 'quick brawn', 'quick', 'quack', 'brown fox', 'slow', 'quickly'];
const snapshot = snapshotOf(segmentsOf(words.map((w, i) => ({ id: String(i), source: { w } })), mapping, 3));
const terms = new ShardTerms(snapshot, 'w');
const suggest = (word: string, over: Partial<typeof DEFAULT_SPELLCHECK> = {}, n = 5) => suggestSimilar(terms, word, n, { ...DEFAULT_SPELLCHECK, ...over });

test('candidates within two edits, best similarity first, then the most frequent, then by text; frequencies summed over segments', () => {
  assert.deepEqual(suggest('quikc'), [
    { text: 'quick', score: Math.fround(0.8), freq: 3 },
    { text: 'quack', score: Math.fround(0.6), freq: 1 },
  ]);
  assert.deepEqual(suggest('brwn'), [
    { text: 'brown', score: 0.75, freq: 2 },
    { text: 'brawn', score: 0.75, freq: 1 },
  ]);
  assert.deepEqual(suggest('brwn', { sort: 'frequency' }).map((w) => w.text), ['brown', 'brawn']);
  assert.deepEqual(suggest('brwn', {}, 1).map((w) => w.text), ['brown'], 'at most numSug');
});

test('suggest_mode: missing suggests nothing for a word in the index; popular only more frequent words; always any', () => {
  // max_term_freq 0.01 of 7 docs rounds up to 1: a word in more docs is never corrected, so raise it here.
  assert.deepEqual(suggest('quack', { maxTermFreq: 5 }), []);
  assert.deepEqual(suggest('quack', { suggestMode: 'popular', maxTermFreq: 5 }).map((w) => w.text), ['quick']);
  assert.deepEqual(suggest('quick', { suggestMode: 'popular', maxTermFreq: 5 }), [], 'nothing is more frequent than quick');
  assert.deepEqual(suggest('quick', { suggestMode: 'always', maxTermFreq: 5 }).map((w) => w.text), ['quack', 'quickly']);
  assert.deepEqual(suggest('quick', { suggestMode: 'always' }), [], 'quick is in 3 of 7 docs, above max_term_freq');
});

test('prefix_length, min_word_length, max_edits and accuracy narrow the candidates', () => {
  assert.deepEqual(suggest('uqick', { prefixLength: 0 }).map((w) => w.text), ['quick']);
  assert.deepEqual(suggest('uqick'), [], 'the first letter must match by default');
  assert.deepEqual(suggest('slw', {}), [], 'shorter than min_word_length 4');
  assert.deepEqual(suggest('slw', { minWordLength: 3 }).map((w) => w.text), ['slow']);
  assert.deepEqual(suggest('qiuck', { maxEdits: 1, prefixLength: 1 }).map((w) => w.text), ['quick']);
  assert.deepEqual(suggest('qucikly', { maxEdits: 1 }).map((w) => w.text), ['quickly']);
  assert.deepEqual(suggest('quikc', { accuracy: 0.7 }).map((w) => w.text), ['quick']);
});
