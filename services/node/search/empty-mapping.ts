/** The mapping of an index that has no mapping type yet: no field is mapped. */
import type { MappingLookup } from '../../../shared/engine/mapping/types.ts';

export const emptyMapping: MappingLookup = {
  field: () => undefined,
  matchingFields: () => [],
};
