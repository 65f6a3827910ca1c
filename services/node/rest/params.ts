/**
 * Reading Elasticsearch request parameters and bodies, with Elasticsearch's
 * errors for bad values.
 */
import type { FastifyRequest } from 'fastify';
import { EsError, illegalArgument } from '../../../shared/errors/es-errors.ts';
import { parseStrictJson } from '../../../shared/json/strict-json.ts';
import { contentTypeProblem } from './content-type.ts';
import { parseStrictJsonSliced } from './sliced-json.ts';
import { parseExpandWildcards } from '../cluster/index-resolver.ts';
import { parseTimeValue } from '../coordinator/request-time-value.ts';

export type Query = Record<string, string | undefined>;

export function query(req: FastifyRequest): Query {
  return req.query as Query;
}

export function params(req: FastifyRequest): Record<string, string> {
  return req.params as Record<string, string>;
}

/** Elasticsearch's boolean parsing of a parameter: absent → default, `""`/`true` → true, `false` → false. */
export function boolParam(q: Query, name: string, dflt: boolean): boolean {
  const v = q[name];
  if (v === undefined) return dflt;
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  throw illegalArgument(`Failed to parse value [${v}] as only [true] or [false] are allowed.`);
}

/** Elasticsearch's IndicesOptions from a request's query: `ignore_unavailable`, `allow_no_indices`, `expand_wildcards`. */
export function indicesOptions(q: Query) {
  return {
    ignoreUnavailable: boolParam(q, 'ignore_unavailable', false),
    allowNoIndices: boolParam(q, 'allow_no_indices', true),
    expandWildcards: parseExpandWildcards(q.expand_wildcards),
  };
}

export function intParam(q: Query, name: string): number | undefined {
  const v = q[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw illegalArgument(`Failed to parse int parameter [${name}] with value [${v}]`);
  return n;
}

export function longParam(q: Query, name: string): number | null {
  const v = q[name];
  if (v === undefined || v === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n) || !/^-?\d+$/.test(v)) throw illegalArgument(`Failed to parse long parameter [${name}] with value [${v}]`);
  return n;
}

export { parseTimeValue };

export function timeParam(q: Query, name: string, dfltMs: number): number {
  const v = q[name];
  return v === undefined || v === '' ? dfltMs : parseTimeValue(v, name);
}

export function listParam(q: Query, ...names: string[]): string[] | undefined {
  for (const n of names) {
    const v = q[n];
    if (v !== undefined) return v === '' ? [] : v.split(',');
  }
  return undefined;
}

/** The raw request body, or null when there is none. */
export function rawBody(req: FastifyRequest): Buffer | null {
  const b = req.body;
  if (b === undefined || b === null) return null;
  if (Buffer.isBuffer(b)) return b.length === 0 ? null : b;
  if (typeof b === 'string') return b.length === 0 ? null : Buffer.from(b);
  return null;
}

/** Jackson-like message for a JSON syntax error, as Elasticsearch reports it. */
export function jsonError(err: unknown): EsError {
  const msg = err instanceof Error ? err.message : String(err);
  return new EsError('json_parse_exception', msg, 400);
}

/**
 * Parses a JSON body (strictly: strict-json.ts); also accepts the `source`
 * query parameter with `source_content_type`, as Elasticsearch 6 does for GET bodies.
 */
export function jsonBody(req: FastifyRequest): unknown {
  const raw = bodyText(req);
  return raw === undefined ? undefined : parseStrictJson(raw);
}

/** jsonBodySliced parses bodies this large in slices: an `_mget` of 100,000 ids is 800 KB, 30 ms for parseStrictJson. */
const SLICED_BODY_BYTES = 128 * 1024;

/**
 * jsonBody for the APIs whose bodies grow with the request (`_mget` ids,
 * `_analyze` text): a large body is parsed in time slices (sliced-json.ts),
 * parseStrictJson held the HTTP thread 30-60 ms on a few megabytes.
 */
export async function jsonBodySliced(req: FastifyRequest): Promise<unknown> {
  const raw = bodyText(req);
  if (raw === undefined) return undefined;
  return typeof raw === 'string' ? parseStrictJson(raw) : parseStrictJsonSliced(raw, SLICED_BODY_BYTES);
}

/** The body (or the `source` parameter) to parse as JSON; undefined when there is none. */
function bodyText(req: FastifyRequest): Buffer | string | undefined {
  let raw: Buffer | string | null = rawBody(req);
  if (raw === null) {
    const q = query(req);
    const src = q.source;
    if (src === undefined) return undefined;
    if (q.source_content_type === undefined) throw illegalArgument('source and source_content_type parameters are required');
    if (contentTypeProblem(q.source_content_type, 1, 'json') !== null) {
      throw illegalArgument(`Unsupported source_content_type [${q.source_content_type}]`);
    }
    raw = src;
  }
  if (isBlank(raw)) return undefined;
  return raw;
}

function isBlank(raw: Buffer | string): boolean {
  if (typeof raw === 'string') return raw.trim() === '';
  for (const b of raw) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  return true;
}

/** A JSON body that must be an object (or absent). */
export function objectBody(req: FastifyRequest): Record<string, unknown> | undefined {
  const b = jsonBody(req);
  if (b === undefined) return undefined;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) {
    throw new EsError('parse_exception', 'request body or source parameter is required', 400);
  }
  return b as Record<string, unknown>;
}
