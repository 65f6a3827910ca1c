/**
 * `_msearch` (RestMultiSearchAction, MultiSearchRequest.readMultiLineFormat):
 * an NDJSON body of header/body line pairs, each pair one search. Every body
 * is parsed before any search runs, so a malformed one fails the whole
 * request with its 400, as in Elasticsearch; what fails once a search runs
 * (a missing index, a shard error) fails that item alone, with its own
 * `status`. Searches run at most `max_concurrent_searches` at a time and the
 * answers keep the request's order.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityOf, type RequestSecurity } from '../../security/request-security.ts';
import { actionRequestValidation, illegalArgument, internalError, isEsError, parsingException, renderError, type EsError } from '../../../../shared/errors/es-errors.ts';
import { parseSearchBody } from '../../../../shared/dsl/query/search-body.ts';
import type { NodeContext } from '../node-context.ts';
import type { SearchRequest } from '../../coordinator/search-coordinator.ts';
import { boolParam, intParam, params, query, rawBody, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { warningHeader } from './indices.ts';
import { searchTask } from './search.ts';
import { MAX_BUCKETS } from '../../cluster/cluster-settings.ts';
import { TimeSlice } from '../time-slice.ts';

const SEARCH_TYPES = new Set(['query_then_fetch', 'dfs_query_then_fetch']);

/**
 * MultiSearchRequest's default for `max_concurrent_searches`: one search per
 * data node's search thread pool, at least one (TransportMultiSearchAction).
 */
function defaultMaxConcurrent(dataNodes: number): number {
  return Math.max(1, dataNodes * 4);
}

function stringList(key: string, v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(',');
  throw illegalArgument(`[${key}] must be a string or an array of strings`);
}

function boolValue(key: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw illegalArgument(`Failed to parse value [${String(v)}] for [${key}]; only [true] or [false] are allowed.`);
}

interface Header {
  indices?: string;
  types?: string;
  searchType?: string;
  preference?: string;
  routing?: string;
  ignoreUnavailable?: boolean;
  allowNoIndices?: boolean;
}

/** The metadata line of one search (MultiSearchRequest.readMultiLineFormat's keys). */
function parseHeader(text: string, lineNo: number): Header {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw parsingException(`Failed to parse the metadata line [${lineNo}]: ${(err as Error).message}`, lineNo, 1);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw parsingException(`Failed to parse the metadata line [${lineNo}]: expected an object`, lineNo, 1);
  }
  const h: Header = {};
  for (const [key, value] of Object.entries(obj as Record<string, unknown>)) {
    switch (key) {
      case 'index':
      case 'indices':
        h.indices = stringList(key, value);
        break;
      case 'type':
      case 'types':
        h.types = stringList(key, value);
        break;
      case 'search_type':
      case 'searchType':
        h.searchType = value === null ? undefined : String(value);
        break;
      case 'preference':
        h.preference = value === null ? undefined : String(value);
        break;
      case 'routing':
        h.routing = value === null ? undefined : String(value);
        break;
      case 'ignore_unavailable':
      case 'ignoreUnavailable':
        h.ignoreUnavailable = boolValue(key, value);
        break;
      case 'allow_no_indices':
      case 'allowNoIndices':
        h.allowNoIndices = boolValue(key, value);
        break;
      case 'request_cache':
      case 'requestCache':
      case 'allow_partial_search_results':
        boolValue(key, value);
        break;
      case 'expand_wildcards':
      case 'expandWildcards':
      case 'ignore_throttled':
      case 'ignoreThrottled':
        // Accepted: wildcards expand to open indices, and no index is throttled here.
        break;
      default:
        throw illegalArgument(`key [${key}] is not supported in the metadata section`);
    }
  }
  return h;
}

/** Lines of the body as [start, end) byte offsets; a last line without a newline counts. */
function lines(body: Buffer): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  while (start < body.length) {
    let nl = body.indexOf(10, start);
    if (nl < 0) nl = body.length;
    let end = nl;
    if (end > start && body[end - 1] === 13) end--;
    out.push([start, end]);
    start = nl + 1;
  }
  return out;
}

/**
 * The searches of an `_msearch` body, with the URL's defaults (index, type,
 * search_type, routing), read in time slices (a body of thousands of searches
 * is not read in one stretch of the thread that serves HTTP).
 */
