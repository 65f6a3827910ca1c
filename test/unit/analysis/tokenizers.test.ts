import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { analyzeTokens, detailed, terms } from './token-fixtures.ts';

const FOXES = "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.";

describe('standard tokenizer', () => {
  it('splits the reference sentence as the Elasticsearch docs show', () => {
    assert.deepEqual(terms({ tokenizer: 'standard', text: FOXES }), [
      'The', '2', 'QUICK', 'Brown', 'Foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone',
    ]);
  });

  it('types numbers <NUM> and words <ALPHANUM>, with UTF-16 offsets and consecutive positions', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', text: 'The 2 QUICK' })), [
      'The@0[0,3]<ALPHANUM>',
      '2@1[4,5]<NUM>',
      'QUICK@2[6,11]<ALPHANUM>',
    ]);
  });

  it('splits tokens longer than max_token_length at that length', () => {
    const tokenizer = { type: 'standard', max_token_length: 5 };
    assert.deepEqual(terms({ tokenizer, text: FOXES }), [
      'The', '2', 'QUICK', 'Brown', 'Foxes', 'jumpe', 'd', 'over', 'the', 'lazy', "dog's", 'bone',
    ]);
  });

  it('keeps dots and apostrophes between letters, and separators between digits, inside one token', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', text: "U.S.A. wasn't 1,000.50 3.14abc a_b" })), [
      'U.S.A@0[0,5]<ALPHANUM>',
      "wasn't@1[7,13]<ALPHANUM>",
      '1,000.50@2[14,22]<NUM>',
      '3.14abc@3[23,30]<ALPHANUM>',
      'a_b@4[31,34]<ALPHANUM>',
    ]);
  });

  it('breaks at punctuation that UAX#29 does not join', () => {
    assert.deepEqual(terms({ tokenizer: 'standard', text: 'john@example.com Brown-Foxes (x) 1.a' }), [
      'john', 'example.com', 'Brown', 'Foxes', 'x', '1', 'a',
    ]);
  });

  it('makes each CJK ideograph its own <IDEOGRAPHIC> token', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', text: '我是中国人' })), [
      '我@0[0,1]<IDEOGRAPHIC>',
      '是@1[1,2]<IDEOGRAPHIC>',
      '中@2[2,3]<IDEOGRAPHIC>',
      '国@3[3,4]<IDEOGRAPHIC>',
      '人@4[4,5]<IDEOGRAPHIC>',
    ]);
  });

  it('types hiragana per character, katakana and hangul per run', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', text: 'こんにちは カタカナ 한국어' })), [
      'こ@0[0,1]<HIRAGANA>',
      'ん@1[1,2]<HIRAGANA>',
      'に@2[2,3]<HIRAGANA>',
      'ち@3[3,4]<HIRAGANA>',
      'は@4[4,5]<HIRAGANA>',
      'カタカナ@5[6,10]<KATAKANA>',
      '한국어@6[11,14]<HANGUL>',
    ]);
  });

  it('keeps a plate with a leading ideograph as ideograph plus alphanumeric word', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', text: '京A12345' })), [
      '京@0[0,1]<IDEOGRAPHIC>',
      'A12345@1[1,7]<ALPHANUM>',
    ]);
  });

  it('counts a supplementary ideograph as one token of two UTF-16 units', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', text: 'a 𠀀𠀁' })), [
      'a@0[0,1]<ALPHANUM>',
      '𠀀@1[2,4]<IDEOGRAPHIC>',
      '𠀁@2[4,6]<IDEOGRAPHIC>',
    ]);
  });

  it('keeps Thai runs whole as <SOUTHEAST_ASIAN> and emoji sequences as <EMOJI>', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', text: 'ภาษาไทย 👍🏽 🇨🇳' })), [
      'ภาษาไทย@0[0,7]<SOUTHEAST_ASIAN>',
      '👍🏽@1[8,12]<EMOJI>',
      '🇨🇳@2[13,17]<EMOJI>',
    ]);
  });
});

describe('keyword tokenizer', () => {
  it('emits the whole input as one token of type word', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'keyword', text: 'New York' })), ['New York@0[0,8]word']);
  });

  it('emits one empty token for empty input', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'keyword', text: '' })), ['@0[0,0]word']);
  });
});

describe('whitespace, letter and lowercase tokenizers', () => {
  it('whitespace splits on Java whitespace only', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', text: FOXES }), [
      'The', '2', 'QUICK', 'Brown-Foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone.',
    ]);
  });

  it('whitespace keeps no-break spaces inside tokens, as Java does', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', text: 'a\u00a0b\tc\u3000d' }), ['a\u00a0b', 'c', 'd']);
  });

  it('letter splits on every non-letter', () => {
    assert.deepEqual(terms({ tokenizer: 'letter', text: FOXES }), [
      'The', 'QUICK', 'Brown', 'Foxes', 'jumped', 'over', 'the', 'lazy', 'dog', 's', 'bone',
    ]);
  });

  it('lowercase splits like letter and lowercases', () => {
    assert.deepEqual(terms({ tokenizer: 'lowercase', text: FOXES }), [
      'the', 'quick', 'brown', 'foxes', 'jumped', 'over', 'the', 'lazy', 'dog', 's', 'bone',
    ]);
  });

  it('splits runs at max_token_length', () => {
    assert.deepEqual(terms({ tokenizer: { type: 'whitespace', max_token_length: 3 }, text: 'abcdefg hi' }), ['abc', 'def', 'g', 'hi']);
  });
});

