import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import type { Analyzer } from '../../../shared/engine/analysis/types.ts';

const registry = AnalysisRegistry.fromIndexSettings(
  {
    tokenizer: {
      plate_grams: { type: 'ngram', min_gram: 1, max_gram: 8, token_chars: ['letter', 'digit'] },
      edges: { type: 'edge_ngram', min_gram: 1, max_gram: 4, token_chars: ['letter'] },
      all_grams: { type: 'ngram', min_gram: 2, max_gram: 3 },
    },
    analyzer: {
      plate_ngram: { type: 'custom', tokenizer: 'plate_grams', filter: ['lowercase'] },
      plate_ngram_plain: { type: 'custom', tokenizer: 'plate_grams' },
      edge_lower: { type: 'custom', tokenizer: 'edges', filter: ['lowercase'] },
      all_grams: { type: 'custom', tokenizer: 'all_grams' },
      grams_then_reverse: { type: 'custom', tokenizer: 'plate_grams', filter: ['lowercase', 'reverse'] },
    },
  },
  { maxNgramDiff: 7 },
);

function analyzer(name: string): Analyzer {
  const a = registry.get(name);
  assert.ok(a, `analyzer ${name}`);
  return a;
}

/** Tokens as `term@position[start,end]`, and the positions used, through the string sink. */
function viaTerms(a: Analyzer, text: string, base: number): { tokens: string[]; next: number } {
  const tokens: string[] = [];
  const next = a.analyzeInto(text, (term, position, start, end) => tokens.push(`${term}@${position}[${start},${end}]`), base);
  return { tokens, next };
}

/** The same through the range sink, or null when the analyzer declines it. */
function viaRanges(a: Analyzer, text: string, base: number): { tokens: string[]; next: number } | null {
  const tokens: string[] = [];
  const next = a.analyzeRangesInto!(text, (t, start, end, position) => tokens.push(`${t.substring(start, end)}@${position}[${start},${end}]`), base);
  return next < 0 ? null : { tokens, next };
}

describe('tokens as ranges of the text (the indexing path of n-gram fields)', () => {
  const texts = ['京A12345', 'AB-12 cd', '', '--', 'x', 'Ab\u{20000}c\u{1F600}D9', 'İSTANBUL 34', 'ΣΑΣ σας'];
  for (const name of ['plate_ngram', 'plate_ngram_plain', 'edge_lower', 'all_grams']) {
    it(`${name}: the same terms, positions, offsets and position count as the string tokens`, () => {
      for (const text of texts) {
        for (const base of [0, 101]) {
          const ranges = viaRanges(analyzer(name), text, base);
          // Declining is allowed (a case mapping that changes the length); otherwise it must match exactly.
          if (ranges !== null) assert.deepEqual(ranges, viaTerms(analyzer(name), text, base), `${name} on ${JSON.stringify(text)}`);
        }
      }
    });
  }

  it('the seed plate analyzer takes the range path', () => {
    assert.notEqual(viaRanges(analyzer('plate_ngram'), '京A12345', 0), null);
  });

  it('an analyzer with a token filter that rewrites terms declines, so its terms are never taken from the text', () => {
    assert.equal(viaRanges(analyzer('grams_then_reverse'), 'AB12', 0), null);
  });
});
