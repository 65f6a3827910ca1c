/**
 * A shard's part of the `suggest` section: every suggestion run on the
 * shard's point-in-time snapshot, in request order (SuggestPhase).
 */
import { suggestionText } from '../../dsl/suggest/parse-suggest.ts';
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { MappingLookup } from '../mapping/types.ts';
import type { SearcherSnapshot } from '../segment/types.ts';
import type { SourceSpec } from '../search/types.ts';
import { runCompletionSuggester } from './completion-suggester.ts';
import { runPhraseSuggester } from './phrase-suggester.ts';
import { runTermSuggester } from './term-suggester.ts';
import type { ShardSuggestResult, SuggestRequest } from './types.ts';

export interface SuggestShardContext {
  readonly snapshot: SearcherSnapshot;
  readonly mapping: MappingLookup;
  readonly analyzers: AnalyzerLookup;
  readonly index: string;
  readonly typeName: string;
  /** The request's `_source` filtering, for completion options' `_source`. */
  readonly source: SourceSpec;
}

export function runSuggest(req: SuggestRequest, ctx: SuggestShardContext): ShardSuggestResult {
  return req.suggestions.map((spec) => {
    const text = suggestionText(req, spec);
    switch (spec.type) {
      case 'term':
        return runTermSuggester(spec, text, ctx.snapshot, ctx.mapping, ctx.analyzers);
      case 'phrase':
        return runPhraseSuggester(spec, text, ctx.snapshot, ctx.mapping, ctx.analyzers);
      case 'completion':
        return runCompletionSuggester(spec, text, ctx);
    }
  });
}