describe('ngram tokenizer', () => {
  it('with defaults (1..2, all characters) gives the docs example in Lucene 7 order', () => {
    assert.deepEqual(terms({ tokenizer: 'ngram', text: 'Quick Fox' }), [
      'Q', 'Qu', 'u', 'ui', 'i', 'ic', 'c', 'ck', 'k', 'k ', ' ', ' F', 'F', 'Fo', 'o', 'ox', 'x',
    ]);
  });

  it('with token_chars only builds grams inside runs of token characters', () => {
    const tokenizer = { type: 'ngram', min_gram: 3, max_gram: 3, token_chars: ['letter', 'digit'] };
    assert.deepEqual(detailed(analyzeTokens({ tokenizer, text: '2 Quick Foxes.' })), [
      'Qui@0[2,5]word',
      'uic@1[3,6]word',
      'ick@2[4,7]word',
      'Fox@3[8,11]word',
      'oxe@4[9,12]word',
      'xes@5[10,13]word',
    ]);
  });

  it('gives a Chinese plate exactly 28 grams: every start, lengths increasing, CJK counted as letters', () => {
    const tokenizer = { type: 'ngram', min_gram: 1, max_gram: 8, token_chars: ['letter', 'digit'] };
    const plate = '京A12345';
    const expected: string[] = [];
    for (let s = 0; s < plate.length; s++) for (let e = s + 1; e <= plate.length; e++) expected.push(plate.slice(s, e));
    const tokens = analyzeTokens({ tokenizer, text: plate });
    assert.equal(tokens.length, 28);
    assert.deepEqual(tokens.map((t) => t.token), expected);
    assert.deepEqual(tokens.slice(0, 8).map((t) => `${t.token}@${t.position}[${t.start_offset},${t.end_offset}]`), [
      '京@0[0,1]', '京A@1[0,2]', '京A1@2[0,3]', '京A12@3[0,4]', '京A123@4[0,5]', '京A1234@5[0,6]', '京A12345@6[0,7]', 'A@7[1,2]',
    ]);
    assert.equal(tokens[27]!.token, '5');
    assert.equal(tokens[27]!.position, 27);
  });

  it('counts grams in code points and never splits a surrogate pair', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'ngram', text: 'a𝒳b' })), [
      'a@0[0,1]word',
      'a𝒳@1[0,3]word',
      '𝒳@2[1,3]word',
      '𝒳b@3[1,4]word',
      'b@4[3,4]word',
    ]);
  });

  it('accepts Java category names in token_chars', () => {
    const tokenizer = { type: 'ngram', min_gram: 1, max_gram: 1, token_chars: ['uppercase_letter'] };
    assert.deepEqual(terms({ tokenizer, text: 'aBcD' }), ['B', 'D']);
  });
});

describe('edge_ngram tokenizer', () => {
  it('with defaults (1..2) gives the docs example', () => {
    assert.deepEqual(terms({ tokenizer: 'edge_ngram', text: 'Quick Fox' }), ['Q', 'Qu']);
  });

  it('with token_chars starts grams at the beginning of each word', () => {
    const tokenizer = { type: 'edge_ngram', min_gram: 2, max_gram: 10, token_chars: ['letter', 'digit'] };
    assert.deepEqual(terms({ tokenizer, text: '2 Quick Foxes.' }), ['Qu', 'Qui', 'Quic', 'Quick', 'Fo', 'Fox', 'Foxe', 'Foxes']);
  });
});

describe('pattern tokenizer', () => {
  it('splits on \\W+ by default', () => {
    assert.deepEqual(terms({ tokenizer: 'pattern', text: "The foo_bar_size's default is 5." }), [
      'The', 'foo_bar_size', 's', 'default', 'is', '5',
    ]);
  });

  it('splits on a custom pattern', () => {
    assert.deepEqual(terms({ tokenizer: { type: 'pattern', pattern: ',' }, text: 'comma,separated,values' }), ['comma', 'separated', 'values']);
  });

  it('extracts a capture group', () => {
    const tokenizer = { type: 'pattern', pattern: '"((?:\\\\"|[^"]|\\\\")+)"', group: 1 };
    assert.deepEqual(terms({ tokenizer, text: '"value", "value with embedded \\" quote"' }), ['value', 'value with embedded \\" quote']);
  });
});
