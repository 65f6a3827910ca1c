/**
 * Lucene's PatternTokenizer (Elasticsearch's `pattern` tokenizer): with
 * `group` -1 the text is split on matches of the pattern (empty pieces are
 * dropped); with a group >= 0 each match's group is a token.
 */

import type { TokenConsumer, Tokenizer } from './token-stream.ts';

/** PatternTokenizerFactory's default pattern. */
export const DEFAULT_PATTERN = '\\W+';

export class PatternTokenizer implements Tokenizer {
  readonly name: string;
  private readonly regex: RegExp;
  private readonly group: number;

  constructor(name: string, regex: RegExp, group: number) {
    this.name = name;
    this.regex = new RegExp(regex.source, regex.flags.includes('d') ? regex.flags : `${regex.flags}d`);
    this.group = group;
  }

  tokenize(text: string, out: TokenConsumer): void {
    const re = this.regex;
    re.lastIndex = 0;
    if (this.group < 0) {
      let from = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        if (m.index > from) out.token(text.slice(from, m.index), 1, from, m.index, 'word');
        from = m.index + m[0].length;
      }
      if (from < text.length) out.token(text.slice(from), 1, from, text.length, 'word');
      return;
    }
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      const span = m.indices?.[this.group];
      if (span === undefined || span[0] === span[1]) continue;
      out.token(text.slice(span[0], span[1]), 1, span[0], span[1], 'word');
    }
  }
}
