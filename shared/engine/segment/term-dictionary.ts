/**
 * Turns a field writer's TermHash (slots in order of first appearance) into
 * the sorted term dictionary a segment exposes.
 */
import { TermHash } from './term-hash.ts';

export interface SortedTerms {
  /** Terms in ascending JS `<` order. */
  readonly terms: string[];
  /** Slot of each term id (the inverse of `slotToTerm`). */
  readonly order: Int32Array;
  /** Term id (index in `terms`) of each slot. */
  readonly slotToTerm: Int32Array;
  /** term → term id. */
  readonly termIds: ReadonlyMap<string, number>;
}

export function sortTerms(hash: TermHash): SortedTerms {
  const order = hash.sortedSlots();
  const terms = hash.termStrings(order);
  const slotToTerm = new Int32Array(order.length);
  for (let t = 0; t < order.length; t++) slotToTerm[order[t]] = t;
  return { terms, order, slotToTerm, termIds: new TermIdMap(hash, slotToTerm, terms) };
}

/**
 * `termIds` for terms already in ascending order (a merge produces them so).
 * The hash is built on the first lookup: most merged segments are merged
 * again before anything looks a term up in them.
 */
export function termIdsOfSorted(terms: readonly string[]): ReadonlyMap<string, number> {
  return new TermIdMap(null, null, terms);
}

/**
 * `termIds` as a read-only view of the writer's hash: a real Map of every
 * distinct term would cost as much again as the whole dictionary.
 */
export class TermIdMap implements ReadonlyMap<string, number> {
  /**
   * `slotToTerm` null: slots are term ids (terms were hashed in sorted order).
   * `hash` null: built from `terms`, in order, on the first lookup.
   */
  constructor(
    private hash: TermHash | null,
    private readonly slotToTerm: Int32Array | null,
    private readonly terms: readonly string[],
  ) {}

  private lookup(): TermHash {
    if (this.hash !== null) return this.hash;
    const hash = new TermHash(this.terms.length);
    for (const term of this.terms) hash.addDistinct(term);
    this.hash = hash;
    return hash;
  }

  get size(): number {
    return this.terms.length;
  }

  get(term: string): number | undefined {
    const slot = this.lookup().find(term);
    if (slot < 0) return undefined;
    return this.slotToTerm === null ? slot : this.slotToTerm[slot];
  }

  has(term: string): boolean {
    return this.lookup().find(term) >= 0;
  }

  forEach(visit: (termId: number, term: string, map: ReadonlyMap<string, number>) => void, thisArg?: unknown): void {
    for (let t = 0; t < this.terms.length; t++) visit.call(thisArg, t, this.terms[t], this);
  }

  *entries(): MapIterator<[string, number]> {
    for (let t = 0; t < this.terms.length; t++) yield [this.terms[t], t];
  }

  *keys(): MapIterator<string> {
    yield* this.terms;
  }

  *values(): MapIterator<number> {
    for (let t = 0; t < this.terms.length; t++) yield t;
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries();
  }
}
