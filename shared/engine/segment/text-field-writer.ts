/**
 * Inverts one analyzed text field of the docs of a segment being built:
 * postings with freqs and positions, BM25 norms and length statistics.
 *
 * Each term streams its positions, and the (doc, freq) of its earlier postings,
 * into slices of one int pool as tokens arrive (as Lucene's FreqProxTermsWriter
 * does). Building walks the terms in sorted order and reads each one's streams,
 * so the segment's columns are written front to back.
 */
import type { Analyzer, RangeSink, TokenSink } from '../analysis/types.ts';
import { ByteList } from './growable-arrays.ts';
import { SlicePool } from './slice-pool.ts';
import { intToByte4 } from './small-float.ts';
import { runSteps } from '../../steps/run-steps.ts';
import { sortTermsInSteps } from './term-dictionary.ts';
import { TermHash } from './term-hash.ts';
import { HeapInvertedField } from './heap-inverted-field.ts';

/**
 * Positions between two values of a multi-valued text field: Elasticsearch 6's
 * default `position_increment_gap` (TextFieldMapper.Defaults.POSITION_INCREMENT_GAP),
 * so phrases do not match across values.
 */
export const POSITION_INCREMENT_GAP = 100;

/** Per-slot state, SLOT_STRIDE ints per term (two terms share a cache line). */
const SLOT_STRIDE = 8;
/** Doc of the term's latest posting, whose (doc, freq) stays here until the term shows up in a later doc. */
const LAST_DOC = 0;
const LAST_FREQ = 1;
const DOC_FREQ = 2;
/** Stream of (doc, freq) of the earlier postings: start and write cursor, -1 until the term's second doc. */
const DOCS_START = 3;
const DOCS_UPTO = 4;
/** Stream of all the term's positions, posting after posting. */
const POSITIONS_START = 5;
const POSITIONS_UPTO = 6;

export class TextFieldWriter {
  private readonly termSlots = new TermHash();
  private slotState = new Int32Array(1024 * SLOT_STRIDE);
  private readonly streams = new SlicePool();
  private readonly norms = new ByteList(1024);
  private postingCount = 0;
  private docCount = 0;
  private sumTotalTermFreq = 0;

  private doc = -1;
  private tokensInDoc = 0;
  /** Lucene's FieldInvertState.position: the last position used in this doc, -1 before the first value. */
  private position = -1;
  private valuesInDoc = 0;
  /** Tokens at the same position as the previous one (position increment 0), left out of the norm's length. */
  private overlaps = 0;

  private readonly sink: TokenSink = (term, position) => {
    const known = this.termSlots.size;
    const slot = this.termSlots.add(term);
    if (slot === known) this.slotAdded(slot);
    this.addPosting(slot, position);
  };

  /** Tokens as slices of the text: the term's characters are hashed in place. */
  private readonly rangeSink: RangeSink = (text, start, end, position) => {
    const known = this.termSlots.size;
    const slot = this.termSlots.addRange(text, start, end);
    if (slot === known) this.slotAdded(slot);
    this.addPosting(slot, position);
  };

  private addPosting(slot: number, position: number): void {
    const state = this.slotState;
    const at = slot * SLOT_STRIDE;
    if (state[at + LAST_DOC] !== this.doc) {
      if (state[at + LAST_DOC] >= 0) {
        let upto = state[at + DOCS_UPTO];
        if (upto < 0) {
          upto = this.streams.newStream();
          state[at + DOCS_START] = upto;
        }
        upto = this.streams.write(upto, state[at + LAST_DOC]);
        state[at + DOCS_UPTO] = this.streams.write(upto, state[at + LAST_FREQ]);
      }
      state[at + LAST_DOC] = this.doc;
      state[at + LAST_FREQ] = 0;
      state[at + DOC_FREQ]++;
      this.postingCount++;
    }
    state[at + LAST_FREQ]++;
    state[at + POSITIONS_UPTO] = this.streams.write(state[at + POSITIONS_UPTO], position);
    this.tokensInDoc++;
    if (position === this.position) this.overlaps++;
    this.position = position;
  }

  /** Forgets the field's docs, keeping every array for the next segment's. */
  reset(): void {
    this.termSlots.clear();
    this.streams.clear();
    this.norms.clear();
    this.postingCount = 0;
    this.docCount = 0;
    this.sumTotalTermFreq = 0;
    this.doc = -1;
  }

