/**
 * Finding the handler of a request in the route table (route-table.ts) the
 * way Elasticsearch's RestController does:
 *
 * - A path matches a route when every literal segment is equal and every
 *   `{param}` segment holds an acceptable value. A segment that starts with
 *   `_` names an endpoint, never an index, a type or an id: `_all` is the one
 *   index expression and `_doc` / `_all` the type names that start with it.
 *   So `POST /fresh/_delete_by_query` is not a document of type
 *   `_delete_by_query` (which would create the index `fresh`), and
 *   `GET /x/_validate/query` is not a get of document `query`.
 * - Of the routes that match with the request's method, the most explicit one
 *   wins: at the first segment where two patterns differ, a literal beats a
 *   parameter (PathTrie's order).
 * - No route with the method but some with others: 405 with `Allow`
 *   (RestController.handleUnsupportedHttpMethod). No route at all: 400
 *   `no handler found for uri [..] and method [..]`.
 * - HEAD is served by the GET handler where no HEAD route is declared (Node
 *   sends no body for HEAD), so the GET paths answer HEAD as well.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BodyKind } from './content-type.ts';
import type { RouteAuth } from '../security/route-auth.ts';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
export type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown;

export interface Route {
  readonly method: Method;
  /** `/{index}/_search`: literal segments and `{name}` parameters, as Elasticsearch's docs write them. */
  readonly path: string;
  readonly handler: Handler;
  /** What a user needs to call it when security is on: Elasticsearch's action and where its indices are. */
  readonly auth: RouteAuth;
  /** What the body may be: JSON (default), or also NDJSON (`_bulk`). */
  readonly body?: BodyKind;
}

export type RouteMatch =
  | { readonly kind: 'found'; readonly route: Route; readonly params: Record<string, string> }
  /** The path exists with other methods (405), in Elasticsearch's order of listing them. */
  | { readonly kind: 'method_not_allowed'; readonly allowed: readonly Method[] }
  | { readonly kind: 'no_handler' }
  /** A path segment is not valid percent-encoding. */
  | { readonly kind: 'bad_path'; readonly reason: string };

type Segment = { readonly literal: string } | { readonly param: string };

interface Compiled {
  readonly route: Route;
  readonly segments: readonly Segment[];
}

const METHOD_ORDER: readonly Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];

/** Whether `value` may stand in the `{name}` segment of a path. */
function acceptable(name: string, value: string): boolean {
  if (value.length === 0) return false;
  if (value.charCodeAt(0) !== 0x5f /* _ */) return true;
  switch (name) {
    case 'index':
      return value === '_all';
    case 'type':
      return value === '_doc' || value === '_all';
    case 'id':
      return false;
    default:
      // Alias, setting and scroll-id parameters take any value; the handler judges it.
      return true;
  }
}

function compile(path: string): Segment[] {
  return path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s }));
}

/** -1 when `a` is the more explicit pattern (a literal where `b` has a parameter, at the first difference). */
function explicitFirst(a: Compiled, b: Compiled): number {
  for (let i = 0; i < a.segments.length; i++) {
    const la = 'literal' in a.segments[i];
    const lb = 'literal' in b.segments[i];
    if (la !== lb) return la ? -1 : 1;
  }
  return 0;
}

/** The path of a request URL split into decoded segments; empty segments (`//`, a trailing `/`) are dropped. */
function pathSegments(url: string): string[] | { readonly error: string } {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const out: string[] = [];
  for (const raw of path.split('/')) {
    if (raw.length === 0) continue;
    try {
      out.push(raw.includes('%') ? decodeURIComponent(raw) : raw);
    } catch {
      return { error: `unable to decode path segment [${raw}]` };
    }
  }
  return out;
}

export class Router {
  /** Routes by number of segments, most explicit pattern first. */
  private readonly byLength = new Map<number, Compiled[]>();

  constructor(readonly routes: readonly Route[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) throw new Error(`route [${key}] is declared twice`);
      seen.add(key);
      const segments = compile(route.path);
      const list = this.byLength.get(segments.length) ?? [];
      list.push({ route, segments });
      this.byLength.set(segments.length, list);
    }
    for (const list of this.byLength.values()) list.sort(explicitFirst);
  }

  match(method: string, url: string): RouteMatch {
    const segs = pathSegments(url);
    if (!Array.isArray(segs)) return { kind: 'bad_path', reason: (segs as { error: string }).error };
    const candidates = this.byLength.get(segs.length) ?? [];
    const matching: Compiled[] = [];
    for (const c of candidates) {
      let ok = true;
      for (let i = 0; i < segs.length && ok; i++) {
        const s = c.segments[i];
        ok = 'literal' in s ? s.literal === segs[i] : acceptable(s.param, segs[i]);
      }
      if (ok) matching.push(c);
    }
    const pick = (m: string): Compiled | undefined => matching.find((c) => c.route.method === m);
    const found = pick(method) ?? (method === 'HEAD' ? pick('GET') : undefined);
    if (found) {
      const params: Record<string, string> = {};
      found.segments.forEach((s, i) => {
        if ('param' in s) params[s.param] = segs[i];
      });
      return { kind: 'found', route: found.route, params };
    }
    if (matching.length === 0) return { kind: 'no_handler' };
    const methods = new Set<Method>(matching.map((c) => c.route.method));
    if (methods.has('GET')) methods.add('HEAD');
    return { kind: 'method_not_allowed', allowed: METHOD_ORDER.filter((m) => methods.has(m)) };
  }
}
