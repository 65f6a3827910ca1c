/**
 * ShapeParser.parse: a geo_shape value is a GeoJSON object or a WKT string
 * (null: no shape); anything else is Elasticsearch's `shape must be an
 * object consisting of type and coordinates`.
 */
import { elasticsearchParseException } from '../../errors/es-errors.ts';
import { parseGeoJson, type ShapeOptions, type VertexBudget } from './geojson-parser.ts';
import { emptyParts, MAX_SHAPE_VERTICES, type ParsedShape } from './shape-model.ts';
import { parseWkt } from './wkt-parser.ts';

export { DEFAULT_SHAPE_OPTIONS, orientationIsRight, type ShapeOptions } from './geojson-parser.ts';

/** The shape of `raw`, or null when there is none to index (null, a WKT `EMPTY`). */
export function parseShape(raw: unknown, opts: ShapeOptions, maxVertices = MAX_SHAPE_VERTICES): ParsedShape | null {
  if (raw === null || raw === undefined) return null;
  const parts = emptyParts();
  const budget: VertexBudget = { count: 0, max: maxVertices };
  if (typeof raw === 'string') {
    const kind = parseWkt(raw, opts, parts, budget);
    return kind === null ? null : { kind, parts, vertices: budget.count };
  }
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    const kind = parseGeoJson(raw as Record<string, unknown>, opts, parts, budget, 0);
    return { kind, parts, vertices: budget.count };
  }
  throw elasticsearchParseException('shape must be an object consisting of type and coordinates');
}
