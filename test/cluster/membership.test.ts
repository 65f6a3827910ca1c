/**
 * Membership, master election and allocation through one Kafka consumer
 * group, against librdkafka's mock cluster (3 brokers; DESIGN.md section 6).
 * The mock rebalances a non-empty group once every member rejoined, at the
 * latest (session timeout - 1 s) after a join or leave, and drops a silent
 * member within a second of its session timeout: with 3 s sessions a change
 * settles in about 1 to 6 s. A member
 * that drops out of a rebalance joins again (see `rejoin` in membership.ts),
 * which adds one more drop.
 *
 * With MEMBERSHIP_CHILD set, this file is a member node in a child process
 * (for `kill -9`): it prints every view it gets as a JSON line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Membership } from '../../services/node/cluster/membership.ts';
import type { IndexInfo, MembershipView, NodeInfo } from '../../services/node/cluster/membership.ts';
import { ensureMockKafkaBuilt, startMockKafka } from '../helpers/mock-kafka.ts';
import type { MockKafka } from '../helpers/mock-kafka.ts';

const BROKERS = 3;
const SESSION_TIMEOUT_MS = 3000;
const HEARTBEAT_INTERVAL_MS = 300;
/** The mock elects a non-empty group's leader at most this long after a join or leave. */
const REBALANCE_DELAY_MS = SESSION_TIMEOUT_MS - 1000;
/** The mock checks sessions once a second. */
const SESSION_CHECK_MS = 1000;
/** A silent member (killed, or one that dropped out of a rebalance and joined again) is dropped and the group rebalanced. */
const DROP_MS = SESSION_TIMEOUT_MS + SESSION_CHECK_MS + REBALANCE_DELAY_MS;
/**
 * Any change settles within one drop, plus one more each time a member drops
 * out of a rebalance and joins again (its old member is dropped silently).
 */
const SETTLE_MS = 3 * DROP_MS;
/** A child node under tsx: compiling and loading takes a few seconds on a busy machine. */
const CHILD_START_MS = 10_000;

const nodeInfo = (id: string, data = true): NodeInfo => ({
  id,
  name: `node-${id}`,
  httpAddress: `127.0.0.1:92${id.length}0`,
  transportAddress: `127.0.0.1:93${id.length}0`,
  data,
});

function startMember(brokers: readonly string[], clusterName: string, node: NodeInfo, indices: () => IndexInfo[], kafka?: MockKafka): Promise<Membership> {
  return Membership.start({
    brokers,
    clusterName,
    node,
    indices,
    provisioner: kafka === undefined ? undefined : (topic, partitions) => kafka.createTopic(topic, partitions, BROKERS),
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
    logLevel: 'nothing',
  });
}

