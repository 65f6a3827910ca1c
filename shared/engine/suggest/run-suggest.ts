/**
 * A shard's part of the `suggest` section: every suggestion run on the
 * shard's point-in-time snapshot, in request order (SuggestPhase).
 */
import { suggestionText } from '../../dsl/suggest/parse-suggest.ts';
import { runCompletionSuggester } from './completion-suggester.ts';
import { runPhraseSuggester } from './phrase-suggester.ts';
import { runTermSuggester } from './term-suggester.ts';
import type { ShardSuggestResult, SuggestRequest } from './types.ts';
import type { SuggestShardContext } from './shard-context.ts';

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
