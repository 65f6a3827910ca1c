/**
 * ShardDirectory's read order: rotation over started copies, `preference`
 * (custom strings, `_local`, `_primary`, `_replica`, `_only_nodes`,
 * `_prefer_nodes`, `_shards`), and copies that are not started yet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ShardDirectory, type ClusterView } from '../../../services/node/copies/shard-directory.ts';
import type { NodeInfo } from '../../../services/node/cluster/membership-protocol.ts';
import type { IndicesService } from '../../../services/node/indexer/indices-service.ts';
import type { IndexMetadata } from '../../../services/node/cluster/index-metadata.ts';
import { parsePreference } from '../../../services/node/copies/preference.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';

const node = (id: string): NodeInfo => ({ id, name: `node-${id}`, httpAddress: `127.0.0.1:920${id}`, transportAddress: `127.0.0.1:930${id}`, data: true });
const nodes = ['1', '2', '3'].map(node);
const meta = { uuid: 'u1', name: 'idx', settings: { numberOfShards: 1, numberOfReplicas: 2 } } as unknown as IndexMetadata;
const view: ClusterView = {
  members: nodes,
  master: nodes[0],
  table: { indices: { u1: [[{ nodeId: '2', primary: true }, { nodeId: '1', primary: false }, { nodeId: '3', primary: false }]] } },
};

/** Node 1 is "this" node; it holds its copy of shard 0 as STARTED. The other nodes' states come from `remote`. */
function directory(remote: Record<string, 'STARTED' | 'INITIALIZING'>): ShardDirectory {
  const localCopy = { docCount: 5 };
  const indices = { held: () => ({ copy: localCopy, state: 'STARTED' }) } as unknown as IndicesService;
  const d = new ShardDirectory({ self: () => nodes[0], indices, view: () => view });
  const statuses = (d as unknown as { remote: Map<string, Map<string, { state: string; docCount: number }>> }).remote;
  for (const [id, state] of Object.entries(remote)) statuses.set(id, new Map([['u1:0', { state, docCount: 5 }]]));
  return d;
}

test('reads rotate over every started copy, primary listed first', () => {
  const d = directory({ '2': 'STARTED', '3': 'STARTED' });
  assert.deepEqual(d.routes(meta, 0).map((r) => [r.node.id, r.primary]), [['2', true], ['1', false], ['3', false]]);
  const firsts = Array.from({ length: 6 }, () => d.readOrder(meta, 0, null)[0].node.id);
  assert.deepEqual(firsts, ['2', '1', '3', '2', '1', '3']);
  for (const order of [d.readOrder(meta, 0, null), d.readOrder(meta, 0, null)]) assert.equal(new Set(order.map((r) => r.node.id)).size, 3, 'every copy stays as a fallback');
});

test('each shard rotates on its own: a search over as many shards as copies still reaches every copy of each', () => {
  const two = { uuid: 'u2', name: 'two', settings: { numberOfShards: 2, numberOfReplicas: 1 } } as unknown as IndexMetadata;
  const pair = [{ nodeId: '1', primary: true }, { nodeId: '2', primary: false }];
  const twoView: ClusterView = { members: nodes, master: nodes[0], table: { indices: { u2: [pair, pair] } } };
  const indices = { held: () => ({ copy: { docCount: 1 }, state: 'STARTED' }) } as unknown as IndicesService;
  const d = new ShardDirectory({ self: () => nodes[0], indices, view: () => twoView });
  const statuses = (d as unknown as { remote: Map<string, Map<string, { state: string; docCount: number }>> }).remote;
  statuses.set('2', new Map([['u2:0', { state: 'STARTED', docCount: 1 }], ['u2:1', { state: 'STARTED', docCount: 1 }]]));
  const seen = [new Set<string>(), new Set<string>()];
  for (let search = 0; search < 4; search++) for (const shard of [0, 1]) seen[shard]!.add(d.readOrder(two, shard, null)[0]!.node.id);
  assert.deepEqual(seen.map((s) => [...s].sort()), [['1', '2'], ['1', '2']]);
});

