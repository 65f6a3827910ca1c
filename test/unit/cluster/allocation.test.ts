/**
 * Shard allocation: hand-checked small tables, then invariants over many
 * seeded random inputs (counts, distinct nodes, balance, determinism,
 * stickiness across joins and leaves, replica changes).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allocate, copiesOnNode, EMPTY_TABLE, unassignedCopies } from '../../../services/node/cluster/allocation.ts';
import type { AllocationTable, DataNode, IndexInfo } from '../../../services/node/cluster/allocation.ts';
import { prng as rng } from '../../../shared/random/prng.ts';

const node = (id: string): DataNode => ({ id, name: `node-${id}` });
const nodesOf = (...ids: string[]): DataNode[] => ids.map(node);
const index = (uuid: string, numberOfShards: number, numberOfReplicas: number): IndexInfo => ({ uuid, numberOfShards, numberOfReplicas });

/** Copies per node id, counted over the whole table. */
function loads(table: AllocationTable, ids: readonly string[], primariesOnly = false): Map<string, number> {
  const m = new Map(ids.map((id) => [id, 0]));
  for (const shards of Object.values(table.indices)) {
    for (const copies of shards) {
      for (const c of copies) if (!primariesOnly || c.primary) m.set(c.nodeId, (m.get(c.nodeId) ?? 0) + 1);
    }
  }
  return m;
}

function spread(m: Map<string, number>): number {
  const v = [...m.values()];
  return v.length === 0 ? 0 : Math.max(...v) - Math.min(...v);
}

/** Every (uuid, shard, node) triple in the table. */
function placements(table: AllocationTable): Set<string> {
  const s = new Set<string>();
  for (const [uuid, shards] of Object.entries(table.indices)) {
    shards.forEach((copies, shard) => copies.forEach((c) => s.add(`${uuid}/${shard}/${c.nodeId}`)));
  }
  return s;
}

