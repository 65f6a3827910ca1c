import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { analyzeTokens, detailed, terms } from './token-fixtures.ts';

describe('case filters', () => {
  it('lowercase maps each code point as Java does (no final sigma, İ becomes i)', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['lowercase'], text: 'QUICK ΟΔΟΣ İSTANBUL Ǆ' }), [
      'quick', 'οδοσ', 'istanbul', 'ǆ',
    ]);
  });

  it('uppercase leaves characters without a one-character uppercase alone', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['uppercase'], text: 'straße quick' }), ['STRAßE', 'QUICK']);
  });
});

describe('asciifolding', () => {
  it('folds the docs example to ASCII', () => {
    assert.deepEqual(terms({ tokenizer: 'standard', filter: ['asciifolding'], text: 'açaí à la carte' }), ['acai', 'a', 'la', 'carte']);
  });

  it('folds letters that do not decompose, and leaves scripts without ASCII equivalents', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['asciifolding'], text: 'Æsir straße Łódź ﬁne ① Ａ 京A1 ελληνικά' }), [
      'AEsir', 'strasse', 'Lodz', 'fine', '1', 'A', '京A1', 'ελληνικά',
    ]);
  });

  it('with preserve_original stacks the original after the folded term', () => {
    const filter = [{ type: 'asciifolding', preserve_original: true }];
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'whitespace', filter, text: 'café bar' })), [
      'cafe@0[0,4]word',
      'café@0[0,4]word',
      'bar@1[5,8]word',
    ]);
  });
});

describe('stop filter', () => {
  it('removes English stop words by default and leaves position gaps', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'whitespace', filter: ['stop'], text: 'the quick and the dead' })), [
      'quick@1[4,9]word',
      'dead@4[18,22]word',
    ]);
  });

  it('takes a stopwords list, matching case unless ignore_case', () => {
    const filter = [{ type: 'stop', stopwords: ['foo', 'Buzz'] }];
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter, text: 'foo bar Buzz buzz' }), ['bar', 'buzz']);
    const ignoring = [{ type: 'stop', stopwords: ['foo', 'Buzz'], ignore_case: true }];
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ignoring, text: 'FOO bar Buzz buzz' }), ['bar']);
  });

  it('accepts _none_ and named sets inside a list', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: [{ type: 'stop', stopwords: '_none_' }], text: 'the a' }), ['the', 'a']);
    const filter = [{ type: 'stop', stopwords: ['_english_', 'quick'] }];
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter, text: 'the quick fox' }), ['fox']);
  });
});

describe('length, truncate, trim, unique, reverse', () => {
  it('length drops terms outside [min, max] with position gaps', () => {
    const filter = [{ type: 'length', min: 2, max: 3 }];
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'whitespace', filter, text: 'a bb ccc dddd ee' })), [
      'bb@1[2,4]word',
      'ccc@2[5,8]word',
      'ee@4[14,16]word',
    ]);
  });

  it('truncate cuts terms to length (default 10)', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['truncate'], text: 'abcdefghijklmn xy' }), ['abcdefghij', 'xy']);
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: [{ type: 'truncate', length: 3 }], text: 'abcdef' }), ['abc']);
  });

  it('trim strips surrounding whitespace and keeps offsets', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'keyword', filter: ['trim'], text: '  hello world ' })), ['hello world@0[0,14]word']);
  });

  it('unique drops repeated terms without leaving gaps', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'whitespace', filter: ['unique'], text: 'a b a c b' })), [
      'a@0[0,1]word',
      'b@1[2,3]word',
      'c@2[6,7]word',
    ]);
  });

  it('reverse reverses by code point', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['reverse'], text: 'abc a𝒳b' }), ['cba', 'b𝒳a']);
  });
});

describe('ngram and edge_ngram token filters', () => {
  it('ngram stacks all grams of a token at its position, by start then length', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'whitespace', filter: ['ngram'], text: 'fox' })), [
      'f@0[0,3]word',
      'fo@0[0,3]word',
      'o@0[0,3]word',
      'ox@0[0,3]word',
      'x@0[0,3]word',
    ]);
  });

  it('edge_ngram keeps the leading grams', () => {
    const filter = [{ type: 'edge_ngram', min_gram: 1, max_gram: 3 }];
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter, text: 'quick fox' }), ['q', 'qu', 'qui', 'f', 'fo', 'fox']);
  });
});

describe('synonym filter', () => {
  it('replaces explicit mappings and types the replacement SYNONYM', () => {
    const filter = [{ type: 'synonym', synonyms: ['i-pod, i pod => ipod', 'universe, cosmos'] }];
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'whitespace', filter, text: 'i pod universe' })), [
      'ipod@0[0,5]SYNONYM',
      'universe@1[6,14]word',
      'cosmos@1[6,14]SYNONYM',
    ]);
  });

  it('with expand false maps every equivalent to the first', () => {
    const filter = [{ type: 'synonym', synonyms: ['universe, cosmos'], expand: false }];
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter, text: 'cosmos' }), ['universe']);
  });

  it('analyzes its rules with the tokenizer before it (trigram rules match trigram streams)', () => {
    const registry = AnalysisRegistry.fromIndexSettings({
      tokenizer: { trigram: { type: 'nGram', min_gram: 3, max_gram: 3 } },
      filter: { synonym: { type: 'synonym', synonyms: ['kimchy => shay'] } },
    });
    const tokens = analyzeTokens({ tokenizer: 'trigram', filter: ['synonym'], text: 'kimchy' }, registry);
    assert.deepEqual(tokens.map((t) => t.token), ['sha', 'hay']);
  });
});
