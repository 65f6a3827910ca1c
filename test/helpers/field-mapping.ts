/** A FieldMapping for tests and benchmarks that build segments by hand: a plain indexed field, with overrides. */
import type { FieldMapping, FieldType } from '../../shared/engine/mapping/types.ts';

export function fieldMapping(path: string, type: FieldType, overrides: Partial<FieldMapping> = {}): FieldMapping {
  return {
    path,
    type,
    index: true,
    docValues: type !== 'text' && type !== 'object',
    analyzer: null,
    searchAnalyzer: null,
    ignoreAbove: null,
    dateFormat: null,
    scalingFactor: null,
    nullValue: null,
    boost: 1,
    parent: null,
    ...overrides,
  };
}
