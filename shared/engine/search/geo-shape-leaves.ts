/**
 * The geo_shape query over a segment's stored shapes (the field's points
 * column, shape-codec.ts records): each record's bounding box is compared
 * with the query's as integers first, and only records that can match are
 * decoded and tested exactly (shape-relations.ts). A document matches
 * `intersects` when one of its shapes intersects the query shape,
 * `disjoint` when it has shapes and none does (Elasticsearch: exists and not
 * intersects), `within` when all of them lie within it, `contains` when one
 * of them holds it.
 */
import { decodeShape } from '../geo-shape/shape-codec.ts';
import { components, shapesIntersect, shapeWithin } from '../geo-shape/shape-relations.ts';
import type { Segment } from '../segment/types.ts';
import { wordsFor } from './doc-bits.ts';
import type { GeoShapeQuery } from './query.ts';

export function geoShapeBits(q: GeoShapeQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const pv = seg.points?.get(q.field);
  if (pv === undefined || !(pv.values instanceof Int32Array)) return bits;
  const v = pv.values;
  const starts = pv.starts;
  const qb = q.shape.box;
  const qMinX = qb[0]!;
  const qMaxX = qb[1]!;
  const qMinY = qb[2]!;
  const qMaxY = qb[3]!;
  const qc = q.shape.components;
  const relation = q.relation;
  for (let d = 0; d < seg.maxDoc; d++) {
    const end = starts[d + 1]!;
    let at = starts[d]!;
    if (at === end) continue;
    let match = relation === 'within' || relation === 'disjoint';
    for (; at < end; at += v[at]!) {
      const minX = v[at + 1]!;
      const maxX = v[at + 2]!;
      const minY = v[at + 3]!;
      const maxY = v[at + 4]!;
      const overlaps = minX <= qMaxX && qMinX <= maxX && minY <= qMaxY && qMinY <= maxY;
      if (relation === 'intersects' || relation === 'disjoint') {
        if (!overlaps) continue;
        if (shapesIntersect(components(decodeShape(v, at)), qc)) {
          match = relation === 'intersects';
          break;
        }
      } else if (relation === 'within') {
        const inside = minX >= qMinX && maxX <= qMaxX && minY >= qMinY && maxY <= qMaxY;
        if (!inside || !shapeWithin(components(decodeShape(v, at)), qc)) {
          match = false;
          break;
        }
      } else {
        const holds = minX <= qMinX && maxX >= qMaxX && minY <= qMinY && maxY >= qMaxY;
        if (holds && shapeWithin(qc, components(decodeShape(v, at)))) {
          match = true;
          break;
        }
      }
    }
    if (match) bits[d >>> 5]! |= 1 << (d & 31);
  }
  return bits;
}
