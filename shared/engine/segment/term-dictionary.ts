/**
 * Turns a field writer's TermHash (slots in order of first appearance) into
 * the sorted term dictionary a segment exposes.
 */
import { runSteps } from '../../steps/run-steps.ts';
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
  return runSteps(sortTermsInSteps(hash));
}

/** sortTerms(), yielding while the terms sort (TermHash.sortedSlotsInSteps) and once more after. */
export function* sortTermsInSteps(hash: TermHash): Generator<void, SortedTerms> {
  const order = yield* hash.sortedSlotsInSteps();
  yield;
  const terms = hash.packedTerms(order);
  const slotToTerm = new Int32Array(order.length);
  for (let t = 0; t < order.length; t++) slotToTerm[order[t]] = t;
  return { terms, order, slotToTerm };
}
