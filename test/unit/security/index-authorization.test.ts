import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterState } from '../../../services/node/cluster/cluster-state.ts';
import { authorizedExpression, NO_INDICES } from '../../../services/node/security/index-authorization.ts';
import { Permissions } from '../../../services/node/security/permissions.ts';
import { resolveIndices } from '../../../services/node/cluster/index-resolver.ts';
import { isEsError } from '../../../shared/errors/es-errors.ts';

function stateWith(...names: string[]): ClusterState {
  const state = new ClusterState();
  names.forEach((index, i) =>
    state.apply(
      { request_id: `r${i}`, timestamp: 0, event: { 'logsearch.CreateIndex': { index, uuid: `u${i}`, settings_json: '{}', mappings_json: '{}', aliases_json: index === 'pass-a' ? '{"pass-alias":{}}' : '{}' } } },
      i,
    ),
  );
  return state;
}

const reader = new Permissions([{ cluster: [], indices: [{ names: ['pass-*'], privileges: ['read'] }], runAs: [], metadata: {} }]);
const SEARCH = 'indices:data/read/search';

test('wildcards and _all expand to the indices and aliases the user may read', () => {
  const state = stateWith('pass-a', 'pass-b', 'secret');
  const names = (expr: string | undefined) => resolveIndices(state, authorizedExpression(state, reader, 'u', SEARCH, expr)).map((r) => r.meta.name).sort();
  assert.deepEqual(names('*'), ['pass-a', 'pass-b']);
  assert.deepEqual(names(undefined), ['pass-a', 'pass-b']);
  assert.deepEqual(names('_all'), ['pass-a', 'pass-b']);
  assert.deepEqual(names('*,-pass-b'), ['pass-a']);
  assert.deepEqual(names('s*'), []);
  assert.equal(authorizedExpression(state, reader, 'u', SEARCH, 'sec*'), NO_INDICES);
});

test('an explicit name outside the privileges is a 403 whether it exists or not', () => {
  const state = stateWith('pass-a', 'secret');
  for (const expr of ['secret', 'pass-a,secret', 'missing']) {
    assert.throws(
      () => authorizedExpression(state, reader, 'u', SEARCH, expr),
      (err: unknown) => isEsError(err) && err.status === 403 && err.message === 'action [indices:data/read/search] is unauthorized for user [u]',
    );
  }
  assert.equal(authorizedExpression(state, reader, 'u', SEARCH, 'pass-a'), 'pass-a');
});

test('a user with the action on every index keeps the expression as written', () => {
  const state = stateWith('pass-a', 'secret');
  const all = new Permissions([{ cluster: ['all'], indices: [{ names: ['*'], privileges: ['all'] }], runAs: [], metadata: {} }]);
  assert.equal(authorizedExpression(state, all, 'elastic', SEARCH, undefined), undefined);
  assert.equal(authorizedExpression(state, all, 'elastic', SEARCH, 'se*'), 'se*');
});

test('named privileges grant their actions and no others', () => {
  const p = (privileges: string[]) => new Permissions([{ cluster: [], indices: [{ names: ['x'], privileges }], runAs: [], metadata: {} }]);
  assert.equal(p(['read']).indexAllows('indices:data/read/search', 'x'), true);
  assert.equal(p(['read']).indexAllows('indices:data/write/index', 'x'), false);
  assert.equal(p(['delete']).indexAllows('indices:data/write/delete', 'x'), true);
  assert.equal(p(['delete']).indexAllows('indices:data/write/index', 'x'), false);
  assert.equal(p(['index']).indexAllows('indices:data/write/update', 'x'), true);
  assert.equal(p(['monitor']).indexAllows('indices:monitor/stats', 'x'), true);
  assert.equal(p(['manage']).indexAllows('indices:admin/delete', 'x'), true);
  assert.equal(p(['all']).indexAllows('indices:data/read/search', 'y'), false);
  const manage = new Permissions([{ cluster: ['manage'], indices: [], runAs: [], metadata: {} }]);
  assert.equal(manage.clusterAllows('cluster:monitor/health'), true);
  assert.equal(manage.clusterAllows('cluster:admin/xpack/security/user/put'), false);
});
