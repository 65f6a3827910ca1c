/**
 * Inverts one analyzed text field of the docs of a segment being built:
 * postings with freqs and positions, BM25 norms and length statistics.
 */
import type { Analyzer, TokenSink } from '../analysis/types.ts';
import { ByteList, Int32List, Uint32List } from './growable-arrays.ts';
import { layoutPostings } from './postings-layout.ts';
import { intToByte4 } from './small-float.ts';
import { sortTerms } from './term-dictionary.ts';
import { TermHash } from './term-hash.ts';
import type { InvertedField } from './types.ts';

/**
 * Positions between two values of a multi-valued text field: Elasticsearch 6's
 * default `position_increment_gap` (TextFieldMapper.Defaults.POSITION_INCREMENT_GAP),
 * so phrases do not match across values.
 */
export const POSITION_INCREMENT_GAP = 100;

/**
 * Per-slot state, interleaved so one token touches one cache line:
 * the posting the term last got (to find it again within the current doc),
 * its doc freq and its total term freq.
 */
const SLOT_STRIDE = 3;
const LAST_POSTING = 0;
const DOC_FREQ = 1;
const TOTAL_FREQ = 2;

export class TextFieldWriter {
  private readonly termSlots = new TermHash();
  private slotState = new Int32Array(1024 * SLOT_STRIDE);

  private readonly postingSlots = new Int32List(1024);
  private readonly postingDocs = new Int32List(1024);
  private readonly postingFreqs = new Uint32List(1024);
  private readonly positions = new Int32List(4096);
  private readonly norms = new ByteList(1024);
  private docCount = 0;
  private sumTotalTermFreq = 0;

  // Tokens of the current doc, regrouped by posting when the doc is finished.
  private readonly tokenPostings = new Int32List(256);
  private readonly tokenPositions = new Int32List(256);
  private readonly cursors = new Int32List(256);
  private doc = -1;
  private docPostingStart = 0;
  /** Lucene's FieldInvertState.position: the last position used in this doc, -1 before the first value. */
  private position = -1;
  private valuesInDoc = 0;
  /** Tokens at the same position as the previous one (position increment 0), left out of the norm's length. */
  private overlaps = 0;

  private readonly sink: TokenSink = (term, position) => {
    const known = this.termSlots.size;
    const slot = this.termSlots.add(term);
    if (slot === known) this.slotAdded(slot);
    const state = this.slotState;
    const at = slot * SLOT_STRIDE;
    let posting = state[at + LAST_POSTING];
    if (posting < this.docPostingStart) {
      posting = this.postingDocs.length;
      state[at + LAST_POSTING] = posting;
      state[at + DOC_FREQ]++;
      this.postingSlots.push(slot);
      this.postingDocs.push(this.doc);
      this.postingFreqs.push(0);
    }
    state[at + TOTAL_FREQ]++;
    this.postingFreqs.array[posting]++;
    this.tokenPostings.push(posting);
    this.tokenPositions.push(position);
    if (position === this.position) this.overlaps++;
    this.position = position;
  };

  startDoc(doc: number): void {
    this.doc = doc;
    this.docPostingStart = this.postingDocs.length;
    this.tokenPostings.length = 0;
    this.tokenPositions.length = 0;
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
      analyzer.analyzeInto(typeof value === 'string' ? value : String(value), this.sink, base);
    }
  }

  /** Ends the current doc; true when it produced at least one token. */
  finishDoc(): boolean {
    const tokenCount = this.tokenPostings.length;
    if (tokenCount === 0) return false;

    // Counting sort of this doc's tokens by posting: each posting's positions become contiguous, ascending.
    const firstPosting = this.docPostingStart;
    const postingCount = this.postingDocs.length - firstPosting;
    this.cursors.reserve(postingCount);
    const cursor = this.cursors.array;
    const freqs = this.postingFreqs.array;
    let next = this.positions.length;
    for (let k = 0; k < postingCount; k++) {
      cursor[k] = next;
      next += freqs[firstPosting + k];
    }
    this.positions.reserve(next);
    const out = this.positions.array;
    const tokenPostings = this.tokenPostings.array;
    const tokenPositions = this.tokenPositions.array;
    for (let t = 0; t < tokenCount; t++) out[cursor[tokenPostings[t] - firstPosting]++] = tokenPositions[t];
    this.positions.length = next;

    this.norms.setAt(this.doc, intToByte4(tokenCount - this.overlaps));
    this.docCount++;
    this.sumTotalTermFreq += tokenCount;
    return true;
  }

  /** The field's postings; the writer must not be used afterwards. */
  build(maxDoc: number): InvertedField {
    const { terms, order, termIds } = sortTerms(this.termSlots);
    const slotCount = this.termSlots.size;
    const docFreqs = new Int32Array(slotCount);
    const totalFreqs = new Int32Array(slotCount);
    for (let s = 0; s < slotCount; s++) {
      docFreqs[s] = this.slotState[s * SLOT_STRIDE + DOC_FREQ];
      totalFreqs[s] = this.slotState[s * SLOT_STRIDE + TOTAL_FREQ];
    }
    this.slotState = new Int32Array(0);
    const layout = layoutPostings(
      {
        count: this.postingDocs.length,
        slots: this.postingSlots.array,
        docs: this.postingDocs.array,
        freqs: this.postingFreqs.array,
        positions: this.positions.array,
        slotDocFreqs: docFreqs,
        slotTotalFreqs: totalFreqs,
      },
      order,
    );
    return {
      terms,
      termIds,
      ...layout,
      norms: this.norms.toArray(maxDoc),
      docCount: this.docCount,
      sumTotalTermFreq: this.sumTotalTermFreq,
    };
  }

  private slotAdded(slot: number): void {
    const at = slot * SLOT_STRIDE;
    if (at === this.slotState.length) {
      const grown = new Int32Array(at * 2);
      grown.set(this.slotState);
      this.slotState = grown;
    }
    this.slotState[at + LAST_POSTING] = -1;
    this.slotState[at + DOC_FREQ] = 0;
    this.slotState[at + TOTAL_FREQ] = 0;
  }
}
