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
import { decodeLatitude, decodeLongitude } from '../mapping/geo-point.ts';
import { decodeShape } from '../geo-shape/shape-codec.ts';
import { components, POINT, shapesIntersect, shapeWithin, type Component } from '../geo-shape/shape-relations.ts';
import type { Segment } from '../segment/types.ts';
import { wordsFor } from './doc-bits.ts';
import type { GeoShapeQuery } from './query.ts';

/** Integers of a record holding one point: header, [1, x, y], no lines, no polygons. */
const POINT_RECORD = 10;

/**
 * The components of the record at `at`. Most shapes are single points: those
 * are read into one reused component, without decoding or allocating.
 */
function recordComponents(v: Int32Array, at: number, banded: boolean, point: Component[]): Component[] {
  if (v[at] === POINT_RECORD && v[at + 5] === 1) {
    const c = point[0]!;
    const x = decodeLongitude(v[at + 6]!);
    const y = decodeLatitude(v[at + 7]!);
    c.xy[0] = x;
    c.xy[1] = y;
    const box = c.box as { minX: number; maxX: number; minY: number; maxY: number };
    box.minX = box.maxX = x;
    box.minY = box.maxY = y;
    return point;
  }
  return components(decodeShape(v, at), banded);
}

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
  const point: Component[] = [{ kind: POINT, box: { minX: 0, maxX: 0, minY: 0, maxY: 0 }, xy: new Float64Array(2), rings: [], bands: null }];
  // a document's polygons are banded only when the query's vertices are tested against them (contains)
  const banded = relation === 'contains';
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
        if (shapesIntersect(recordComponents(v, at, banded, point), qc)) {
          match = relation === 'intersects';
          break;
        }
      } else if (relation === 'within') {
        const inside = minX >= qMinX && maxX <= qMaxX && minY >= qMinY && maxY <= qMaxY;
        if (!inside || !shapeWithin(recordComponents(v, at, banded, point), qc)) {
          match = false;
          break;
        }
      } else {
        const holds = minX <= qMinX && maxX >= qMaxX && minY <= qMinY && maxY >= qMaxY;
        if (holds && shapeWithin(qc, recordComponents(v, at, banded, point))) {
          match = true;
          break;
        }
      }
    }
    if (match) bits[d >>> 5]! |= 1 << (d & 31);
  }
  return bits;
}
