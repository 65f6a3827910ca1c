/**
 * Collects one geo_shape field of the docs of a segment being built: each
 * document's shape records (geo-shape/shape-codec.ts) as one run of 32-bit
 * integers, a points column of one dimension, so commits and merges write it
 * and mapped segments read it like any point values.
 */
import { Int32List } from './growable-arrays.ts';
import type { PointValues } from './types.ts';

export class ShapeFieldWriter {
  private readonly valueDocs = new Int32List(1024);
  private readonly words = new Int32List(4096);
  private doc = -1;
  private docStart = 0;

  reset(): void {
    this.valueDocs.clear();
    this.words.clear();
    this.doc = -1;
    this.docStart = 0;
  }

  startDoc(doc: number): void {
    this.doc = doc;
    this.docStart = this.valueDocs.length;
  }

  /** `values` holds the document's encoded shape records (integers). */
  addValues(values: readonly (string | number | boolean)[]): void {
    for (let i = 0; i < values.length; i++) {
      this.valueDocs.push(this.doc);
      this.words.push(values[i] as number);
    }
  }

  finishDoc(): boolean {
    return this.valueDocs.length > this.docStart;
  }

  build(maxDoc: number): PointValues {
    const starts = new Uint32Array(maxDoc + 1);
    const docs = this.valueDocs.array;
    for (let i = 0; i < this.valueDocs.length; i++) starts[docs[i]! + 1]!++;
    for (let d = 0; d < maxDoc; d++) starts[d + 1]! += starts[d]!;
    return { dims: 1, values: this.words.toArray(), starts };
  }
}
