import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { analyzeNonTokenizedField } from '../../../shared/errors/es-errors.ts';
import { runAnalyze, type AnalyzeContext } from '../../../shared/engine/analysis/analyze-request.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { assertEsError, detailed, terms } from './token-fixtures.ts';

const IAE = 'illegal_argument_exception';
const global: AnalyzeContext = { registry: AnalysisRegistry.builtins };

/** An index with a text field `text` (standard), a `title` field (whitespace) and a numeric `count`. */
function indexContext(analysis: unknown = {}): AnalyzeContext {
  const registry = AnalysisRegistry.fromIndexSettings(analysis);
  const fields: Record<string, string> = { text: 'standard', title: 'whitespace' };
  return {
    registry,
    fieldAnalyzer: (field) => {
      if (field === 'count') throw analyzeNonTokenizedField(field);
      return fields[field] ?? null;
    },
  };
}

function tokensOf(body: unknown, ctx: AnalyzeContext = global): string[] {
  const res = runAnalyze(body, ctx);
  assert.ok(res.tokens, 'tokens response');
  return detailed(res.tokens);
}

function detailOf(body: unknown, ctx: AnalyzeContext = global) {
  const res = runAnalyze(body, ctx);
  assert.ok(res.detail, 'detail response');
  return res.detail;
}

describe('_analyze: choosing the analyzer', () => {
  it('uses the standard analyzer when nothing is named', () => {
    assert.deepEqual(terms({ text: 'Foo Bar' }), ['foo', 'bar']);
  });

  it('uses the analyzer of a mapped field', () => {
    const ctx = indexContext();
    assert.deepEqual(tokensOf({ field: 'text', text: 'Foo Bar!' }, ctx), ['foo@0[0,3]<ALPHANUM>', 'bar@1[4,7]<ALPHANUM>']);
    assert.deepEqual(
      runAnalyze({ field: 'title', text: 'Foo Bar!' }, ctx).tokens?.map((t) => t.token),
      ['Foo', 'Bar!'],
    );
  });

  it('falls back to the index default analyzer for an unmapped field', () => {
    const ctx = indexContext({ analyzer: { default: { type: 'whitespace' } } });
    assert.deepEqual(runAnalyze({ field: 'nope', text: 'A-B c' }, ctx).tokens?.map((t) => t.token), ['A-B', 'c']);
  });

  it('refuses a field that is not tokenized, and a field without an index', () => {
    assertEsError(
      () => runAnalyze({ field: 'count', text: '1' }, indexContext()),
      IAE,
      "Can't process field [count], Analysis requests are only supported on tokenized fields",
    );
    assertEsError(
      () => runAnalyze({ field: 'text', text: 'x' }, global),
      IAE,
      'No index provided, and trying to analyzer based on a specific field which requires the index parameter',
    );
  });

  it('builds a one-off analyzer from a tokenizer, filters and char filters (names or definitions)', () => {
    const body = {
      tokenizer: { type: 'ngram', min_gram: 2, max_gram: 2, token_chars: ['letter'] },
      filter: ['lowercase', { type: 'stop', stopwords: ['bc'] }],
      char_filter: [{ type: 'mapping', mappings: ['x => '] }],
      text: 'AxBC',
    };
    // Mapping removes the x (offsets still point into the original), grams AB and BC, lowercase, bc stopped.
    assert.deepEqual(tokensOf(body), ['ab@0[0,3]word']);
  });

  it('applies filters alone to the whole text as a normalizer (keyword tokenizer)', () => {
    assert.deepEqual(tokensOf({ filter: ['lowercase'], text: 'ABc Def' }), ['abc def@0[0,7]word']);
  });

  it('uses an index normalizer by name', () => {
    const ctx = indexContext({ normalizer: { lower: { filter: ['lowercase'] } } });
    assert.deepEqual(tokensOf({ normalizer: 'lower', text: 'ABC' }, ctx), ['abc@0[0,3]word']);
  });

  it('resolves index tokenizers and filters, synonyms analyzed with the trigram tokenizer before them', () => {
    const ctx = indexContext({
      tokenizer: { trigram: { type: 'nGram', min_gram: 3, max_gram: 3 } },
      filter: { synonym: { type: 'synonym', synonyms: ['kimchy => shay'] } },
    });
    const res = runAnalyze({ tokenizer: 'trigram', filter: ['synonym'], text: 'kimchy' }, ctx);
    assert.deepEqual(res.tokens?.map((t) => t.token), ['sha', 'hay']);
  });

  it('passes deprecation warnings of inline definitions to the caller', () => {
    const warnings: string[] = [];
    runAnalyze({ tokenizer: { type: 'ngram', min_gram: 1, max_gram: 4 }, text: 'ab' }, { ...global, warnings });
    assert.deepEqual(warnings, [
      'Deprecated big difference between max_gram and min_gram in NGram Tokenizer,expected difference must be less than or equal to: [1]',
    ]);
  });
});

