/**
 * Turns a field writer's TermHash (slots in order of first appearance) into
 * the sorted term dictionary a segment exposes.
 */
import type { PackedStrings } from './packed-strings.ts';
import type { TermHash } from './term-hash.ts';

export interface SortedTerms {
  /** Terms in ascending JS `<` order. */
  readonly terms: PackedStrings;
  /** Slot of each term id (the inverse of `slotToTerm`). */
  readonly order: Int32Array;
  /** Term id (index in `terms`) of each slot. */
  readonly slotToTerm: Int32Array;
}

export function sortTerms(hash: TermHash): SortedTerms {
  const order = hash.sortedSlots();
  const terms = hash.packedTerms(order);
  const slotToTerm = new Int32Array(order.length);
  for (let t = 0; t < order.length; t++) slotToTerm[order[t]] = t;
  return { terms, order, slotToTerm };
}
