/**
 * A token_count field's values: the texts the document parser gave, each
 * replaced by its token count under the field's analyzer
 * (TokenCountFieldMapper.countPositions); a number (the field's
 * `null_value`) is kept as it is.
 */
import type { Analyzer } from '../analysis/types.ts';
import type { TokenCountOptions } from '../mapping/types.ts';

/**
 * With `enable_position_increments` every position counts, so a stop word
 * the analyzer removed between two tokens still counts; without it each
 * token counts once and tokens stacked on one position (synonyms) once
 * together.
 */
export function countTokens(text: string, analyzer: Analyzer, opts: TokenCountOptions): number {
  let distinct = 0;
  let last = -1;
  const positions = analyzer.analyzeInto(text, (_term, position) => {
    if (position > last) {
      distinct++;
      last = position;
    }
  });
  return opts.enablePositionIncrements ? positions : distinct;
}

export function tokenCounts(values: readonly (string | number | boolean)[], analyzer: Analyzer, opts: TokenCountOptions): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out[i] = typeof v === 'string' ? countTokens(v, analyzer, opts) : Number(v);
  }
  return out;
}
