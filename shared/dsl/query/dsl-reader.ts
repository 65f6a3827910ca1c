/**
 * What every DSL parser needs while walking a located JSON body: Elasticsearch's
 * token names, parse errors with line/col, and the scalar coercions of
 * Elasticsearch's XContentParser (floatValue, intValue, booleanValue, text).
 */
import { EsError, illegalArgument, parsingException } from '../../errors/es-errors.ts';
import type { Json, JsonMap, JsonSource, Location } from './json-source.ts';
import { isJsonMap } from './json-source.ts';
import { xContentTokenName } from '../../json/token-names.ts';

/** A query value as the client wrote it (string, number, boolean; bigints for long integers). */
export type DslValue = string | number | bigint | boolean;

/** The XContentParser token a JSON value starts with. */
export const tokenName: (v: Json | undefined) => string = xContentTokenName;

export class DslReader {
  readonly src: JsonSource;
  /** Queries open around the one being parsed (parse-query.ts limits it). */
  queryDepth = 0;

  constructor(src: JsonSource) {
    this.src = src;
  }

  /** A parsing_exception located at the value of `key` in `container`. */
  errorAt(container: object, key: string | number, reason: string): EsError {
    const l = this.src.at(container, key);
    return parsingException(reason, l.line, l.col);
  }

  /** A parsing_exception located at the field name `key`. */
  errorAtKey(container: object, key: string, reason: string): EsError {
    const l = this.src.keyAt(container, key);
    return parsingException(reason, l.line, l.col);
  }

  errorOf(value: object, reason: string): EsError {
    const l = this.src.of(value);
    return parsingException(reason, l.line, l.col);
  }

  loc(container: object, key: string | number): Location {
    return this.src.at(container, key);
  }

  /** parser.floatValue(): numbers, and strings holding one. */
  float(container: JsonMap, key: string): number {
    const v = container[key];
    if (typeof v === 'number') return Math.fround(v);
    if (typeof v === 'bigint') return Math.fround(Number(v));
    if (typeof v === 'string') {
      const n = Number(v.trim());
      if (v.trim() !== '' && !Number.isNaN(n)) return Math.fround(n);
      throw illegalArgument(`For input string: "${v}"`);
    }
    throw this.errorAt(container, key, `[${key}] failed to parse field [${key}]`);
  }

  /** parser.intValue(). */
  int(container: JsonMap, key: string): number {
    const v = container[key];
    if (typeof v === 'number') return Math.trunc(v);
    if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v.trim());
    if (typeof v === 'string') throw illegalArgument(`For input string: "${v}"`);
    throw this.errorAt(container, key, `[${key}] failed to parse field [${key}]`);
  }

  /** parser.booleanValue(): true/false, or the strings "true"/"false". */
  bool(container: JsonMap, key: string): boolean {
    const v = container[key];
    if (typeof v === 'boolean') return v;
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw illegalArgument(`Failed to parse value [${String(v)}] as only [true] or [false] are allowed.`);
  }

  /** parser.text() of a scalar. */
  text(container: JsonMap, key: string): string {
    const v = container[key];
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
    throw this.errorAt(container, key, `[${key}] failed to parse field [${key}]`);
  }

  /** parser.textOrNull(). */
  textOrNull(container: JsonMap, key: string): string | null {
    return container[key] === null ? null : this.text(container, key);
  }

  /** parser.objectText()/objectBytes(): the scalar as written. */
  scalar(container: JsonMap, key: string): DslValue | null {
    const v = container[key];
    if (v === null || v === undefined) return null;
    if (typeof v === 'object') throw this.errorAt(container, key, `[${key}] unexpected token [${tokenName(v)}]`);
    return v;
  }

  isMap(v: Json | undefined): v is JsonMap {
    return isJsonMap(v);
  }
}

export function isScalar(v: Json | undefined): v is string | number | bigint | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
}
