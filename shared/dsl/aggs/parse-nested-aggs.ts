/**
 * `nested` and `reverse_nested` aggregation bodies (NestedAggregationBuilder,
 * ReverseNestedAggregationBuilder): a `path`, required for `nested`.
 */
import { parsingException } from '../../errors/es-errors.ts';
import type { NestedSpec, ReverseNestedSpec } from '../../engine/aggs/spec.ts';
import { AggParams, type Json } from './agg-params.ts';
import type { Common } from './parse-bucket-aggs.ts';

/** `parentPath`: the path of the closest enclosing nested or reverse_nested aggregation (null: root docs). */
export function parseNested(c: Common, body: Json, parentPath: string | null): NestedSpec {
  const p = new AggParams('nested', c.name, body);
  const path = p.string('path');
  p.done();
  if (path === null) throw parsingException(`Missing [path] field for nested aggregation [${c.name}]`);
  return { type: 'nested', ...c, path, parentPath };
}

export function parseReverseNested(c: Common, body: Json): ReverseNestedSpec {
  const p = new AggParams('reverse_nested', c.name, body);
  const path = p.string('path');
  p.done();
  return { type: 'reverse_nested', ...c, path };
}
