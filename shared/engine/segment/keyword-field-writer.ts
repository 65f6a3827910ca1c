/**
 * Collects one keyword field of the docs of a segment being built: postings
 * without positions (the term is the value) and sorted (ordinal) doc values,
 * both from one term dictionary.
 */
import { Int32List } from './growable-arrays.ts';
import { layoutPostings } from './postings-layout.ts';
import { runSteps } from '../../steps/run-steps.ts';
import { sortTermsInSteps } from './term-dictionary.ts';
import { TermHash } from './term-hash.ts';
import { HeapInvertedField } from './heap-inverted-field.ts';
import type { SortedDocValues } from './types.ts';

export interface KeywordFieldColumns {
  readonly inverted: HeapInvertedField | null;
  readonly docValues: SortedDocValues | null;
}

export class KeywordFieldWriter {
  private readonly termSlots = new TermHash();
  /** Per slot, interleaved: the last doc that had the value (a value repeated within a doc counts once), and its doc freq. */
  private slotState = new Int32Array(512);
  /** Distinct (doc, slot) pairs in doc order: the postings and the doc values come from these. */
  private readonly entryDocs = new Int32List(1024);
  private readonly entrySlots = new Int32List(1024);
  private doc = -1;
  private docEntryStart = 0;
  private docsWithValue = 0;
  private maxValuesPerDoc = 0;

  constructor(
    private readonly indexed: boolean,
    private readonly withDocValues: boolean,
  ) {}

  /** Forgets the field's docs, keeping every array for the next segment's. */
  reset(): void {
    this.termSlots.clear();
    this.entryDocs.clear();
    this.entrySlots.clear();
    this.doc = -1;
    this.docEntryStart = 0;
    this.docsWithValue = 0;
    this.maxValuesPerDoc = 0;
  }

  startDoc(doc: number): void {
    this.doc = doc;
    this.docEntryStart = this.entryDocs.length;
  }

  addValues(values: readonly (string | number | boolean)[]): void {
    for (const value of values) this.addValue(typeof value === 'string' ? value : String(value));
  }

  addValue(term: string): void {
    const known = this.termSlots.size;
    const slot = this.termSlots.add(term);
    if (slot === known) this.slotAdded(slot);
    if (this.slotState[2 * slot] === this.doc) return;
    this.slotState[2 * slot] = this.doc;
    this.slotState[2 * slot + 1]++;
    this.entryDocs.push(this.doc);
    this.entrySlots.push(slot);
  }

  /** Ends the current doc; true when it had at least one value. */
  finishDoc(): boolean {
    const count = this.entryDocs.length - this.docEntryStart;
    if (count === 0) return false;
    this.docsWithValue++;
    if (count > this.maxValuesPerDoc) this.maxValuesPerDoc = count;
    return true;
  }

  /** The field's columns, in arrays of their own (the writer may be reset and reused). */
  build(maxDoc: number): KeywordFieldColumns {
    return runSteps(this.buildSteps(maxDoc));
  }

  /** build(), yielding while its terms sort (a refresh in steps gives its thread turns within a field). */
  *buildSteps(maxDoc: number): Generator<void, KeywordFieldColumns> {
    const { terms, order, slotToTerm } = yield* sortTermsInSteps(this.termSlots);
    const count = this.entryDocs.length;
    const docs = this.entryDocs.array;
    const slots = this.entrySlots.array;

    let inverted: HeapInvertedField | null = null;
    if (this.indexed) {
      // Keyword fields index docs only (IndexOptions.DOCS): Lucene reports a freq of 1.
      const freqs = new Int32Array(count).fill(1);
      const docFreqs = new Int32Array(this.termSlots.size);
      for (let s = 0; s < docFreqs.length; s++) docFreqs[s] = this.slotState[2 * s + 1];
      const layout = layoutPostings({ count, slots, docs, freqs, slotDocFreqs: docFreqs }, order);
      inverted = new HeapInvertedField({
        terms,
        ...layout,
        positionStarts: null,
        positions: null,
        norms: null,
        docCount: this.docsWithValue,
        sumTotalTermFreq: count,
      });
    }

    let docValues: SortedDocValues | null = null;
    if (this.withDocValues) {
      if (this.maxValuesPerDoc <= 1) {
        const ords = new Int32Array(maxDoc).fill(-1);
        for (let e = 0; e < count; e++) ords[docs[e]] = slotToTerm[slots[e]];
        docValues = { kind: 'sorted', dict: terms, ords, starts: null };
      } else {
        const starts = new Uint32Array(maxDoc + 1);
        for (let e = 0; e < count; e++) starts[docs[e] + 1]++;
        for (let d = 0; d < maxDoc; d++) starts[d + 1] += starts[d];
        // Entries are in doc order, so ords line up with starts; sort each doc's run.
        const ords = new Int32Array(count);
        for (let e = 0; e < count; e++) ords[e] = slotToTerm[slots[e]];
        for (let d = 0; d < maxDoc; d++) {
          if (starts[d + 1] - starts[d] > 1) ords.subarray(starts[d], starts[d + 1]).sort();
        }
        docValues = { kind: 'sorted', dict: terms, ords, starts };
      }
    }
    return { inverted, docValues };
  }

  private slotAdded(slot: number): void {
    if (2 * slot === this.slotState.length) {
      const grown = new Int32Array(4 * slot);
      grown.set(this.slotState);
      this.slotState = grown;
    }
    this.slotState[2 * slot] = -1;
    this.slotState[2 * slot + 1] = 0;
  }
}
