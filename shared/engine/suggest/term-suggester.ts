/**
 * The `term` suggester (TermSuggester): for each token of the text, the
 * terms of the field within `max_edits` (direct-spellchecker.ts), at most
 * `shard_size` per shard; the coordinator merges them (reduce-suggest.ts).
 */
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { MappingLookup } from '../mapping/types.ts';
import type { SearcherSnapshot } from '../segment/types.ts';
import { ShardTerms, suggestSimilar } from './direct-spellchecker.ts';
import { suggestAnalyzer, suggestField, textTokens } from './text-tokens.ts';
import type { ShardSuggestion, TermSuggestSpec } from './types.ts';

export function runTermSuggester(
  spec: TermSuggestSpec,
  text: string,
  snapshot: SearcherSnapshot,
  mapping: MappingLookup,
  analyzers: AnalyzerLookup,
): ShardSuggestion {
  const fm = suggestField(mapping, spec.field);
  const analyzer = suggestAnalyzer(fm, analyzers, spec.analyzer);
  const shardSize = spec.shardSize ?? Math.max(spec.size, 5);
  const terms = new ShardTerms(snapshot, fm.path); // a field alias suggests from its target
  const entries = textTokens(text, analyzer).map((tok) => ({
    text: tok.term,
    offset: tok.start,
    length: tok.end - tok.start,
    options: terms.exists ? suggestSimilar(terms, tok.term, shardSize, spec.settings).map((w) => ({ text: w.text, score: w.score, freq: w.freq })) : [],
  }));
  return { type: 'term', name: spec.name, size: spec.size, sort: spec.settings.sort, entries };
}
