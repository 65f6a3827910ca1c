/**
 * `cluster.routing.allocation.enable` in the allocation: each value limits
 * only copies that are not yet assigned; placed copies stay where they are.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allocate, enableDecision, unassignedCopies } from '../../../services/node/cluster/allocation.ts';
import type { AllocationTable, DataNode, IndexInfo } from '../../../services/node/cluster/allocation.ts';

const nodes: DataNode[] = ['a', 'b', 'c'].map((id) => ({ id, name: `node-${id}` }));
const index = (uuid: string, numberOfShards: number, numberOfReplicas: number, extra: Partial<IndexInfo> = {}): IndexInfo => ({
  uuid,
  numberOfShards,
  numberOfReplicas,
  ...extra,
});

/** [primaries, replicas] placed for an index. */
function counts(table: AllocationTable, uuid: string): [number, number] {
  let p = 0;
  let r = 0;
  for (const copies of table.indices[uuid] ?? []) for (const c of copies) {
    if (c.primary) p++;
    else r++;
  }
  return [p, r];
}

describe('allocation enable', () => {
  const old = index('old', 2, 1);
  // Every copy of `old` placed under `all`.
  const before = allocate(nodes, [old], null);

  test('all places every primary and replica of a new index', () => {
    const t = allocate(nodes, [old, index('new', 3, 1)], before, { enable: 'all' });
    assert.deepEqual(counts(t, 'new'), [3, 3]);
  });

  test('none places no copy of a new index, keeps every placed copy, and records its shards as never allocated', () => {
    const t = allocate(nodes, [old, index('new', 3, 1)], before, { enable: 'none' });
    assert.deepEqual(counts(t, 'new'), [0, 0]);
    assert.deepEqual(t.indices.old, before.indices.old);
    assert.deepEqual(t.fresh, { new: [0, 1, 2] });
    assert.equal(unassignedCopies(t, [old, index('new', 3, 1)]), 6);
  });

  test('none places no replica added to an existing index', () => {
    const t = allocate(nodes, [index('old', 2, 2)], before, { enable: 'none' });
    assert.deepEqual(counts(t, 'old'), [2, 2]);
  });

  test('primaries places the primaries of a new index but no replica', () => {
    const t = allocate(nodes, [old, index('new', 3, 1)], before, { enable: 'primaries' });
    assert.deepEqual(counts(t, 'new'), [3, 0]);
    assert.deepEqual(counts(allocate(nodes, [index('old', 2, 2)], before, { enable: 'primaries' }), 'old'), [2, 2]);
  });

  test('new_primaries places the primaries of a new index, no replica, and no primary of a shard that lost every copy', () => {
    const t = allocate(nodes, [old, index('new', 3, 1)], before, { enable: 'new_primaries' });
    assert.deepEqual(counts(t, 'new'), [3, 0]);
    // `lost` had its only copy on node d, which left: its primary is not new.
    const onD: AllocationTable = { indices: { ...before.indices, lost: [[{ nodeId: 'd', primary: true }]] } };
    const afterLeave = allocate(nodes, [old, index('lost', 1, 0)], onD, { enable: 'new_primaries' });
    assert.deepEqual(counts(afterLeave, 'lost'), [0, 0]);
    // Still not new at the next rebalance, although its shard has no copy now.
    assert.deepEqual(counts(allocate(nodes, [old, index('lost', 1, 0)], afterLeave, { enable: 'new_primaries' }), 'lost'), [0, 0]);
    // ... while `primaries` and `all` place it again.
    assert.deepEqual(counts(allocate(nodes, [old, index('lost', 1, 0)], afterLeave, { enable: 'primaries' }), 'lost'), [1, 0]);
  });

  test('a shard created under none stays new: new_primaries places it later', () => {
    const held = allocate(nodes, [old, index('new', 2, 1)], before, { enable: 'none' });
    const t = allocate(nodes, [old, index('new', 2, 1)], held, { enable: 'new_primaries' });
    assert.deepEqual(counts(t, 'new'), [2, 0]);
    assert.equal(t.fresh, undefined);
  });

  test('back to all places what none held back, replicas on other nodes than their primaries', () => {
    const held = allocate(nodes, [old, index('new', 3, 1)], before, { enable: 'none' });
    const t = allocate(nodes, [old, index('new', 3, 1)], held, { enable: 'all' });
    assert.deepEqual(counts(t, 'new'), [3, 3]);
    for (const copies of t.indices.new!) assert.notEqual(copies[0]!.nodeId, copies[1]!.nodeId);
  });

  test('a primary whose node left is promoted from its replica under none (no new copy is made)', () => {
    const primaryNode = before.indices.old![0]!.find((c) => c.primary)!.nodeId;
    const rest = nodes.filter((n) => n.id !== primaryNode);
    const t = allocate(rest, [old], before, { enable: 'none' });
    const shard0 = t.indices.old![0]!;
    assert.equal(shard0.length, 1);
    assert.equal(shard0[0]!.primary, true);
  });

  test('copies do not move for balance while allocation is restricted', () => {
    const two = nodes.slice(0, 2);
    const onTwo = allocate(two, [index('big', 6, 0)], null);
    const joined = allocate(nodes, [index('big', 6, 0)], onTwo, { enable: 'none' });
    assert.deepEqual(joined.indices, onTwo.indices);
    const balanced = allocate(nodes, [index('big', 6, 0)], onTwo, { enable: 'all' });
    assert.ok(balanced.indices.big!.some((copies) => copies[0]!.nodeId === 'c'));
  });

  test("an index's own index.routing.allocation.enable overrides the cluster's setting", () => {
    const t = allocate(nodes, [old, index('own', 2, 1, { allocationEnable: 'all' }), index('other', 2, 1)], before, { enable: 'none' });
    assert.deepEqual(counts(t, 'own'), [2, 2]);
    assert.deepEqual(counts(t, 'other'), [0, 0]);
  });

  test("the decider's explanations are Elasticsearch's", () => {
    assert.equal(enableDecision('all', false, false), null);
    assert.equal(enableDecision('none', true, true), 'no allocations are allowed due to cluster setting [cluster.routing.allocation.enable=none]');
    assert.equal(enableDecision('primaries', false, false), 'replica allocations are forbidden due to cluster setting [cluster.routing.allocation.enable=primaries]');
    assert.equal(enableDecision('primaries', true, false), null);
    assert.equal(enableDecision('new_primaries', true, true), null);
    assert.equal(
      enableDecision('new_primaries', true, false, true),
      'non-new primary allocations are forbidden due to index setting [index.routing.allocation.enable=new_primaries]',
    );
  });
});