function sameTable(a: AllocationTable, b: AllocationTable): boolean {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** The invariants every table must meet, whatever the history. */
function checkTable(table: AllocationTable, nodes: readonly DataNode[], indices: readonly IndexInfo[]): void {
  const ids = new Set(nodes.map((n) => n.id));
  assert.deepEqual(Object.keys(table.indices).sort(), indices.map((i) => i.uuid).sort(), 'one entry per index');
  for (const i of indices) {
    const shards = table.indices[i.uuid]!;
    assert.equal(shards.length, i.numberOfShards, `${i.uuid}: one entry per shard`);
    shards.forEach((copies, s) => {
      const where = `${i.uuid}[${s}]`;
      assert.equal(copies.length, Math.min(i.numberOfReplicas + 1, ids.size), `${where}: copy count`);
      assert.equal(new Set(copies.map((c) => c.nodeId)).size, copies.length, `${where}: copies on distinct nodes`);
      for (const c of copies) assert.ok(ids.has(c.nodeId), `${where}: copy on a present node`);
      assert.equal(copies.filter((c) => c.primary).length, copies.length > 0 ? 1 : 0, `${where}: one primary`);
    });
  }
  assert.ok(spread(loads(table, [...ids])) <= 1, `copies per node differ by at most 1: ${JSON.stringify([...loads(table, [...ids])])}`);
  // Primaries: no relabelling within a shard would lower the spread by 2 or more.
  const prim = loads(table, [...ids], true);
  for (const shards of Object.values(table.indices)) {
    for (const copies of shards) {
      const p = copies.find((c) => c.primary);
      if (p === undefined) continue;
      for (const c of copies) assert.ok(prim.get(c.nodeId)! > prim.get(p.nodeId)! - 2, 'primaries spread');
    }
  }
}


function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

interface Scenario {
  nodes: DataNode[];
  indices: IndexInfo[];
}

function randomScenario(rand: () => number): Scenario {
  const nodeCount = 1 + Math.floor(rand() * 7);
  const nodes = Array.from({ length: nodeCount }, (_, i) => node(`n${Math.floor(rand() * 1000)}-${i}`));
  const indexCount = 1 + Math.floor(rand() * 5);
  const indices = Array.from({ length: indexCount }, (_, i) =>
    index(`u${i}-${Math.floor(rand() * 1e6).toString(36)}`, 1 + Math.floor(rand() * 8), Math.floor(rand() * 4)),
  );
  return { nodes, indices };
}

const SEEDS = Array.from({ length: 300 }, (_, i) => i + 1);

describe('shard allocation', () => {
  describe('hand-checked tables', () => {
    test('one node: primaries only, replicas unassigned', () => {
      const t = allocate(nodesOf('a'), [index('x', 2, 1)], null);
      assert.deepEqual(t.indices['x'], [[{ nodeId: 'a', primary: true }], [{ nodeId: 'a', primary: true }]]);
      assert.equal(unassignedCopies(t, [index('x', 2, 1)]), 2);
    });

    test('no data node: every copy unassigned', () => {
      const t = allocate([], [index('x', 3, 1)], null);
      assert.deepEqual(t.indices['x'], [[], [], []]);
      assert.equal(unassignedCopies(t, [index('x', 3, 1)]), 6);
    });

    test('three nodes, 3 shards, 1 replica: two copies and one primary per node', () => {
      const t = allocate(nodesOf('a', 'b', 'c'), [index('x', 3, 1)], null);
      // Primaries round-robin over the least-loaded nodes in id order, replicas fill the next least-loaded.
      assert.deepEqual(t.indices['x'], [
        [{ nodeId: 'a', primary: true }, { nodeId: 'b', primary: false }],
        [{ nodeId: 'b', primary: true }, { nodeId: 'c', primary: false }],
        [{ nodeId: 'c', primary: true }, { nodeId: 'a', primary: false }],
      ]);
      assert.deepEqual([...loads(t, ['a', 'b', 'c'])], [['a', 2], ['b', 2], ['c', 2]]);
      assert.deepEqual([...loads(t, ['a', 'b', 'c'], true)], [['a', 1], ['b', 1], ['c', 1]]);
    });

    test('a node that leaves: its primaries are promoted on the survivors, its copies rebuilt elsewhere, nothing else moves', () => {
      const before = allocate(nodesOf('a', 'b', 'c'), [index('x', 3, 1)], null);
      const after = allocate(nodesOf('a', 'c'), [index('x', 3, 1)], before);
      assert.deepEqual(after.indices['x'], [
        [{ nodeId: 'a', primary: true }, { nodeId: 'c', primary: false }],
        [{ nodeId: 'c', primary: true }, { nodeId: 'a', primary: false }],
        [{ nodeId: 'c', primary: true }, { nodeId: 'a', primary: false }],
      ]);
    });

    test('a node that joins gets copies until the counts are within one', () => {
      const before = allocate(nodesOf('a', 'b'), [index('x', 3, 1)], null);
      assert.deepEqual([...loads(before, ['a', 'b'])], [['a', 3], ['b', 3]]);
      const after = allocate(nodesOf('a', 'b', 'c'), [index('x', 3, 1)], before);
      assert.deepEqual([...loads(after, ['a', 'b', 'c'])], [['a', 2], ['b', 2], ['c', 2]]);
      const moved = [...placements(after)].filter((p) => !placements(before).has(p));
      assert.deepEqual(moved.map((p) => p.split('/')[2]), ['c', 'c'], 'only copies to the new node');
    });

    test('fewer replicas drop the newest-assigned copies; more replicas add copies and keep the old ones', () => {
      const nodes = nodesOf('a', 'b', 'c', 'd');
      const two = allocate(nodes, [index('x', 1, 2)], null);
      assert.deepEqual(two.indices['x'], [[{ nodeId: 'a', primary: true }, { nodeId: 'b', primary: false }, { nodeId: 'c', primary: false }]]);
      const one = allocate(nodes, [index('x', 1, 1)], two);
      assert.deepEqual(one.indices['x'], [[{ nodeId: 'a', primary: true }, { nodeId: 'b', primary: false }]]);
      const three = allocate(nodes, [index('x', 1, 3)], one);
      assert.deepEqual(three.indices['x'], [
        [{ nodeId: 'a', primary: true }, { nodeId: 'b', primary: false }, { nodeId: 'c', primary: false }, { nodeId: 'd', primary: false }],
      ]);
      const zero = allocate(nodes, [index('x', 1, 0)], three);
      assert.deepEqual(zero.indices['x'], [[{ nodeId: 'a', primary: true }]]);
    });

    test('a deleted index leaves the table; a new one is spread over the emptiest nodes', () => {
      const t1 = allocate(nodesOf('a', 'b'), [index('x', 2, 0), index('y', 1, 0)], null);
      const t2 = allocate(nodesOf('a', 'b'), [index('y', 1, 0), index('z', 1, 0)], t1);
      assert.deepEqual(Object.keys(t2.indices).sort(), ['y', 'z']);
      assert.deepEqual(t2.indices['y'], t1.indices['y']);
      assert.notEqual(t2.indices['z']![0]![0]!.nodeId, t2.indices['y']![0]![0]!.nodeId);
    });

    test('copiesOnNode lists what a node hosts', () => {
      const t = allocate(nodesOf('a', 'b', 'c'), [index('x', 3, 1)], null);
      assert.deepEqual(copiesOnNode(t, 'a'), [
        { uuid: 'x', shard: 0, primary: true },
        { uuid: 'x', shard: 2, primary: false },
      ]);
      assert.deepEqual(copiesOnNode(EMPTY_TABLE, 'a'), []);
    });

    test('a previous table with copies on unknown nodes, duplicates or two primaries is repaired', () => {
      const previous: AllocationTable = {
        indices: {
          x: [
            [
              { nodeId: 'a', primary: true },
              { nodeId: 'a', primary: false },
              { nodeId: 'gone', primary: false },
              { nodeId: 'b', primary: true },
            ],
          ],
        },
      };
      const t = allocate(nodesOf('a', 'b'), [index('x', 1, 1)], previous);
      assert.deepEqual(t.indices['x'], [[{ nodeId: 'a', primary: true }, { nodeId: 'b', primary: false }]]);
    });

    test('bad settings are refused with the index named', () => {
      assert.throws(() => allocate(nodesOf('a'), [{ uuid: 'x', name: 'logs', numberOfShards: 0, numberOfReplicas: 1 }], null), /\[logs\].*number_of_shards 0/);
      assert.throws(() => allocate(nodesOf('a'), [index('x', 1, -1)], null), /number_of_replicas -1/);
    });
  });

  describe('invariants over random inputs', () => {
    test('counts, distinct nodes, one primary, balance', () => {
      for (const seed of SEEDS) {
        const { nodes, indices } = randomScenario(rng(seed));
        checkTable(allocate(nodes, indices, null), nodes, indices);
      }
    });

    test('deterministic: the same input in any order gives the same table', () => {
      for (const seed of SEEDS) {
        const rand = rng(seed);
        const { nodes, indices } = randomScenario(rand);
        const base = allocate(nodes, indices, null);
        const grown = allocate([...nodes, node('late')], indices, base);
        assert.deepEqual(allocate(shuffled(nodes, rand), shuffled(indices, rand), null), base, `seed ${seed}`);
        assert.deepEqual(allocate(shuffled([...nodes, node('late')], rand), shuffled(indices, rand), base), grown, `seed ${seed}`);
      }
    });

    test('a node that leaves: without rebalancing nothing on the other nodes moves; with it, only what balance needs', () => {
      let rebalanced = 0;
      for (const seed of SEEDS) {
        const rand = rng(seed);
        const { nodes, indices } = randomScenario(rand);
        if (nodes.length < 2) continue;
        const before = allocate(nodes, indices, null);
        const leaving = nodes[Math.floor(rand() * nodes.length)]!.id;
        const rest = nodes.filter((n) => n.id !== leaving);
        const sticky = allocate(rest, indices, before, { rebalance: false });
        const kept = placements(sticky);
        for (const p of placements(before)) {
          if (!p.endsWith(`/${leaving}`)) assert.ok(kept.has(p), `seed ${seed}: ${p} moved after ${leaving} left`);
        }
        const after = allocate(rest, indices, before);
        checkTable(after, rest, indices);
        if (!sameTable(after, sticky)) {
          rebalanced++;
          assert.ok(spread(loads(sticky, rest.map((n) => n.id))) >= 2, `seed ${seed}: moved copies although the sticky table was balanced`);
        }
      }
      assert.ok(rebalanced < SEEDS.length / 10, `a leave rarely needs a move (${rebalanced} of ${SEEDS.length})`);
    });

    test('a node that joins: copies move only onto it, and it gets its share', () => {
      for (const seed of SEEDS) {
        const rand = rng(seed);
        const { nodes, indices } = randomScenario(rand);
        const before = allocate(nodes, indices, null);
        const all = [...nodes, node('joiner')];
        const after = allocate(all, indices, before);
        checkTable(after, all, indices);
        const old = placements(before);
        for (const p of placements(after)) {
          if (!old.has(p)) assert.ok(p.endsWith('/joiner'), `seed ${seed}: ${p} is new but not on the joiner`);
        }
        const total = [...loads(after, all.map((n) => n.id)).values()].reduce((a, b) => a + b, 0);
        assert.ok(loads(after, ['joiner']).get('joiner')! >= Math.floor(total / all.length), `seed ${seed}: joiner's share`);
      }
    });

    test('a sequence of joins, leaves and replica changes keeps every invariant', () => {
      for (const seed of SEEDS.slice(0, 100)) {
        const rand = rng(seed);
        let { nodes, indices } = randomScenario(rand);
        let table: AllocationTable | null = null;
        for (let step = 0; step < 12; step++) {
          const r = rand();
          if (r < 0.3 && nodes.length > 1) nodes = nodes.filter((_, i) => i !== Math.floor(rand() * nodes.length));
          else if (r < 0.6) nodes = [...nodes, node(`s${seed}-${step}`)];
          else {
            const k = Math.floor(rand() * indices.length);
            indices = indices.map((ix, i) => (i === k ? { ...ix, numberOfReplicas: Math.floor(rand() * 4) } : ix));
          }
          table = allocate(nodes, indices, table);
          checkTable(table, nodes, indices);
        }
      }
    });

    test('an unchanged input gives back the same table (a rebalance with nothing new moves nothing)', () => {
      for (const seed of SEEDS) {
        const { nodes, indices } = randomScenario(rng(seed));
        const t = allocate(nodes, indices, null);
        assert.deepEqual(allocate(nodes, indices, t), t, `seed ${seed}`);
      }
    });

    test('fewer replicas drop replicas only: every remaining copy was there before, and primaries stay', () => {
      for (const seed of SEEDS) {
        const rand = rng(seed);
        const { nodes, indices } = randomScenario(rand);
        const before = allocate(nodes, indices, null);
        const fewer = indices.map((ix) => ({ ...ix, numberOfReplicas: Math.max(0, ix.numberOfReplicas - 1 - Math.floor(rand() * 2)) }));
        const sticky = allocate(nodes, fewer, before, { rebalance: false });
        for (const ix of fewer) {
          sticky.indices[ix.uuid]!.forEach((copies, s) => {
            const old = before.indices[ix.uuid]![s]!;
            // The survivors: the primary and the oldest replicas, in their old order.
            const replicas = old.filter((c) => !c.primary).slice(0, copies.length - 1);
            const expected = old.filter((c) => c.primary || replicas.includes(c)).map((c) => c.nodeId);
            assert.deepEqual(copies.map((c) => c.nodeId), expected, `seed ${seed}: ${ix.uuid}[${s}]`);
            assert.equal(copies.find((c) => c.primary)?.nodeId, old.find((c) => c.primary)?.nodeId, `seed ${seed}: ${ix.uuid}[${s}] primary`);
          });
        }
        const after = allocate(nodes, fewer, before);
        checkTable(after, nodes, fewer);
        if (!sameTable(after, sticky)) assert.ok(spread(loads(sticky, nodes.map((n) => n.id))) >= 2, `seed ${seed}: needless move`);
      }
    });
  });
});
