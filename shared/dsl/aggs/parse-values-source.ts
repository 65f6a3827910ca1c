/** The value-source parameters every field aggregation takes (field, missing, value_type, format), checked against the mapping. */
import { illegalArgument, parsingException } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../../engine/mapping/types.ts';
import type { ValueTypeName, ValuesSourceSpec } from '../../engine/aggs/spec.ts';
import { resolveSource } from '../../engine/aggs/value-source.ts';
import type { AggParams } from './agg-params.ts';
import { getOwn } from '../../json/own-keys.ts';

const VALUE_TYPES: Readonly<Record<string, ValueTypeName>> = {
  string: 'string',
  long: 'long',
  integer: 'long',
  short: 'long',
  byte: 'long',
  double: 'double',
  float: 'double',
  number: 'number',
  numeric: 'numeric',
  date: 'date',
  boolean: 'boolean',
  ip: 'ip',
};

export function readValuesSource(p: AggParams, opts: { withFormat: boolean }): ValuesSourceSpec {
  if (p.has('script')) {
    p.raw('script');
    throw illegalArgument(`scripts are not supported in aggregations [${p.name}]`);
  }
  const field = p.string('field');
  const missing = p.scalar('missing');
  const vt = p.string('value_type') ?? p.string('valueType');
  let valueType: ValueTypeName | null = null;
  if (vt !== null) {
    valueType = getOwn(VALUE_TYPES, vt) ?? null;
    if (valueType === null) throw illegalArgument(`Unknown value type [${vt}]`);
  }
  const format = opts.withFormat ? p.string('format') : null;
  if (field === null) {
    throw parsingException(`Required one of fields [field, script], but none were specified. `);
  }
  return { field, missing, valueType, format };
}

/** Fails early (400) on fields this mapping cannot aggregate (text fields, keyword in numeric aggregations). */
export function checkField(source: ValuesSourceSpec, mapping: MappingLookup, numericOnly: boolean): void {
  resolveSource(source, mapping, { numericOnly, timeZone: null, unmappedDefault: numericOnly ? 'numeric' : 'bytes' });
}
