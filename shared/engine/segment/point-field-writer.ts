/**
 * Collects one geo_point field of the docs of a segment being built: each
 * point quantised as Lucene's LatLonPoint does (two 32-bit integers), in the
 * order the document gave them, and the point index over them (point-tree.ts).
 */
import { encodeLatitude, encodeLongitude } from '../mapping/geo-point.ts';
import { Int32List } from './growable-arrays.ts';
import { buildPointTree } from './point-tree.ts';
import type { PointValues } from './types.ts';

export class PointFieldWriter {
  /** Doc of each point, in doc order. */
  private readonly pointDocs = new Int32List(1024);
  /** Encoded (lat, lon) of each point. */
  private readonly coords = new Int32List(2048);
  private doc = -1;
  private docStart = 0;

  reset(): void {
    this.pointDocs.clear();
    this.coords.clear();
    this.doc = -1;
    this.docStart = 0;
  }

  startDoc(doc: number): void {
    this.doc = doc;
    this.docStart = this.pointDocs.length;
  }

  /** `values` holds latitude, longitude pairs (the document parser's geo_point values). */
  addValues(values: readonly (string | number | boolean)[]): void {
    for (let i = 0; i + 1 < values.length; i += 2) {
      this.pointDocs.push(this.doc);
      this.coords.push(encodeLatitude(values[i] as number));
      this.coords.push(encodeLongitude(values[i + 1] as number));
    }
  }

  finishDoc(): boolean {
    return this.pointDocs.length > this.docStart;
  }

  build(maxDoc: number): PointValues {
    const starts = new Uint32Array(maxDoc + 1);
    const docs = this.pointDocs.array;
    for (let i = 0; i < this.pointDocs.length; i++) starts[docs[i]! + 1]!++;
    for (let d = 0; d < maxDoc; d++) starts[d + 1]! += starts[d]!;
    const values = this.coords.toArray();
    // The tree reorders its own copies; `values` stays in doc order for per-doc readers.
    const tree = buildPointTree(this.pointDocs.toArray(), values.slice());
    return { dims: 2, values, starts, tree };
  }
}
