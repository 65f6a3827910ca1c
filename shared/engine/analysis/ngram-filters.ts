/**
 * Lucene 7's NGramTokenFilter and EdgeNGramTokenFilter (Elasticsearch's
 * `ngram` and `edge_ngram` token filters): every gram of a token is stacked at
 * the token's position and keeps the token's offsets. N-grams come by start
 * code point, then by increasing length; edge n-grams by increasing length from
 * the start. Tokens shorter than min_gram produce nothing.
 */

import { FilterStage, type TokenConsumer, type TokenFilterFactory } from './token-stream.ts';

export class NGramFilterFactory implements TokenFilterFactory {
  readonly name: string;
  readonly normalizerSafe = false;
  private readonly minGram: number;
  private readonly maxGram: number;
  private readonly edgesOnly: boolean;

  constructor(name: string, minGram: number, maxGram: number, edgesOnly: boolean) {
    this.name = name;
    this.minGram = minGram;
    this.maxGram = maxGram;
    this.edgesOnly = edgesOnly;
  }

  create(next: TokenConsumer): TokenConsumer {
    return new NGramStage(next, this.minGram, this.maxGram, this.edgesOnly);
  }
}

class NGramStage extends FilterStage {
  private readonly minGram: number;
  private readonly maxGram: number;
  private readonly edgesOnly: boolean;

  constructor(next: TokenConsumer, minGram: number, maxGram: number, edgesOnly: boolean) {
    super(next);
    this.minGram = minGram;
    this.maxGram = maxGram;
    this.edgesOnly = edgesOnly;
  }

  token(term: string, posInc: number, start: number, end: number, type: string): void {
    const cps = Array.from(term);
    const count = cps.length;
    let inc = posInc;
    const lastStart = this.edgesOnly ? 0 : count - this.minGram;
    for (let s = 0; s <= lastStart; s++) {
      for (let g = this.minGram; g <= this.maxGram && s + g <= count; g++) {
        this.next.token(cps.slice(s, s + g).join(''), inc, start, end, type);
        inc = 0;
      }
    }
  }
}
