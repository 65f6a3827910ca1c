/**
 * Test fixture: a cluster of node processes on librdkafka's mock Kafka
 * (DESIGN.md section 6). The mock refuses CreateTopics, so this process
 * serves the nodes' `kafka.topic_provisioner` URL and creates their topics
 * through the mock's command channel.
 *
 *   const c = await startCluster({ nodes: 3 });
 *   await c.waitForHealth('green');
 *   c.kill(1);  await c.restart(1);
 *   await c.stop();
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startMockKafka, type MockKafka } from './mock-kafka.ts';
import { http, spawnServer, type ChildServer } from './server.ts';

export interface ClusterOptions {
  readonly nodes: number;
  readonly brokers?: number;
  readonly clusterName?: string;
  /** Group session timeout of every node (how long until a killed node's copies move). */
  readonly sessionTimeout?: string;
  /** An existing mock Kafka to share (two clusters on one Kafka). */
  readonly kafka?: MockKafka;
  /** More settings for node i (e.g. `['--node.data', 'false']` for a coordinating-only node). */
  readonly nodeFlags?: (i: number) => readonly string[];
}

export interface TestCluster {
  readonly kafka: MockKafka;
  readonly clusterName: string;
  /** Running nodes by index; null while a node is down. */
  readonly nodes: (ChildServer | null)[];
  url(i: number): string;
  /** The first running node's URL. */
  anyUrl(): string;
  /** `kill -9`: no goodbye to the group, as a crash. */
  kill(i: number): Promise<void>;
  /** Starts node `i` again on its data directory. */
  restart(i: number): Promise<void>;
  /** SIGSTOP: the node keeps its connections but answers nothing, as in a long pause. */
  pause(i: number): void;
  /** SIGCONT after `pause`. */
  resume(i: number): void;
  /**
   * Waits until health reaches `status` (and `nodes`, if given) as one node
   * sees it: `via`, any running node by default, or with `via: 'every'` as
   * each running node sees it (a node that only just joined may still lack
   * its first view of the group when another already counts it).
   */
  waitForHealth(
    status: 'green' | 'yellow' | 'red',
    opts?: { nodes?: number; activeShards?: number; timeoutMs?: number; via?: number | 'every' },
  ): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 120_000;

/** Serves `kafka.topic_provisioner`: creates the topics the nodes ask for through the mock's command channel. */
export async function provisionerServer(kafka: MockKafka, replication: number): Promise<{ server: Server; url: string }> {
  const created = new Map<string, Promise<void>>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const { topic, partitions } = JSON.parse(body) as { topic: string; partitions: number };
      // Several nodes ask for the same topic at once: create it once.
      let p = created.get(topic);
      if (!p) {
        p = kafka.createTopic(topic, partitions, replication);
        created.set(topic, p);
      }
      p.then(
        () => res.writeHead(200).end('{}'),
        (err: Error) => {
          created.delete(topic);
          res.writeHead(500).end(err.message);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/topics` };
}

export async function startCluster(opts: ClusterOptions): Promise<TestCluster> {
  const brokers = opts.brokers ?? 3;
  const kafka = opts.kafka ?? (await startMockKafka(brokers));
  const clusterName = opts.clusterName ?? `test-${process.pid}-${Date.now().toString(36)}`;
  const { server: prov, url: provUrl } = await provisionerServer(kafka, Math.min(3, kafka.bootstrap.length));
  const root = await mkdtemp(join(tmpdir(), `${clusterName}-`));
  const flags = (i: number) => [
    '--log',
    'kafka',
    '--brokers',
    kafka.bootstrap.join(','),
    '--cluster.name',
    clusterName,
    '--node.name',
    `node-${i}`,
    '--transport.port',
    '0',
    '--kafka.topic_provisioner',
    provUrl,
    '--cluster.session_timeout',
    opts.sessionTimeout ?? '3s',
    ...(opts.nodeFlags?.(i) ?? []),
  ];
  const dirs = Array.from({ length: opts.nodes }, (_, i) => join(root, `node-${i}`));
  const nodes: (ChildServer | null)[] = await Promise.all(dirs.map((d, i) => spawnServer(d, flags(i), START_TIMEOUT_MS)));

  const cluster: TestCluster = {
    kafka,
    clusterName,
    nodes,
    url(i) {
      const n = nodes[i];
      if (!n) throw new Error(`node ${i} is down`);
      return n.url;
    },
    anyUrl() {
      const n = nodes.find((x) => x !== null);
      if (!n) throw new Error('every node is down');
      return n.url;
    },
    async kill(i) {
      const n = nodes[i];
      if (!n) return;
      nodes[i] = null;
      n.child.kill('SIGKILL');
      await n.exited;
    },
    pause(i) {
      nodes[i]?.child.kill('SIGSTOP');
    },
    resume(i) {
      nodes[i]?.child.kill('SIGCONT');
    },
    async restart(i) {
      if (nodes[i]) throw new Error(`node ${i} is running`);
      nodes[i] = await spawnServer(dirs[i], flags(i), START_TIMEOUT_MS);
    },
    async waitForHealth(status, o = {}) {
      if (o.via === 'every') {
        let last: Record<string, unknown> = {};
        for (let i = 0; i < nodes.length; i++) if (nodes[i]) last = await cluster.waitForHealth(status, { ...o, via: i });
        return last;
      }
      const timeout = o.timeoutMs ?? 60_000;
      const nodesParam =
        (o.nodes === undefined ? '' : `&wait_for_nodes=${o.nodes}`) + (o.activeShards === undefined ? '' : `&wait_for_active_shards=${o.activeShards}`);
      const deadline = Date.now() + timeout;
      for (;;) {
        const base = o.via === undefined ? cluster.anyUrl() : cluster.url(o.via);
        const left = Math.max(1000, deadline - Date.now());
        const r = await http(base, 'GET', `/_cluster/health?wait_for_status=${status}${nodesParam}&timeout=${Math.min(left, 10_000)}ms`);
        const body = r.body as Record<string, unknown>;
        if (r.status === 200 && body.timed_out === false) return body;
        if (Date.now() >= deadline) throw new Error(`health did not reach ${status}${nodesParam} within ${timeout} ms: ${r.text}`);
      }
    },
    async stop() {
      await Promise.all(
        nodes.map(async (n, i) => {
          if (!n) return;
          nodes[i] = null;
          n.child.kill('SIGTERM');
          const timer = setTimeout(() => n.child.kill('SIGKILL'), 15_000);
          await n.exited;
          clearTimeout(timer);
        }),
      );
      await new Promise<void>((resolve) => prov.close(() => resolve()));
      if (!opts.kafka) await kafka.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
  return cluster;
}
