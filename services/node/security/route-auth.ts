/**
 * What every REST route needs from the user, named by Elasticsearch's action
 * (the route table declares one per route; rest/route-table.ts).
 *
 * - `cluster`: a cluster privilege must grant the action.
 * - `indices`: an index privilege must grant the action on every index the
 *   route's `{index}` parameter names; wildcards and `_all` (also the index a
 *   path without `{index}` implies) expand only to the names the user may use.
 * - `anyIndex`: requests that name no index (scroll, `_analyze` without an
 *   index): some index privilege must grant the action.
 * - `items`: bulk, mget, msearch, mtermvectors, aliases, reindex: the
 *   handler authorizes each item or named index (request-security.ts), so
 *   one item's refusal is its own.
 * - `self`: any authenticated user (`_authenticate`; the handler checks the rest).
 */
export type RouteAuth =
  | { readonly kind: 'cluster'; readonly action: string }
  | { readonly kind: 'indices'; readonly action: string; readonly param: string }
  | { readonly kind: 'anyIndex'; readonly action: string }
  | { readonly kind: 'items'; readonly action: string }
  | { readonly kind: 'self'; readonly action: string };

export const clusterAction = (action: string): RouteAuth => ({ kind: 'cluster', action });
export const indexAction = (action: string, param = 'index'): RouteAuth => ({ kind: 'indices', action, param });
export const anyIndexAction = (action: string): RouteAuth => ({ kind: 'anyIndex', action });
export const itemsAction = (action: string): RouteAuth => ({ kind: 'items', action });
export const selfAction = (action: string): RouteAuth => ({ kind: 'self', action });
