import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import type { Analyzer } from '../../../shared/engine/analysis/types.ts';
import { terms } from './token-fixtures.ts';

const FOXES = "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.";

function builtin(name: string): Analyzer {
  const a = AnalysisRegistry.builtins.get(name);
  assert.ok(a, `built-in analyzer ${name}`);
  return a;
}

/** Everything analyzeInto reports, as `term@position[start,end]`, plus its return value. */
function sinkOutput(analyzer: Analyzer, text: string, base = 0): { tokens: string[]; next: number } {
  const tokens: string[] = [];
  const next = analyzer.analyzeInto(text, (term, position, start, end) => tokens.push(`${term}@${position}[${start},${end}]`), base);
  return { tokens, next };
}

describe('built-in analyzers', () => {
  it('standard lowercases and keeps stop words (Elasticsearch 6 default)', () => {
    assert.deepEqual(terms({ analyzer: 'standard', text: FOXES }), [
      'the', '2', 'quick', 'brown', 'foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone',
    ]);
  });

  it('simple keeps letters only, lowercased', () => {
    assert.deepEqual(terms({ analyzer: 'simple', text: FOXES }), [
      'the', 'quick', 'brown', 'foxes', 'jumped', 'over', 'the', 'lazy', 'dog', 's', 'bone',
    ]);
  });

  it('whitespace splits on whitespace only', () => {
    assert.deepEqual(terms({ analyzer: 'whitespace', text: FOXES }), [
      'The', '2', 'QUICK', 'Brown-Foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone.',
    ]);
  });

  it('keyword keeps the whole text', () => {
    assert.deepEqual(terms({ analyzer: 'keyword', text: FOXES }), [FOXES]);
  });

  it('stop is simple without English stop words', () => {
    assert.deepEqual(terms({ analyzer: 'stop', text: FOXES }), ['quick', 'brown', 'foxes', 'jumped', 'over', 'lazy', 'dog', 's', 'bone']);
  });

  it('standard with max_token_length and _english_ stop words matches the docs example', () => {
    const registry = AnalysisRegistry.fromIndexSettings({
      analyzer: { my_english_analyzer: { type: 'standard', max_token_length: 5, stopwords: '_english_' } },
    });
    assert.deepEqual(terms({ analyzer: 'my_english_analyzer', text: FOXES }, registry), [
      '2', 'quick', 'brown', 'foxes', 'jumpe', 'd', 'over', 'lazy', "dog's", 'bone',
    ]);
  });
});

describe('analyzeInto (the indexing path)', () => {
  it('streams positions from positionBase and returns the next free position', () => {
    assert.deepEqual(sinkOutput(builtin('standard'), 'Foo Bar', 10), { tokens: ['foo@10[0,3]', 'bar@11[4,7]'], next: 12 });
  });

  it('counts stop words removed at the end in the returned position, as Lucene does', () => {
    assert.deepEqual(sinkOutput(builtin('stop'), 'quick the', 0), { tokens: ['quick@0[0,5]'], next: 2 });
  });

  it('returns positionBase for text without tokens', () => {
    assert.deepEqual(sinkOutput(builtin('standard'), ' ... ', 7), { tokens: [], next: 7 });
  });

  it('reports offsets into the original text when char filters changed it', () => {
    const registry = AnalysisRegistry.fromIndexSettings({ analyzer: { html: { tokenizer: 'standard', char_filter: ['html_strip'] } } });
    assert.deepEqual(sinkOutput(registry.get('html')!, '<b>big</b> cat').tokens, ['big@0[3,10]', 'cat@1[11,14]']);
  });

  it('gives the same tokens as analyze() when a lowercase filter is applied to the whole text at once', () => {
    const registry = AnalysisRegistry.fromIndexSettings(
      {
        tokenizer: { plate: { type: 'ngram', min_gram: 1, max_gram: 3, token_chars: ['letter', 'digit'] } },
        analyzer: { plate_lower: { tokenizer: 'plate', filter: ['lowercase'] } },
      },
      { maxNgramDiff: 2 },
    );
    const analyzer = registry.get('plate_lower')!;
    for (const text of ['京A12345', 'ΟΔΟΣ İx', 'a𝒳B']) {
      const viaAnalyze = analyzer.analyze(text).map((t) => `${t.token}@${t.position}[${t.start_offset},${t.end_offset}]`);
      assert.deepEqual(sinkOutput(analyzer, text).tokens, viaAnalyze, text);
    }
  });

  it('survives a sink that analyzes with the same analyzer', () => {
    const analyzer = builtin('standard');
    const inner: string[] = [];
    const outer: string[] = [];
    analyzer.analyzeInto('a b', (term) => {
      outer.push(term);
      analyzer.analyzeInto('x', (t) => inner.push(t));
    });
    assert.deepEqual(outer, ['a', 'b']);
    assert.deepEqual(inner, ['x', 'x']);
  });
});
