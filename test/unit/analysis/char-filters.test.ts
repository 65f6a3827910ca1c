import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { analyzeTokens, detailed, terms } from './token-fixtures.ts';

const HTML = '<p>I&apos;m so <b>happy</b>!</p>';

describe('html_strip', () => {
  it('strips tags, turns block tags into line breaks and decodes entities (docs example)', () => {
    assert.deepEqual(terms({ tokenizer: 'keyword', char_filter: ['html_strip'], text: HTML }), ["\nI'm so happy!\n"]);
  });

  it('gives tokens offsets into the original HTML', () => {
    const tokens = analyzeTokens({ tokenizer: 'standard', char_filter: ['html_strip'], text: HTML });
    assert.deepEqual(tokens.map((t) => t.token), ["I'm", 'so', 'happy']);
    assert.equal(HTML.slice(tokens[0]!.start_offset, tokens[0]!.end_offset), 'I&apos;m');
    assert.equal(tokens[2]!.start_offset, HTML.indexOf('happy'));
  });

  it('keeps escaped_tags', () => {
    const charFilter = [{ type: 'html_strip', escaped_tags: ['b'] }];
    assert.deepEqual(terms({ tokenizer: 'keyword', char_filter: charFilter, text: HTML }), ["\nI'm so <b>happy</b>!\n"]);
  });
});

describe('mapping', () => {
  it('replaces Arabic-Indic digits (docs example)', () => {
    const mappings = ['٠ => 0', '١ => 1', '٢ => 2', '٣ => 3', '٤ => 4', '٥ => 5', '٦ => 6', '٧ => 7', '٨ => 8', '٩ => 9'];
    const charFilter = [{ type: 'mapping', mappings }];
    assert.deepEqual(terms({ tokenizer: 'keyword', char_filter: charFilter, text: 'My license plate is ٢٥٠١٥' }), ['My license plate is 25015']);
  });

  it('prefers the longest key and corrects offsets around longer replacements', () => {
    const charFilter = [{ type: 'mapping', mappings: [':) => _happy_', ':( => _sad_'] }];
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', char_filter: charFilter, text: "I'm delighted about it :(" })), [
      "I'm@0[0,3]<ALPHANUM>",
      'delighted@1[4,13]<ALPHANUM>',
      'about@2[14,19]<ALPHANUM>',
      'it@3[20,22]<ALPHANUM>',
      '_sad_@4[23,25]<ALPHANUM>',
    ]);
  });
});

describe('pattern_replace', () => {
  it('replaces matches with group references (docs example)', () => {
    const charFilter = [{ type: 'pattern_replace', pattern: '(\\d+)-(?=\\d)', replacement: '$1_' }];
    assert.deepEqual(terms({ tokenizer: 'standard', char_filter: charFilter, text: 'My credit card is 123-456-789' }), [
      'My', 'credit', 'card', 'is', '123_456_789',
    ]);
  });
});
