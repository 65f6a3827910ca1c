/**
 * A query's shape made ready for testing against many documents: its
 * components with their bounding boxes (shape-relations.ts), its bounding
 * box as grid integers (compared with each stored record's box before any
 * record is decoded), and a key that names it for the filter cache.
 */
import { encodeShape, encodeX, encodeY } from './shape-codec.ts';
import { partsBox, type ParsedShape, type ShapeKind } from './shape-model.ts';
import { components, type Component } from './shape-relations.ts';

export interface PreparedShape {
  readonly kind: ShapeKind;
  readonly components: readonly Component[];
  /** Bounding box as grid integers: minX, maxX, minY, maxY. */
  readonly box: Int32Array;
  readonly key: string;
}

export function prepareShape(shape: ParsedShape): PreparedShape {
  const b = partsBox(shape.parts);
  const encoded: number[] = [];
  encodeShape(shape.parts, encoded);
  return {
    kind: shape.kind,
    components: components(shape.parts),
    box: Int32Array.of(encodeX(b.minX), encodeX(b.maxX), encodeY(b.minY), encodeY(b.maxY)),
    key: encoded.join(','),
  };
}
