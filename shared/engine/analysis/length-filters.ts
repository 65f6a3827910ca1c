/**
 * Filters about a term's length in UTF-16 units, as Lucene counts it:
 *   length   (LengthFilter): drops terms outside [min, max], leaving position gaps
 *   truncate (TruncateTokenFilter): cuts terms to `length` units
 */

import { illegalArgument } from '../../errors/es-errors.ts';
import { DroppingStage, TermMappingFilterFactory, type TokenConsumer, type TokenFilterFactory } from './token-stream.ts';

/** Java's Integer.MAX_VALUE: LengthTokenFilterFactory's default `max`. */
export const INTEGER_MAX_VALUE = 2147483647;

/** TruncateTokenFilterFactory's default `length`. */
export const DEFAULT_TRUNCATE_LENGTH = 10;

export class LengthFilterFactory implements TokenFilterFactory {
  readonly name: string;
  readonly normalizerSafe = false;
  private readonly min: number;
  private readonly max: number;

  constructor(name: string, min: number, max: number) {
    if (min < 0) throw illegalArgument('minimum length must be greater than or equal to zero');
    if (min > max) throw illegalArgument('maximum length must not be greater than minimum length');
    this.name = name;
    this.min = min;
    this.max = max;
  }

  create(next: TokenConsumer): TokenConsumer {
    return new LengthStage(next, this.min, this.max);
  }
}

class LengthStage extends DroppingStage {
  private readonly min: number;
  private readonly max: number;

  constructor(next: TokenConsumer, min: number, max: number) {
    super(next);
    this.min = min;
    this.max = max;
  }

  protected accept(term: string): boolean {
    return term.length >= this.min && term.length <= this.max;
  }
}

export function truncateFilter(name: string, length: number): TokenFilterFactory {
  if (length <= 0) throw illegalArgument('length parameter must be provided');
  return new TermMappingFilterFactory(name, false, (term) => (term.length > length ? term.slice(0, length) : term));
}
