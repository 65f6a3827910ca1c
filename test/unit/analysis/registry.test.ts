import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { assertEsError, terms } from './token-fixtures.ts';

const NGRAM_DIFF_WARNING =
  'Deprecated big difference between max_gram and min_gram in NGram Tokenizer,expected difference must be less than or equal to: [1]';

const PLATE_SETTINGS = {
  analyzer: { plate_ngram: { type: 'custom', tokenizer: 'plate_tokenizer', filter: ['lowercase'] } },
  tokenizer: { plate_tokenizer: { type: 'ngram', min_gram: 1, max_gram: 8, token_chars: ['letter', 'digit'] } },
};

const build = (analysis: unknown) => () => AnalysisRegistry.fromIndexSettings(analysis);

describe('AnalysisRegistry from index settings', () => {
  it('builds a custom ngram analyzer and looks it up by name beside the built-ins', () => {
    const registry = AnalysisRegistry.fromIndexSettings(PLATE_SETTINGS);
    const plate = registry.get('plate_ngram');
    assert.ok(plate);
    assert.equal(plate.analyze('京A12345').length, 28);
    assert.deepEqual(plate.analyze('Ab').map((t) => t.token), ['a', 'ab', 'b']);
    assert.ok(registry.get('standard'));
    assert.equal(registry.get('missing'), undefined);
  });

  it('accepts a big max_gram - min_gram difference with the 6.x deprecation warning', () => {
    assert.deepEqual(AnalysisRegistry.fromIndexSettings(PLATE_SETTINGS).warnings, [NGRAM_DIFF_WARNING]);
  });

  it('takes the allowed difference from index.max_ngram_diff', () => {
    assert.deepEqual(AnalysisRegistry.fromIndexSettings(PLATE_SETTINGS, { maxNgramDiff: 7 }).warnings, []);
    const small = AnalysisRegistry.fromIndexSettings(PLATE_SETTINGS, { maxNgramDiff: 3 });
    assert.deepEqual(small.warnings, [NGRAM_DIFF_WARNING.replace('[1]', '[3]')]);
  });

  it('warns for the ngram token filter too, once per text, and never for edge_ngram', () => {
    const registry = AnalysisRegistry.fromIndexSettings({
      tokenizer: { edges: { type: 'edge_ngram', min_gram: 1, max_gram: 10 }, grams: { type: 'ngram', min_gram: 1, max_gram: 5 } },
      filter: { grams: { type: 'ngram', min_gram: 2, max_gram: 6 } },
    });
    assert.deepEqual(registry.warnings, [NGRAM_DIFF_WARNING]);
    assert.deepEqual(AnalysisRegistry.fromIndexSettings({ tokenizer: { e: { type: 'edge_ngram', min_gram: 1, max_gram: 10 } } }).warnings, []);
  });

  it('reads settings given as strings and with dotted keys, as Elasticsearch settings do', () => {
    const registry = AnalysisRegistry.fromIndexSettings({
      'tokenizer.tri.type': 'ngram',
      'tokenizer.tri.min_gram': '3',
      'tokenizer.tri.max_gram': '3',
      'tokenizer.tri.token_chars': 'letter,digit',
      'analyzer.tri.tokenizer': 'tri',
    });
    assert.deepEqual(terms({ analyzer: 'tri', text: 'abcd e' }, registry), ['abc', 'bcd']);
  });

  it('uses an analyzer named default as the index default', () => {
    const registry = AnalysisRegistry.fromIndexSettings({ analyzer: { default: { type: 'whitespace' } } });
    assert.equal(registry.defaultAnalyzer().name, 'default');
    assert.deepEqual(terms({ text: 'Foo-Bar' }, registry), ['Foo-Bar']);
  });

  it('builds custom normalizers from keyword, normalizer-safe filters', () => {
    const registry = AnalysisRegistry.fromIndexSettings({ normalizer: { lower: { type: 'custom', filter: ['lowercase', 'asciifolding'] } } });
    assert.deepEqual(registry.normalizer('lower')!.analyze('Ça Va').map((t) => t.token), ['ca va']);
  });

  it('the built-ins instance is shared and not index scoped', () => {
    assert.equal(AnalysisRegistry.builtins, AnalysisRegistry.builtins);
    assert.equal(AnalysisRegistry.builtins.indexScoped, false);
    assert.equal(AnalysisRegistry.fromIndexSettings(undefined).indexScoped, true);
  });
});

