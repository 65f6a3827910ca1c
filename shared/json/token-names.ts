/**
 * The parser token a JSON value starts with, as Elasticsearch's errors name
 * it. Two vocabularies reach users: Elasticsearch's own XContentParser.Token
 * (one VALUE_NUMBER, one VALUE_BOOLEAN), printed by its object parsers, and
 * Jackson's JsonToken (VALUE_NUMBER_INT or _FLOAT, VALUE_TRUE or _FALSE),
 * printed where Jackson's message comes through (aggregation parsers,
 * binary values).
 */

/** XContentParser.Token of a value; END_OBJECT where the object ended without one. */
export function xContentTokenName(v: unknown): string {
  if (v === undefined) return 'END_OBJECT';
  if (v === null) return 'VALUE_NULL';
  if (Array.isArray(v)) return 'START_ARRAY';
  switch (typeof v) {
    case 'object':
      return 'START_OBJECT';
    case 'string':
      return 'VALUE_STRING';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    case 'number':
    case 'bigint':
      return 'VALUE_NUMBER';
    default:
      return 'VALUE_EMBEDDED_OBJECT';
  }
}

/** Jackson's JsonToken of a value. */
export function jacksonTokenName(v: unknown): string {
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? 'VALUE_NUMBER_INT' : 'VALUE_NUMBER_FLOAT';
    case 'bigint':
      return 'VALUE_NUMBER_INT';
    case 'boolean':
      return v ? 'VALUE_TRUE' : 'VALUE_FALSE';
    default:
      return xContentTokenName(v);
  }
}
