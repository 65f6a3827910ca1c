/**
 * Java regular expressions as Elasticsearch settings give them (`pattern`
 * tokenizer and analyzer, `pattern_replace` char filter), with their `flags`
 * string (`CASE_INSENSITIVE|COMMENTS`). They run on the linear-time engine
 * (shared/engine/regex): an analyzer's pattern runs on every document a shard
 * worker indexes and on `_analyze` requests, so a backtracking engine would
 * let one pattern hold the thread for minutes.
 */

import { compileJavaPattern, type LinearRegex } from '../regex/linear-regex.ts';

export type { LinearRegex };

export function compileJavaRegex(pattern: string, flags: string): LinearRegex {
  return compileJavaPattern(pattern, flags);
}
