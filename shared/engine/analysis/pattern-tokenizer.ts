/**
 * Lucene's PatternTokenizer (Elasticsearch's `pattern` tokenizer): with
 * `group` -1 the text is split on matches of the pattern (empty pieces are
 * dropped); with a group >= 0 each match's group is a token.
 */

import type { LinearRegex } from './java-regex.ts';
import type { TokenConsumer, Tokenizer } from './token-stream.ts';

/** PatternTokenizerFactory's default pattern. */
export const DEFAULT_PATTERN = '\\W+';

export class PatternTokenizer implements Tokenizer {
  readonly name: string;
  private readonly regex: LinearRegex;
  private readonly group: number;

  constructor(name: string, regex: LinearRegex, group: number) {
    this.name = name;
    this.regex = regex;
    this.group = group;
  }

  tokenize(text: string, out: TokenConsumer): void {
    if (this.group < 0) {
      let from = 0;
      for (const m of this.regex.findAll(text, false)) {
        const start = m[0]!;
        const end = m[1]!;
        if (end === start) continue;
        if (start > from) out.token(text.slice(from, start), 1, from, start, 'word');
        from = end;
      }
      if (from < text.length) out.token(text.slice(from), 1, from, text.length, 'word');
      return;
    }
    const g = this.group;
    for (const m of this.regex.findAll(text, g > 0)) {
      const start = m[2 * g] ?? -1;
      const end = m[2 * g + 1] ?? -1;
      if (start < 0 || start === end) continue;
      out.token(text.slice(start, end), 1, start, end, 'word');
    }
  }
}