export async function parseMultiSearch(body: Buffer, defaults: { indices?: string; types?: string }, q: Query): Promise<SearchRequest[]> {
  const all = lines(body);
  const slice = new TimeSlice();
  const out: SearchRequest[] = [];
  const urlSearchType = q.search_type;
  const typedKeys = boolParam(q, 'typed_keys', false);
  let i = 0;
  // A body that starts with a newline: the first header is empty.
  while (i < all.length) {
    if (slice.due()) await slice.pause();
    const [hs, he] = all[i]!;
    if (i === 0 && he === hs) {
      i++;
      continue;
    }
    const headerText = body.toString('utf8', hs, he).trim();
    const header = headerText === '' ? {} : parseHeader(headerText, i + 1);
    i++;
    if (i >= all.length) break;
    const [bs, be] = all[i]!;
    const bodyBytes = body.subarray(bs, be);
    const bodyLine = i + 1;
    i++;
    const searchType = header.searchType ?? urlSearchType ?? 'query_then_fetch';
    if (!SEARCH_TYPES.has(searchType)) throw illegalArgument(`No search type for [${searchType}]`);
    const text = bodyBytes.toString('utf8').trim();
    let parsedBody: unknown = {};
    if (text !== '') {
      try {
        parsedBody = JSON.parse(text);
      } catch (err) {
        throw parsingException(`Failed to parse the search body at line [${bodyLine}]: ${(err as Error).message}`, bodyLine, 1);
      }
    }
    if (typeof parsedBody !== 'object' || parsedBody === null || Array.isArray(parsedBody)) {
      throw parsingException('Expected [START_OBJECT] but found [VALUE_STRING]', bodyLine, 1);
    }
    // Validated now (SearchSourceBuilder.fromXContent at the REST layer): a bad body fails the whole request.
    parseSearchBody(text === '' ? {} : bodyBytes, {});
    const routing = header.routing ?? q.routing;
    out.push({
      indices: header.indices ?? defaults.indices,
      types: (header.types ?? defaults.types)?.split(',') ?? null,
      body: parsedBody,
      rawBody: text === '' ? null : bodyBytes,
      url: {},
      scrollKeepAliveMs: 0,
      routing: routing ? routing.split(',') : null,
      preference: header.preference ?? null,
      searchType,
      ignoreUnavailable: header.ignoreUnavailable ?? false,
      allowNoIndices: header.allowNoIndices ?? true,
      typedKeys,
      timeoutMs: null,
      countOnly: false,
    });
  }
  if (out.length === 0) throw actionRequestValidation(['no requests added']);
  return out;
}

/** Runs `tasks` with at most `limit` in flight; results in the tasks' order. */
async function limited<T>(count: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
  return out;
}

export interface MultiSearchResult {
  readonly body: Record<string, unknown>;
  readonly warnings: string[];
}

/** Runs the searches and renders Elasticsearch's multi-search response. */
export async function runMultiSearch(
  node: NodeContext,
  requests: readonly SearchRequest[],
  maxConcurrent: number,
  /** With security on: each search's indices narrowed to the user's (a refused name fails that search alone with 403). */
  authorize: (r: SearchRequest) => SearchRequest = (r) => r,
): Promise<MultiSearchResult> {
  const start = Date.now();
  const warnings: string[] = [];
  const responses = await limited(requests.length, maxConcurrent, async (i) => {
    try {
      const request = { ...authorize(requests[i]!), maxBuckets: node.settings.get(MAX_BUCKETS) };
      const { body, warnings: w } = await node.tasks.run(searchTask(request), () => node.search.search(request));
      for (const m of w) if (!warnings.includes(m)) warnings.push(m);
      return { ...body, status: 200 };
    } catch (err) {
      const es: EsError = isEsError(err) ? err : internalError(err instanceof Error ? err.message : String(err));
      if (!isEsError(err)) node.logger.error({ err }, 'unexpected error in a multi-search item');
      const rendered = renderError(es);
      return { error: rendered.error, status: rendered.status };
    }
  });
  return { body: { took: Date.now() - start, responses }, warnings };
}

/** Each search of a multi-search is authorized as a search of its own (Elasticsearch authorizes the sub-requests). */
function searchAuthorizer(sec: RequestSecurity | null): ((r: SearchRequest) => SearchRequest) | undefined {
  if (sec === null) return undefined;
  return (r) => ({ ...r, indices: sec.indices('indices:data/read/search', r.indices) });
}

export function msearchHandlers(node: NodeContext) {
  const msearch = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const max = intParam(q, 'max_concurrent_searches');
    if (max !== undefined && max < 1) throw actionRequestValidation(['maxConcurrentSearches must be positive']);
    const body = rawBody(req);
    if (body === null) throw actionRequestValidation(['no requests added']);
    const requests = await parseMultiSearch(body, { indices: p.index, types: p.type }, q);
    const dataNodes = Math.max(1, node.directory.nodes().filter((n) => n.data).length);
    const { body: out, warnings } = await node.tasks.run(
      { action: 'indices:data/read/msearch', description: `requests[${requests.length}], indices[${[...new Set(requests.map((r) => r.indices ?? ''))].join(', ')}]`, cancellable: false },
      () => runMultiSearch(node, requests, max ?? defaultMaxConcurrent(dataNodes), searchAuthorizer(securityOf(req))),
    );
    if (warnings.length > 0) reply.header('Warning', warnings.map(warningHeader));
    return sendJson(reply, 200, out);
  };
  return { msearch };
}
