/**
 * Issue 13, item 1 (routing first), checked on the route table itself: every
 * route is reachable by its own path, a segment starting with `_` never fills
 * an index, type or id, the most explicit route wins, and a known path with
 * another method is a 405 that lists the right methods.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../../services/node/rest/router.ts';
import { routeTable } from '../../services/node/rest/route-table.ts';
import type { Node } from '../../services/node/node.ts';

// Handlers are only built, never called here: a node is not needed.
const routes = routeTable({} as Node);
const router = new Router(routes);

const SAMPLE: Record<string, string> = { index: 'logs', type: 'doc', id: '42', name: 'alias1', scroll_id: 'abc' };

function concrete(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, (_m, p: string) => SAMPLE[p] ?? 'x');
}

function found(method: string, url: string): string {
  const m = router.match(method, url);
  assert.equal(m.kind, 'found', `${method} ${url}: ${JSON.stringify(m)}`);
  return (m as { route: { path: string } }).route.path;
}

describe('the route table', () => {
  test('every route is reached by its own path and method (none is shadowed)', () => {
    for (const r of routes) assert.equal(found(r.method, concrete(r.path)), r.path, `${r.method} ${r.path}`);
  });

  test('parameters are decoded and handed to the handler', () => {
    const m = router.match('GET', '/my%2Findex/_doc/a%20b');
    assert.equal(m.kind, 'found');
    assert.deepEqual((m as { params: unknown }).params, { index: 'my/index', type: '_doc', id: 'a b' });
  });

  test('_all is an index expression and _doc a type; other _ names are endpoints', () => {
    assert.equal(found('GET', '/_all/_search'), '/{index}/_search');
    assert.equal(found('DELETE', '/_all'), '/{index}');
    assert.equal(found('PUT', '/logs/_doc/1'), '/{index}/{type}/{id}');
    assert.equal(found('POST', '/fresh/_flush'), '/{index}/_flush');
    assert.equal(found('POST', '/fresh/_delete_by_query'), '/{index}/_delete_by_query');
    assert.equal(found('POST', '/fresh/_update_by_query'), '/{index}/_update_by_query');
    assert.equal(found('GET', '/x/_validate/query'), '/{index}/_validate/query');
    assert.equal(found('POST', '/fresh/_forcemerge'), '/{index}/_forcemerge');
    assert.equal(found('POST', '/fresh/_rollover'), '/{alias}/_rollover');
    assert.equal(found('POST', '/fresh/_cache/clear'), '/{index}/_cache/clear');
    for (const [method, url] of [
      ['PUT', '/_foo'],
      ['PUT', '/x/_doc/_bar'],
      ['GET', '/x/_type/1'],
    ]) {
      assert.equal(router.match(method, url).kind, 'no_handler', `${method} ${url}`);
    }
  });

  test('the most explicit route wins', () => {
    assert.equal(found('GET', '/_search/scroll'), '/_search/scroll');
    assert.equal(found('GET', '/logs/doc/_search'), '/{index}/{type}/_search');
    assert.equal(found('GET', '/logs/_mapping/doc'), '/{index}/_mapping/{type}');
    assert.equal(found('GET', '/_alias/a1'), '/_alias/{name}');
    assert.equal(found('HEAD', '/logs'), '/{index}');
  });

  test('HEAD is served by GET where no HEAD route is declared', () => {
    assert.equal(found('HEAD', '/logs/_search'), '/{index}/_search');
  });

  test('a known path with another method lists its methods; an unknown one has none', () => {
    assert.deepEqual(router.match('DELETE', '/'), { kind: 'method_not_allowed', allowed: ['GET', 'HEAD'] });
    assert.deepEqual(router.match('PUT', '/'), { kind: 'method_not_allowed', allowed: ['GET', 'HEAD'] });
    assert.deepEqual(router.match('POST', '/logs'), { kind: 'method_not_allowed', allowed: ['GET', 'HEAD', 'PUT', 'DELETE'] });
    assert.deepEqual(router.match('GET', '/logs/doc'), { kind: 'method_not_allowed', allowed: ['POST'] });
    assert.equal(router.match('GET', '/_nope/_nope/_nope').kind, 'no_handler');
  });

  test('a route declared twice is a programming error', () => {
    const h = () => undefined;
    const auth = { kind: 'cluster', action: 'cluster:monitor/main' } as const;
    assert.throws(() => new Router([{ method: 'GET', path: '/a', handler: h, auth }, { method: 'GET', path: '/a', handler: h, auth }]), /declared twice/);
  });
});