test('a preference string always picks the same order; _local and _primary as Elasticsearch defines them', () => {
  const d = directory({ '2': 'STARTED', '3': 'STARTED' });
  const pinned = d.readOrder(meta, 0, 'user-42').map((r) => r.node.id);
  for (let i = 0; i < 5; i++) assert.deepEqual(d.readOrder(meta, 0, 'user-42').map((r) => r.node.id), pinned);
  assert.equal(d.readOrder(meta, 0, '_local')[0].node.id, '1');
  assert.deepEqual(d.readOrder(meta, 0, '_only_local').map((r) => r.node.id), ['1']);
  assert.equal(d.readOrder(meta, 0, '_primary')[0].node.id, '2');
});

test('copies that are initializing or not yet reported serve no reads and count as initializing', () => {
  const d = directory({ '2': 'INITIALIZING' });
  assert.deepEqual(d.started(meta, 0).map((r) => r.node.id), ['1']);
  assert.deepEqual(d.routes(meta, 0).map((r) => r.state), ['INITIALIZING', 'STARTED', 'INITIALIZING']);
  assert.equal(d.unassigned(meta, 0), 0);
});

test('_only_local reads no copy of another node, even when that is the only started copy', () => {
  const indices = { held: () => undefined } as unknown as IndicesService;
  const d = new ShardDirectory({ self: () => nodes[0], indices, view: () => view });
  const statuses = (d as unknown as { remote: Map<string, Map<string, { state: string; docCount: number }>> }).remote;
  statuses.set('2', new Map([['u1:0', { state: 'STARTED', docCount: 5 }]]));
  assert.deepEqual(d.started(meta, 0).map((r) => r.node.id), ['2']);
  assert.deepEqual(d.readOrder(meta, 0, '_only_local'), []);
  assert.deepEqual(d.readOrder(meta, 0, '_local').map((r) => r.node.id), ['2']);
});

test('_only_nodes and _prefer_nodes pick copies by node id, name or wildcard; _replica and _primary as Elasticsearch 6.8 defines them', () => {
  const d = directory({ '2': 'STARTED', '3': 'STARTED' });
  const ids = (pref: string) => d.readOrder(meta, 0, pref).map((r) => r.node.id);
  assert.deepEqual(ids('_only_nodes:node-3'), ['3']);
  assert.deepEqual(ids('_only_nodes:2'), ['2']);
  assert.deepEqual(ids('_only_nodes:node-1,node-3').sort(), ['1', '3']);
  assert.deepEqual(ids('_only_nodes:node-*').sort(), ['1', '2', '3']);
  assert.deepEqual(ids('_only_nodes:_local'), ['1']);
  assert.deepEqual(ids('_only_nodes:_master'), ['1']);
  for (let i = 0; i < 4; i++) {
    const order = ids('_prefer_nodes:node-3');
    assert.equal(order[0], '3');
    assert.equal(order.length, 3, 'the other copies stay as fallbacks');
  }
  assert.deepEqual(ids('_primary'), ['2']);
  assert.deepEqual(ids('_primary_first')[0], '2');
  assert.deepEqual(ids('_replica').sort(), ['1', '3']);
  assert.deepEqual(ids('_replica_first').slice(-1), ['2']);
});

test('a preference no copy meets, or one Elasticsearch does not know, is a 400 with its message', () => {
  const d = directory({ '2': 'STARTED', '3': 'STARTED' });
  const refused = (pref: string, reason: string) =>
    assert.throws(() => d.readOrder(meta, 0, pref), (err: unknown) => err instanceof EsError && err.type === 'illegal_argument_exception' && err.status === 400 && err.reason === reason);
  refused('_only_nodes:DOES-NOT-EXIST', 'no data nodes with criteria [DOES-NOT-EXIST] found for shard: [idx][0]');
  refused('_only_nodes:a,b', 'no data nodes with criterion [a,b] found for shard: [idx][0]');
  refused('_bogus', 'no Preference for [_bogus]');
  refused('_shards:x', 'Failed to parse shard id [x] in preference [_shards:x]');
});

test('_shards:N names the shards to search and may be followed by another preference', () => {
  assert.deepEqual([...parsePreference('_shards:2,3').shards!], [2, 3]);
  assert.deepEqual(parsePreference('_shards:1|_only_local'), { shards: new Set([1]), copies: { kind: 'only_local' } });
  assert.deepEqual(parsePreference('_shards:0|user-7').copies, { kind: 'custom', key: 'user-7' });
  assert.deepEqual(parsePreference(null), { shards: null, copies: { kind: 'rotate' } });
});
