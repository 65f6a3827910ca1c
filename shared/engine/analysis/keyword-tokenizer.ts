/**
 * Lucene's KeywordTokenizer (Elasticsearch's `keyword` tokenizer): the whole
 * input as one token of type `word`, even when the input is empty.
 */

import type { TokenConsumer, Tokenizer } from './token-stream.ts';

export class KeywordTokenizer implements Tokenizer {
  readonly name: string;
  readonly caseIndependent = true;

  constructor(name = 'keyword') {
    this.name = name;
  }

  tokenize(text: string, out: TokenConsumer): void {
    out.token(text, 1, 0, text.length, 'word');
  }
}