describe('_analyze: several texts', () => {
  it('continues positions and offsets across values (no gap without an index)', () => {
    assert.deepEqual(tokensOf({ analyzer: 'standard', text: ['Foo Bar', 'Baz'] }), [
      'foo@0[0,3]<ALPHANUM>',
      'bar@1[4,7]<ALPHANUM>',
      'baz@2[8,11]<ALPHANUM>',
    ]);
    assert.deepEqual(tokensOf({ tokenizer: 'standard', text: ['Foo Bar', 'Baz'] }).map((t) => t.split('@')[0]), ['Foo', 'Bar', 'Baz']);
  });

  it("uses the index analyzer's position_increment_gap (100 unless configured)", () => {
    const ctx = indexContext({ analyzer: { gap10: { tokenizer: 'standard', position_increment_gap: 10 } } });
    assert.deepEqual(tokensOf({ analyzer: 'standard', text: ['a', 'b'] }, ctx), ['a@0[0,1]<ALPHANUM>', 'b@101[2,3]<ALPHANUM>']);
    assert.deepEqual(tokensOf({ analyzer: 'gap10', text: ['a', 'b'] }, ctx), ['a@0[0,1]<ALPHANUM>', 'b@11[2,3]<ALPHANUM>']);
  });
});

describe('_analyze: explain', () => {
  it('reports a built-in analyzer as one stage with token attributes', () => {
    const detail = detailOf({ text: 'This is troubled', analyzer: 'standard', explain: true });
    assert.equal(detail.custom_analyzer, false);
    assert.equal(detail.analyzer?.name, 'standard');
    assert.deepEqual(detail.analyzer?.tokens.map((t) => t.token), ['this', 'is', 'troubled']);
    assert.deepEqual(detail.analyzer?.tokens[0], {
      token: 'this',
      start_offset: 0,
      end_offset: 4,
      type: '<ALPHANUM>',
      position: 0,
      bytes: '[74 68 69 73]',
      positionLength: 1,
      termFrequency: 1,
    });
  });

  it('reports each stage of a one-off analyzer, naming inline filters _anonymous_tokenfilter', () => {
    const detail = detailOf({ text: 'foo bar buzz', tokenizer: 'standard', explain: true, filter: [{ type: 'stop', stopwords: ['foo', 'buzz'] }] });
    assert.equal(detail.custom_analyzer, true);
    assert.deepEqual(detail.charfilters, []);
    assert.equal(detail.tokenizer?.name, 'standard');
    assert.deepEqual(detail.tokenizer?.tokens.map((t) => t.token), ['foo', 'bar', 'buzz']);
    assert.equal(detail.tokenfilters?.length, 1);
    assert.equal(detail.tokenfilters?.[0]?.name, '_anonymous_tokenfilter');
    assert.deepEqual(detail.tokenfilters?.[0]?.tokens.map((t) => `${t.token}@${t.position}`), ['bar@1']);
  });

  it('reports a filters-only request as a keyword-tokenizer normalizer', () => {
    const detail = detailOf({ text: 'ABc', explain: true, filter: ['lowercase'] });
    assert.equal(detail.tokenizer?.name, 'keyword');
    assert.deepEqual(detail.tokenizer?.tokens.map((t) => t.token), ['ABc']);
    assert.equal(detail.tokenfilters?.[0]?.name, 'lowercase');
    assert.deepEqual(detail.tokenfilters?.[0]?.tokens.map((t) => t.token), ['abc']);
  });

  it('shows char filter output and only the requested attributes', () => {
    const detail = detailOf({ tokenizer: 'keyword', char_filter: ['html_strip'], text: '<b>x</b>', explain: true, attributes: ['bytes'] });
    assert.deepEqual(detail.charfilters, [{ name: 'html_strip', filtered_text: ['x'] }]);
    assert.deepEqual(Object.keys(detail.tokenizer!.tokens[0]!), ['token', 'start_offset', 'end_offset', 'type', 'position', 'bytes']);
  });
});

