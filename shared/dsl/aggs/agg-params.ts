/**
 * Reading the parameters of one aggregation body with Elasticsearch's
 * errors: unknown parameters, wrong value types, out-of-range numbers.
 */
import { illegalArgument, parsingException, xContentParse, type EsError } from '../../errors/es-errors.ts';
import { jacksonTokenName } from '../../json/token-names.ts';

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Jackson's token names, for "expected a [START_OBJECT]" messages. */
export const tokenName: (v: unknown) => string = jacksonTokenName;

/** The parameters of one aggregation type, read with checks; `done()` refuses the ones nobody read. */
export class AggParams {
  private readonly seen = new Set<string>();

  constructor(
    readonly type: string,
    readonly name: string,
    private readonly body: Json,
  ) {}

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.body, key);
  }

  raw(key: string): unknown {
    this.seen.add(key);
    return this.has(key) ? this.body[key] : undefined;
  }

  /** Marks parameters Elasticsearch accepts but that change nothing here. */
  ignore(...keys: string[]): void {
    for (const k of keys) this.seen.add(k);
  }

  private typeError(key: string, value: unknown): EsError {
    return xContentParse(`[${this.type}] ${key} doesn't support values of type: ${tokenName(value)}`);
  }

  string(key: string): string | null {
    const v = this.raw(key);
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw this.typeError(key, v);
  }

  number(key: string): number | null {
    const v = this.raw(key);
    if (v === undefined || v === null) return null;
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
    if (typeof v === 'string') throw illegalArgument(`For input string: "${v}"`);
    throw this.typeError(key, v);
  }

  int(key: string): number | null {
    const n = this.number(key);
    return n === null ? null : Math.trunc(n);
  }

  boolean(key: string): boolean | null {
    const v = this.raw(key);
    if (v === undefined || v === null) return null;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    throw illegalArgument(`Failed to parse value [${String(v)}] as only [true] or [false] are allowed.`);
  }

  object(key: string): Json | null {
    const v = this.raw(key);
    if (v === undefined || v === null) return null;
    if (isObject(v)) return v;
    throw this.typeError(key, v);
  }

  /** `missing`: a scalar. */
  scalar(key: string): string | number | boolean | null {
    const v = this.raw(key);
    if (v === undefined || v === null) return null;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
    throw this.typeError(key, v);
  }

  done(): void {
    for (const k of Object.keys(this.body)) {
      if (!this.seen.has(k)) throw xContentParse(`[${this.type}] unknown field [${k}], parser not found`);
    }
  }
}

/** `[x] must be greater than 0. Found [y] in [name]` style range checks. */
export function mustBeAtLeast(param: string, min: number, value: number, aggName: string, strict: boolean): void {
  if (strict ? value <= min : value < min) {
    const rel = strict ? `greater than ${min}` : `greater than or equal to ${min}`;
    throw illegalArgument(`[${param}] must be ${rel}. Found [${value}] in [${aggName}]`);
  }
}

export function missingField(field: string, type: string, aggName: string): EsError {
  return parsingException(`Missing required field [${field}] for ${type} aggregation [${aggName}]`);
}