describe('AnalysisRegistry errors (Elasticsearch 6.8 texts)', () => {
  const IAE = 'illegal_argument_exception';

  it('unknown tokenizer in a custom analyzer', () => {
    assertEsError(build({ analyzer: { my_analyzer: { tokenizer: 'xyz' } } }), IAE, 'Custom Analyzer [my_analyzer] failed to find tokenizer under name [xyz]');
  });

  it('unknown filter and char_filter in a custom analyzer', () => {
    assertEsError(
      build({ analyzer: { my_analyzer: { tokenizer: 'standard', filter: ['lowercase', 'nope'] } } }),
      IAE,
      'Custom Analyzer [my_analyzer] failed to find filter under name [nope]',
    );
    assertEsError(
      build({ analyzer: { my_analyzer: { tokenizer: 'standard', char_filter: ['nope'] } } }),
      IAE,
      'Custom Analyzer [my_analyzer] failed to find char_filter under name [nope]',
    );
  });

  it('custom analyzer without a tokenizer, and an analyzer with neither type nor tokenizer', () => {
    assertEsError(build({ analyzer: { a: { type: 'custom', filter: ['lowercase'] } } }), IAE, 'Custom Analyzer [a] must be configured with a tokenizer');
    assertEsError(build({ analyzer: { a: { filter: ['lowercase'] } } }), IAE, 'analyzer [a] must specify either an analyzer type, or a tokenizer');
  });

  it('unknown component types, and components without a type', () => {
    assertEsError(build({ analyzer: { a: { type: 'fancy' } } }), IAE, 'Unknown analyzer type [fancy] for [a]');
    assertEsError(build({ tokenizer: { t: { type: 'fancy' } } }), IAE, 'Unknown tokenizer type [fancy] for [t]');
    assertEsError(build({ filter: { f: { type: 'fancy' } } }), IAE, 'Unknown filter type [fancy] for [f]');
    assertEsError(build({ char_filter: { c: { type: 'fancy' } } }), IAE, 'Unknown char_filter type [fancy] for [c]');
    assertEsError(build({ tokenizer: { t: { min_gram: 2 } } }), IAE, 'tokenizer [t] must specify either an analyzer type, or a tokenizer');
  });

  it('unknown token_chars class lists the accepted ones in Elasticsearch order', () => {
    assert.throws(build({ tokenizer: { t: { type: 'ngram', token_chars: ['letters'] } } }), (err: Error) => {
      assert.match(err.message, /^Unknown token type: 'letters', must be one of \[symbol, private_use, paragraph_separator, .*, whitespace\]$/);
      return true;
    });
  });

  it('invalid gram sizes', () => {
    assertEsError(build({ tokenizer: { t: { type: 'ngram', min_gram: 3, max_gram: 2 } } }), IAE, 'minGram must not be greater than maxGram');
    assertEsError(build({ tokenizer: { t: { type: 'edge_ngram', min_gram: 0 } } }), IAE, 'minGram must be greater than zero');
    assertEsError(
      build({ tokenizer: { t: { type: 'ngram', min_gram: 'abc' } } }),
      'settings_exception',
      'Failed to parse int setting [min_gram] with value [abc]',
      500,
    );
  });

  it('analyzer names starting with an underscore', () => {
    assertEsError(build({ analyzer: { _mine: { tokenizer: 'standard' } } }), IAE, 'analyzer name must not start with \'_\'. got "_mine"');
  });

  it('normalizers: no tokenizer, only normalizer-safe components', () => {
    assertEsError(build({ normalizer: { n: { tokenizer: 'keyword' } } }), IAE, 'Custom normalizer [n] cannot configure a tokenizer');
    assertEsError(build({ normalizer: { n: { char_filter: ['html_strip'] } } }), IAE, 'Custom normalizer [n] may not use char filter [html_strip]');
    assertEsError(build({ normalizer: { n: { filter: ['stop'] } } }), IAE, 'Custom normalizer [n] may not use filter [stop]');
    assertEsError(build({ normalizer: { n: { filter: ['nope'] } } }), IAE, 'Custom Analyzer [n] failed to find filter under name [nope]');
    assertEsError(build({ normalizer: { n: { type: 'fancy' } } }), IAE, 'Unknown normalizer type [fancy] for [n]');
  });

  it('synonym and mapping definitions without rules', () => {
    assertEsError(build({ filter: { s: { type: 'synonym' } } }), IAE, 'synonym requires either `synonyms` or `synonyms_path` to be configured');
    assertEsError(build({ char_filter: { m: { type: 'mapping' } } }), IAE, 'mapping requires either `mappings` or `mappings_path` to be configured');
  });
});
