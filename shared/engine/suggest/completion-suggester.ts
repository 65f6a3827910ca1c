/** The `completion` suggester (placeholder until the completion field type lands). */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { SuggestShardContext } from './run-suggest.ts';
import type { CompletionSuggestSpec, ShardSuggestion } from './types.ts';

export function runCompletionSuggester(spec: CompletionSuggestSpec, _text: string, ctx: SuggestShardContext): ShardSuggestion {
  const fm = ctx.mapping.field(spec.field);
  if (fm === undefined) throw illegalArgument(`no mapping found for field [${spec.field}]`);
  throw illegalArgument(`Field [${spec.field}] is not a completion suggest field`);
}