if (process.env.MEMBERSHIP_CHILD !== undefined) {
  const { brokers, cluster, id, indices } = JSON.parse(process.env.MEMBERSHIP_CHILD) as { brokers: string[]; cluster: string; id: string; indices: IndexInfo[] };
  const m = await startMember(brokers, cluster, nodeInfo(id), () => indices);
  const print = (v: MembershipView): void => void process.stdout.write(`${JSON.stringify(v)}\n`);
  print(m.view);
  m.on('change', print);
} else {
  describeSuite();
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Every member's view in one line, to say what a step that did not settle saw. */
const views = (ms: readonly Membership[]): string =>
  ms.map((m) => `${m.node.id}: epoch ${m.view.epoch}, master ${m.master?.id ?? '-'}, members ${ids(m.members).join(',')}`).join('; ');

async function eventually(what: string, check: () => boolean, ms = SETTLE_MS, seen?: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms: ${what}${seen === undefined ? '' : ` (${seen()})`}`);
    await sleep(50);
  }
}

const ids = (nodes: readonly NodeInfo[]): string[] => nodes.map((n) => n.id);
const copiesPerNode = (v: MembershipView): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const shards of Object.values(v.table.indices)) for (const copies of shards) for (const c of copies) counts[c.nodeId] = (counts[c.nodeId] ?? 0) + 1;
  return counts;
};
/** All memberships hold the same view (same epoch, hence same master, members and table). */
const agree = (ms: readonly Membership[]): boolean => ms.every((m) => JSON.stringify(m.view) === JSON.stringify(ms[0]!.view));

function describeSuite(): void {
  // CI must run this suite: there a helper that does not build is a failure, not a skip.
  const unavailable = process.env.CI ? null : ensureMockKafkaBuilt();
  let kafka: MockKafka;
  const running: Membership[] = [];
  const children: ChildProcess[] = [];

  async function member(cluster: string, id: string, indices: () => IndexInfo[], data = true): Promise<Membership> {
    const m = await startMember(kafka.bootstrap, cluster, nodeInfo(id, data), indices, kafka);
    running.push(m);
    return m;
  }

  describe('cluster membership on the mock Kafka cluster', { skip: unavailable ?? false, timeout: 120_000 }, () => {
    before(async () => {
      kafka = await startMockKafka(BROKERS);
    });

    after(async () => {
      for (const c of children) c.kill('SIGKILL');
      await Promise.all(running.splice(0).map((m) => m.stop()));
      await kafka?.stop();
    });

    test('three nodes agree on master and table; replica changes, leaves and joins reach every node', async () => {
      let replicas = 1;
      const indices = (): IndexInfo[] => [{ uuid: 'logs-uuid', name: 'logs', numberOfShards: 6, numberOfReplicas: replicas }];
      const a = await member('one', 'a', indices);
      assert.equal(a.master?.id, 'a', 'a lone node is its own master');
      assert.deepEqual(ids(a.members), ['a']);
      const b = await member('one', 'b', indices);
      const c = await member('one', 'c', indices);
      const coordinating = await member('one', 'q', indices, false);
      const all = [a, b, c, coordinating];
      await eventually('four members agree', () => agree(all) && a.members.length === 4, SETTLE_MS, () => views(all));
      assert.equal(b.master?.id, 'a', 'the oldest member stays master');
      assert.ok(a.isMaster && !b.isMaster);
      assert.deepEqual(copiesPerNode(c.view), { a: 4, b: 4, c: 4 }, '12 copies on the three data nodes, none on the coordinating-only node');

      replicas = 2;
      await a.requestRebalance();
      await eventually('every node sees 3 copies per shard', () => agree(all) && a.table.indices['logs-uuid']!.every((s) => s.length === 3), SETTLE_MS, () => views(all));
      assert.deepEqual(copiesPerNode(b.view), { a: 6, b: 6, c: 6 });
      replicas = 0;
      await a.requestRebalance();
      await eventually('every node sees 1 copy per shard', () => agree(all) && a.table.indices['logs-uuid']!.every((s) => s.length === 1), SETTLE_MS, () => views(all));
      replicas = 1;
      await a.requestRebalance();
      await eventually('2 copies per shard again', () => agree(all) && a.table.indices['logs-uuid']!.every((s) => s.length === 2), SETTLE_MS, () => views(all));

      await c.stop();
      const rest = [a, b, coordinating];
      await eventually('c is gone from every view', () => agree(rest) && !ids(a.members).includes('c'), SETTLE_MS, () => views(rest));
      assert.deepEqual(copiesPerNode(b.view), { a: 6, b: 6 });

      const d = await member('one', 'd', indices);
      const withD = [...rest, d];
      await eventually('d joined everywhere', () => agree(withD) && ids(a.members).includes('d'), SETTLE_MS, () => views(withD));
      assert.deepEqual(copiesPerNode(d.view), { a: 4, b: 4, d: 4 }, 'the joining node gets its share');

      await a.stop();
      const left = [b, coordinating, d];
      await eventually('a new master after the master left', () => agree(left) && b.master !== null && b.master.id !== 'a', SETTLE_MS, () => views(left));
      // The oldest remaining Kafka member: b, unless b dropped out of a rebalance and joined again.
      assert.ok(['b', 'q', 'd'].includes(b.master!.id), `a remaining node is master (${b.master!.id})`);
      assert.deepEqual(copiesPerNode(d.view), { b: 6, d: 6 });
    });

    test('a member killed with kill -9 is dropped after the session timeout and its copies move', async () => {
      const indices = [{ uuid: 'k-uuid', name: 'k', numberOfShards: 4, numberOfReplicas: 1 }];
      const x = await member('kill', 'x', () => indices);
      const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
        env: { ...process.env, MEMBERSHIP_CHILD: JSON.stringify({ brokers: kafka.bootstrap, cluster: 'kill', id: 'y', indices }) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      let childView: MembershipView | null = null;
      createInterface({ input: child.stdout! }).on('line', (line) => {
        childView = JSON.parse(line) as MembershipView;
      });
      // The child prints views whose content changed; a later rebalance with the same content bumps only the epoch.
      const childSees = (): string[] => (childView === null ? [] : ids((childView as MembershipView).members));
      await eventually('the child joined', () => ids(x.members).includes('y') && childSees().join() === 'x,y', CHILD_START_MS + SETTLE_MS);
      assert.deepEqual(copiesPerNode(x.view), { x: 4, y: 4 });
      const z = await member('kill', 'z', () => indices);
      await eventually('three members', () => agree([x, z]) && x.members.length === 3, SETTLE_MS, () => views([x, z]));

      child.kill('SIGKILL');
      const killedAt = Date.now();
      await eventually('y is dropped', () => agree([x, z]) && !ids(x.members).includes('y'), SETTLE_MS, () => views([x, z]));
      const took = Date.now() - killedAt;
      assert.ok(took >= SESSION_TIMEOUT_MS - 1000, `dropped by the session timeout, not before (${took} ms)`);
      assert.deepEqual(copiesPerNode(z.view), { x: 4, z: 4 });
    });

    test('two clusters on one Kafka do not see each other', async () => {
      const red = await member('red', 'r1', () => [{ uuid: 'r', numberOfShards: 2, numberOfReplicas: 0 }]);
      const blue = await member('blue', 'b1', () => [{ uuid: 'b', numberOfShards: 2, numberOfReplicas: 0 }]);
      await sleep(500);
      assert.deepEqual(ids(red.members), ['r1']);
      assert.deepEqual(ids(blue.members), ['b1']);
      assert.deepEqual(Object.keys(red.table.indices), ['r']);
      assert.deepEqual(Object.keys(blue.table.indices), ['b']);
      assert.equal(red.master?.id, 'r1');
      assert.equal(blue.master?.id, 'b1');
    });
  });
}