  startDoc(doc: number): void {
    this.doc = doc;
    this.tokensInDoc = 0;
    this.position = -1;
    this.valuesInDoc = 0;
    this.overlaps = 0;
  }

  /** Analyzes values of the current doc; positions continue across values (and calls) with the increment gap between them. */
  addValues(values: readonly (string | number | boolean)[], analyzer: Analyzer): void {
    for (const value of values) {
      if (this.valuesInDoc++ > 0) this.position += POSITION_INCREMENT_GAP;
      const base = this.position + 1;
      // A value that yields no token leaves the position where it was, as in Lucene.
      this.position = base - 1;
      const text = typeof value === 'string' ? value : String(value);
      if (analyzer.analyzeRangesInto === undefined || analyzer.analyzeRangesInto(text, this.rangeSink, base) < 0) {
        analyzer.analyzeInto(text, this.sink, base);
      }
    }
  }

  /** Ends the current doc; true when it produced at least one token. */
  finishDoc(): boolean {
    const tokens = this.tokensInDoc;
    if (tokens === 0) return false;
    this.norms.setAt(this.doc, intToByte4(tokens - this.overlaps));
    this.docCount++;
    this.sumTotalTermFreq += tokens;
    return true;
  }

  /** The field's postings, in arrays of their own (the writer may be reset and reused). */
  build(maxDoc: number): HeapInvertedField {
    return runSteps(this.buildSteps(maxDoc));
  }

  /** build(), yielding while its terms sort (a refresh in steps gives its thread turns within a field). */
  *buildSteps(maxDoc: number): Generator<void, HeapInvertedField> {
    const { terms, order } = yield* sortTermsInSteps(this.termSlots);
    const count = this.postingCount;
    const postingStarts = new Uint32Array(terms.length + 1);
    const postingDocs = new Int32Array(count);
    const postingFreqs = new Int32Array(count);
    const positionStarts = new Uint32Array(count + 1);
    const positions = new Int32Array(this.sumTotalTermFreq);
    const state = this.slotState;
    let pairs = new Int32Array(256);
    let o = 0;
    let np = 0;
    for (let t = 0; t < terms.length; t++) {
      const at = order[t] * SLOT_STRIDE;
      const docFreq = state[at + DOC_FREQ];
      const firstPosition = np;
      postingStarts[t] = o;
      if (docFreq > 1) {
        const values = 2 * (docFreq - 1);
        if (values > pairs.length) pairs = new Int32Array(Math.max(values, 2 * pairs.length));
        this.streams.read(state[at + DOCS_START], values, pairs, 0);
        for (let k = 0; k < values; k += 2) {
          postingDocs[o] = pairs[k];
          postingFreqs[o] = pairs[k + 1];
          positionStarts[o] = np;
          np += pairs[k + 1];
          o++;
        }
      }
      postingDocs[o] = state[at + LAST_DOC];
      postingFreqs[o] = state[at + LAST_FREQ];
      positionStarts[o] = np;
      np += state[at + LAST_FREQ];
      o++;
      this.streams.read(state[at + POSITIONS_START], np - firstPosition, positions, firstPosition);
    }
    postingStarts[terms.length] = o;
    positionStarts[count] = np;
    return new HeapInvertedField({
      terms,
      postingStarts,
      postingDocs,
      postingFreqs,
      positionStarts,
      positions,
      norms: this.norms.toArray(maxDoc),
      docCount: this.docCount,
      sumTotalTermFreq: this.sumTotalTermFreq,
    });
  }

  private slotAdded(slot: number): void {
    const at = slot * SLOT_STRIDE;
    if (at === this.slotState.length) {
      const grown = new Int32Array(at * 2);
      grown.set(this.slotState);
      this.slotState = grown;
    }
    const state = this.slotState;
    state[at + LAST_DOC] = -1;
    state[at + LAST_FREQ] = 0;
    state[at + DOC_FREQ] = 0;
    state[at + DOCS_START] = -1;
    state[at + DOCS_UPTO] = -1;
    const positions = this.streams.newStream();
    state[at + POSITIONS_START] = positions;
    state[at + POSITIONS_UPTO] = positions;
  }
}
