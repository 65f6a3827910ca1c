/**
 * A document's value of a geo_shape field as the integers the segment keeps
 * (shape-codec.ts): one shape, an array of shapes (arrays within arrays
 * flatten, as Elasticsearch's document parser walks them) or null. A shape
 * that does not parse fails the document with Elasticsearch's
 * `failed to parse field [f] of type [geo_shape]` and the parser's reason,
 * unless the field has `ignore_malformed` (then that value is skipped).
 */
import { isEsError, mapperParsing } from '../../errors/es-errors.ts';
import type { FieldMapping } from '../mapping/types.ts';
import { encodeShape } from './shape-codec.ts';
import type { ShapeKind } from './shape-model.ts';
import { parseShape } from './shape-parser.ts';

/** How spatial4j and JTS name a shape in the points_only error. */
const FOUND: Readonly<Record<ShapeKind, string>> = {
  point: 'Point',
  multipoint: 'MultiPoint',
  linestring: 'LineString',
  multilinestring: 'MultiLineString',
  polygon: 'Polygon',
  multipolygon: 'MultiPolygon',
  envelope: 'class org.locationtech.spatial4j.shape.impl.RectangleImpl',
  circle: 'class org.locationtech.spatial4j.shape.impl.GeoCircle',
  geometrycollection: 'class org.elasticsearch.common.geo.XShapeCollection',
};

/** `ignored` is told when ignore_malformed drops a shape (the document's `_ignored` names the field). */
export function geoShapeValues(field: FieldMapping, raw: unknown, ignored?: () => void): number[] {
  const out: number[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (Array.isArray(v) && depth < 8) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    addOne(field, v, out, ignored);
  };
  walk(raw, 0);
  return out;
}

function addOne(field: FieldMapping, raw: unknown, out: number[], ignored: (() => void) | undefined): void {
  const o = field.geoShape!;
  try {
    const shape = parseShape(raw, { right: o.right, coerce: o.coerce, ignoreZValue: o.ignoreZValue });
    if (shape === null) return;
    if (o.pointsOnly && shape.kind !== 'point' && shape.kind !== 'multipoint') {
      throw mapperParsing(`[{${field.path}}] is configured for points only but a ${FOUND[shape.kind]} was found`);
    }
    if (shape.parts.points.length + shape.parts.lines.length + shape.parts.polygons.length === 0) return;
    encodeShape(shape.parts, out);
  } catch (e) {
    if (!isEsError(e)) throw e;
    if (o.ignoreMalformed) {
      ignored?.();
      return;
    }
    throw mapperParsing(`failed to parse field [${field.path}] of type [geo_shape]`, e);
  }
}
