/**
 * Collects one range field of the docs of a segment being built: each range
 * as its two ends (range-values.ts), `dims` doubles, in document order.
 */
import { Float64List, Int32List } from './growable-arrays.ts';
import type { PointValues } from './types.ts';

export class RangeFieldWriter {
  private readonly rangeDocs = new Int32List(1024);
  private readonly ends = new Float64List(2048);
  private doc = -1;
  private docStart = 0;

  /** Numbers per range: two ends of 1 (numbers, dates) or 4 (addresses) words. */
  constructor(private readonly dims: number) {}

  reset(): void {
    this.rangeDocs.clear();
    this.ends.clear();
    this.doc = -1;
    this.docStart = 0;
  }

  startDoc(doc: number): void {
    this.doc = doc;
    this.docStart = this.rangeDocs.length;
  }

  addValues(values: readonly (string | number | boolean)[]): void {
    for (let i = 0; i + this.dims <= values.length; i += this.dims) {
      this.rangeDocs.push(this.doc);
      for (let k = 0; k < this.dims; k++) this.ends.push(values[i + k] as number);
    }
  }

  finishDoc(): boolean {
    return this.rangeDocs.length > this.docStart;
  }

  build(maxDoc: number): PointValues {
    const starts = new Uint32Array(maxDoc + 1);
    const docs = this.rangeDocs.array;
    for (let i = 0; i < this.rangeDocs.length; i++) starts[docs[i]! + 1]!++;
    for (let d = 0; d < maxDoc; d++) starts[d + 1]! += starts[d]!;
    return { dims: this.dims, values: this.ends.toArray(), starts };
  }
}
