/**
 * Elasticsearch's UniqueTokenFilter (`unique`): drops a term already seen in
 * the same text (or, with `only_on_same_position`, at the same position).
 * Unlike stop words, dropped duplicates leave no position gap.
 */

import { FilterStage, type TokenConsumer, type TokenFilterFactory } from './token-stream.ts';

export class UniqueFilterFactory implements TokenFilterFactory {
  readonly name: string;
  readonly normalizerSafe = false;
  private readonly onlyOnSamePosition: boolean;

  constructor(name: string, onlyOnSamePosition: boolean) {
    this.name = name;
    this.onlyOnSamePosition = onlyOnSamePosition;
  }

  create(next: TokenConsumer): TokenConsumer {
    return new UniqueStage(next, this.onlyOnSamePosition);
  }
}

class UniqueStage extends FilterStage {
  private readonly seen = new Set<string>();
  private readonly onlyOnSamePosition: boolean;

  constructor(next: TokenConsumer, onlyOnSamePosition: boolean) {
    super(next);
    this.onlyOnSamePosition = onlyOnSamePosition;
  }

  override begin(): void {
    this.seen.clear();
    super.begin();
  }

  token(term: string, posInc: number, start: number, end: number, type: string): void {
    if (this.onlyOnSamePosition && posInc > 0) this.seen.clear();
    if (this.seen.has(term)) return;
    this.seen.add(term);
    this.next.token(term, posInc, start, end, type);
  }
}