describe('_analyze: request errors (Elasticsearch 6.8 texts)', () => {
  it('no text is a validation error', () => {
    assertEsError(() => runAnalyze({ analyzer: 'standard' }, global), 'action_request_validation_exception', 'Validation Failed: 1: text is missing;');
    assertEsError(() => runAnalyze({ text: [] }, global), 'action_request_validation_exception', 'Validation Failed: 1: text is missing;');
  });

  it('a normalizer needs an index and no analyzer or tokenizer', () => {
    assertEsError(
      () => runAnalyze({ normalizer: 'n', tokenizer: 'standard' }, global),
      'action_request_validation_exception',
      'Validation Failed: 1: text is missing;2: index is required if normalizer is specified;3: tokenizer/analyze should be null if normalizer is specified;',
    );
    assertEsError(() => runAnalyze({ normalizer: 'n', text: 'x' }, indexContext()), IAE, 'failed to find normalizer under [n]');
  });

  it('unknown analyzers and components, with and without an index', () => {
    assertEsError(() => runAnalyze({ analyzer: 'foo', text: 'x' }, global), IAE, 'failed to find global analyzer [foo]');
    assertEsError(() => runAnalyze({ analyzer: 'foo', text: 'x' }, indexContext()), IAE, 'failed to find analyzer [foo]');
    assertEsError(() => runAnalyze({ tokenizer: 'foo', text: 'x' }, global), IAE, 'failed to find global tokenizer under [foo]');
    assertEsError(() => runAnalyze({ tokenizer: 'foo', text: 'x' }, indexContext()), IAE, 'failed to find tokenizer under [foo]');
    assertEsError(() => runAnalyze({ tokenizer: 'standard', filter: ['foo'], text: 'x' }, global), IAE, 'failed to find global token filter under [foo]');
    assertEsError(() => runAnalyze({ tokenizer: 'standard', filter: ['foo'], text: 'x' }, indexContext()), IAE, 'failed to find token filter under [foo]');
    assertEsError(() => runAnalyze({ tokenizer: 'standard', char_filter: ['foo'], text: 'x' }, global), IAE, 'failed to find global char filter under [foo]');
    assertEsError(() => runAnalyze({ tokenizer: { type: 'foo' }, text: 'x' }, global), IAE, 'failed to find global tokenizer under [foo]');
  });

  it('inline definitions need a type', () => {
    assertEsError(
      () => runAnalyze({ tokenizer: { min_gram: 1, max_gram: 2 }, text: 'x' }, global),
      IAE,
      'Missing [type] setting for anonymous tokenizer: {"max_gram":"2","min_gram":"1"}',
    );
    assertEsError(
      () => runAnalyze({ tokenizer: 'standard', filter: [{ stopwords: ['a'] }], text: 'x' }, global),
      IAE,
      'Missing [type] setting for anonymous token filter: {"stopwords":["a"]}',
    );
  });

  it('a normalizer may only use normalizer-safe components', () => {
    assertEsError(() => runAnalyze({ text: 'ABc', explain: true, char_filter: ['html_strip'] }, global), IAE, 'Custom normalizer may not use char filter [html_strip]');
    assertEsError(() => runAnalyze({ text: 'ABc', filter: ['stop'] }, global), IAE, 'Custom normalizer may not use filter [stop]');
  });

  it('unknown or mistyped body parameters', () => {
    assertEsError(
      () => runAnalyze({ text: 'x', token_filter: ['lowercase'] }, global),
      IAE,
      'Unknown parameter [token_filter] in request body or parameter is of the wrong type[START_ARRAY] ',
    );
    assertEsError(
      () => runAnalyze({ text: 'x', filter: 'lowercase' }, global),
      IAE,
      'Unknown parameter [filter] in request body or parameter is of the wrong type[VALUE_STRING] ',
    );
    assertEsError(() => runAnalyze({ text: 7 }, global), IAE, 'Unknown parameter [text] in request body or parameter is of the wrong type[VALUE_NUMBER] ');
    assertEsError(() => runAnalyze({ text: 'x', explain: 'yes' }, global), IAE, "explain must be either 'true' or 'false'");
    assertEsError(() => runAnalyze({ text: 'x', tokenizer: 3 }, global), IAE, "tokenizer should be tokenizer's name or setting");
    assertEsError(() => runAnalyze({ text: 'x', filter: [1] }, global), IAE, "filter array element should contain filter's name or setting");
    assertEsError(() => runAnalyze([], global), IAE, 'Malformed content, must start with an object');
    assertEsError(() => runAnalyze(undefined, global), 'parse_exception', 'request body or source parameter is required');
  });

  it('named components that exist only with settings cannot be used by name without an index', () => {
    assertEsError(
      () => runAnalyze({ tokenizer: 'standard', filter: ['synonym'], text: 'x' }, global),
      IAE,
      "Analysis settings required - can't instantiate analysis factory",
    );
  });
});

describe('_analyze: index.analyze.max_token_count (Elasticsearch 7)', () => {
  const limit = (max?: number): AnalyzeContext => ({ registry: AnalysisRegistry.builtins, maxTokenCount: max });

  it('answers as many tokens as the limit', () => {
    const res = runAnalyze({ text: 'one two three' }, limit(3));
    assert.deepEqual(res.tokens?.map((t) => t.token), ['one', 'two', 'three']);
  });

  it('refuses one token more, counting across the values of a multi-valued text', () => {
    assertEsError(
      () => runAnalyze({ text: ['one two', 'three four'] }, limit(3)),
      IAE,
      'The number of tokens produced by calling _analyze has exceeded the allowed maximum of [3]. This limit can be set by changing the [index.analyze.max_token_count] index level setting.',
    );
  });

  it('counts every stage of an explained custom chain', () => {
    assert.throws(() => runAnalyze({ tokenizer: 'whitespace', filter: ['lowercase'], text: 'a b c d', explain: true }, limit(3)), /exceeded the allowed maximum of \[3\]/);
  });

  it('defaults to 10,000 tokens', () => {
    assert.equal(runAnalyze({ text: 'a '.repeat(10_000) }, limit()).tokens?.length, 10_000);
    assert.throws(() => runAnalyze({ text: 'a '.repeat(10_001) }, limit()), /exceeded the allowed maximum of \[10000\]/);
  });
});
