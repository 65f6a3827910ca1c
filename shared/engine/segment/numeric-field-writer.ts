/**
 * Collects one numeric, date or boolean field of the docs of a segment being
 * built into NumericDocValues. Numbers get no postings: term and range
 * queries on them scan these doc values.
 */
import type { FieldMapping } from '../mapping/types.ts';
import { Float64List, Int32List } from './growable-arrays.ts';
import { numericDocValue } from './numeric-doc-value.ts';
import type { NumericDocValues } from './types.ts';

export class NumericFieldWriter {
  /** (doc, value) pairs in doc order; a doc's values are contiguous. */
  private readonly valueDocs = new Int32List(1024);
  private readonly values = new Float64List(1024);
  private doc = -1;
  private docValueStart = 0;
  private maxValuesPerDoc = 0;

  /** Forgets the field's docs, keeping every array for the next segment's. */
  reset(): void {
    this.valueDocs.clear();
    this.values.clear();
    this.doc = -1;
    this.docValueStart = 0;
    this.maxValuesPerDoc = 0;
  }

  startDoc(doc: number): void {
    this.doc = doc;
    this.docValueStart = this.values.length;
  }

  addValues(mapping: FieldMapping, values: readonly (string | number | boolean)[]): void {
    for (const value of values) {
      const n = numericDocValue(mapping, value);
      if (Number.isNaN(n)) continue;
      this.valueDocs.push(this.doc);
      this.values.push(n);
    }
  }

  /** Ends the current doc; true when it had at least one value. */
  finishDoc(): boolean {
    const count = this.values.length - this.docValueStart;
    if (count > this.maxValuesPerDoc) this.maxValuesPerDoc = count;
    return count > 0;
  }

  build(maxDoc: number): NumericDocValues {
    const count = this.values.length;
    const docs = this.valueDocs.array;
    const values = this.values.array;
    if (this.maxValuesPerDoc <= 1) {
      const single = new Float64Array(maxDoc).fill(NaN);
      for (let i = 0; i < count; i++) single[docs[i]] = values[i];
      return { kind: 'numeric', values: single, starts: null };
    }
    const starts = new Uint32Array(maxDoc + 1);
    for (let i = 0; i < count; i++) starts[docs[i] + 1]++;
    for (let d = 0; d < maxDoc; d++) starts[d + 1] += starts[d];
    const multi = this.values.toArray();
    for (let d = 0; d < maxDoc; d++) {
      // Duplicates stay, as in Lucene's SortedNumericDocValues (a sum counts [1, 1] twice).
      if (starts[d + 1] - starts[d] > 1) multi.subarray(starts[d], starts[d + 1]).sort();
    }
    return { kind: 'numeric', values: multi, starts };
  }
}
