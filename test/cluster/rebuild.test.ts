/**
 * Replay-based rebuild on three nodes on mock Kafka (issue 15): the new
 * index's copies consume the source's topic on the nodes that hold them.
 * A writer indexes and deletes through the alias on every node the whole
 * time; afterwards every acknowledged op is in the new index, read from
 * every node. REBUILD_CLUSTER_DOCS sets the size (default 20,000).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from '../../services/passinfo/pass-record-generator.ts';

const DOCS = Number(process.env.REBUILD_CLUSTER_DOCS ?? 20_000);

interface BulkItem {
  _id: string;
  _version: number;
  error?: unknown;
}

interface Acked {
  version: number;
  deleted: boolean;
  source: PassRecord | null;
}

describe('rebuild on a three-node cluster on mock Kafka', { timeout: 15 * 60_000 }, () => {
  let c: TestCluster;

  before(async () => {
    c = await startCluster({ nodes: 3 });
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 90_000, via: 'every' });
  });

  after(async () => {
    await c?.stop();
  });

  const bulk = async (node: number, index: string, lines: string[]) => {
    const r = await http(c.url(node), 'POST', `/${index}/_bulk`, lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
    assert.equal(r.status, 200, r.text.slice(0, 500));
    return r.body as { errors: boolean; items: Record<string, BulkItem>[] };
  };

  test('5 shards with a replica rebuilt into 3 with a new sub-field while writes go on through the alias from every node: every acknowledged op is in the new index, on every node', async () => {
    const created = await http(c.url(0), 'PUT', '/passinfo-v1', {
      ...PASSINFO_INDEX_BODY,
      settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 5, number_of_replicas: 1 },
      aliases: { passinfo: {} },
    });
    assert.equal(created.status, 200, created.text);
    await c.waitForHealth('green', { timeoutMs: 60_000, via: 'every' });
    const base = [...generatePassRecords({ count: DOCS, seed: 11, plates: Math.max(50, DOCS / 20) })];
    const acked = new Map<string, Acked>();
    for (let i = 0; i < base.length; i += 2000) {
      const lines: string[] = [];
      for (const r of base.slice(i, i + 2000)) lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
      const res = await bulk((i / 2000) % 3, 'passinfo', lines);
      assert.equal(res.errors, false);
    }
    for (const r of base) acked.set(r.event_id, { version: 1, deleted: false, source: r });

    let stopped = false;
    let batches = 0;
    const fresh = generatePassRecords({ count: 1_000_000, seed: 77, plates: 300 });
    const writer = (async () => {
      for (let n = 0; !stopped; batches++) {
        const lines: string[] = [];
        const sent: { id: string; source: PassRecord | null }[] = [];
        for (let k = 0; k < 40; k++, n++) {
          if (n % 4 === 3) {
            const id = base[(n * 7919) % base.length]!.event_id;
            lines.push(JSON.stringify({ delete: { _type: 'passinfo', _id: id } }));
            sent.push({ id, source: null });
          } else {
            const r = fresh.next().value as PassRecord;
            lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
            sent.push({ id: r.event_id, source: r });
          }
        }
        const res = await bulk(batches % 3, 'passinfo', lines);
        res.items.forEach((item, i) => {
          const it = (item.index ?? item.delete)!;
          if (it.error !== undefined) throw new Error(`write of [${sent[i]!.id}] failed: ${JSON.stringify(it.error)}`);
          acked.set(sent[i]!.id, { version: it._version, deleted: sent[i]!.source === null, source: sent[i]!.source });
        });
      }
    })();
    try {
      const started = await http(c.url(1), 'POST', '/passinfo-v1/_rebuild?wait_for_completion=false', {
        dest: {
          index: 'passinfo-v2',
          settings: {
            number_of_shards: 3,
            number_of_replicas: 1,
            analysis: {
              ...PASSINFO_INDEX_BODY.settings.analysis,
              analyzer: { ...PASSINFO_INDEX_BODY.settings.analysis.analyzer, plate_edge: { type: 'custom', tokenizer: 'edge', filter: ['lowercase'] } },
              tokenizer: { ...PASSINFO_INDEX_BODY.settings.analysis.tokenizer, edge: { type: 'edge_ngram', min_gram: 1, max_gram: 10, token_chars: ['letter', 'digit'] } },
            },
          },
          mappings: { passinfo: { properties: { plate: { type: 'text', analyzer: 'plate_ngram', fields: { keyword: { type: 'keyword' }, edge: { type: 'text', analyzer: 'plate_edge', search_analyzer: 'keyword' } } } } } },
        },
        alias: 'passinfo',
      });
      assert.equal(started.status, 200, started.text);
      const taskId = (started.body as { task: string }).task;
      const atStart = batches;
      const deadline = Date.now() + 300_000;
      for (;;) {
        const t = await http(c.url(1), 'GET', `/_tasks/${taskId}`);
        assert.equal(t.status, 200, t.text);
        const body = t.body as { completed: boolean; error?: unknown };
        if (body.completed) {
          assert.equal(body.error, undefined, JSON.stringify(body.error));
          break;
        }
        if (Date.now() > deadline) throw new Error('rebuild did not finish');
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.ok(batches > atStart, 'no write was acknowledged while the rebuild ran');
      const atSwitch = batches;
      while (batches < atSwitch + 3) await new Promise((r) => setTimeout(r, 20));
    } finally {
      stopped = true;
      await writer;
    }
    await c.waitForHealth('green', { timeoutMs: 60_000, via: 'every' });
    for (let i = 0; i < 3; i++) {
      assert.deepEqual((await http(c.url(i), 'GET', '/_alias/passinfo')).body, { 'passinfo-v2': { aliases: { passinfo: {} } } }, `alias on node-${i}`);
    }
    await http(c.url(0), 'POST', '/passinfo/_refresh');
    const live = [...acked.values()].filter((a) => !a.deleted).length;
    for (let i = 0; i < 3; i++) {
      const count = await http(c.url(i), 'GET', '/passinfo/_count');
      assert.equal((count.body as { count: number }).count, live, `count on node-${i}`);
    }
    const ids = [...acked.keys()];
    for (let i = 0; i < ids.length; i += 1000) {
      const slice = ids.slice(i, i + 1000);
      const r = await http(c.url((i / 1000) % 3), 'POST', '/passinfo/passinfo/_mget', { ids: slice });
      const docs = (r.body as { docs: { _id: string; _index: string; found: boolean; _version?: number }[] }).docs;
      docs.forEach((d, k) => {
        const want = acked.get(slice[k]!)!;
        assert.equal(d.found, !want.deleted, `[${d._id}] in [${d._index}]`);
        if (!want.deleted) assert.equal(d._version, want.version, `[${d._id}] version`);
      });
    }
    const prefix = base[0]!.plate.slice(0, 3).toLowerCase();
    const expected = [...acked.values()].filter((a) => !a.deleted && a.source!.plate.toLowerCase().startsWith(prefix)).length;
    const found = await http(c.url(2), 'POST', '/passinfo/_search', { size: 0, query: { term: { 'plate.edge': prefix } } });
    assert.equal((found.body as { hits: { total: number } }).hits.total, expected);
  });

  test('a rebuild whose driving node is killed is finished by the master, without that node coming back', async () => {
    const DOCS_KILL = 40_000;
    const created = await http(c.url(0), 'PUT', '/tracks-v1', { settings: { number_of_shards: 2, number_of_replicas: 1 } });
    assert.equal(created.status, 200, created.text);
    await c.waitForHealth('green', { timeoutMs: 60_000, via: 'every' });
    for (let i = 0; i < DOCS_KILL; i += 5000) {
      const lines: string[] = [];
      for (let n = i; n < i + 5000; n++) lines.push(JSON.stringify({ index: { _type: '_doc', _id: String(n) } }), JSON.stringify({ plate: `P${n}`, n }));
      assert.equal((await bulk((i / 5000) % 3, 'tracks-v1', lines)).errors, false);
    }
    const master = (await http(c.url(0), 'GET', '/_cat/master?format=json')).body as { node: string }[];
    const masterIndex = Number(master[0]!.node.replace('node-', ''));
    const driver = [0, 1, 2].find((i) => i !== masterIndex)!;
    const started = await http(c.url(driver), 'POST', '/tracks-v1/_rebuild?wait_for_completion=false', {
      dest: { index: 'tracks-v2', mappings: { _doc: { properties: { plate: { type: 'text', fields: { raw: { type: 'keyword' } } } } } } },
      alias: 'tracks',
    });
    assert.equal(started.status, 200, started.text);
    await c.kill(driver);
    const url = c.url(masterIndex);
    assert.equal((await http(url, 'GET', '/_alias/tracks')).status, 404, 'the rebuild had not switched when its driver died');
    const deadline = Date.now() + 180_000;
    let adopted = false;
    for (;;) {
      const tasks = (await http(url, 'GET', '/_tasks?actions=indices:admin/rebuild')).body as { nodes: Record<string, { tasks: Record<string, unknown> }> };
      if (Object.values(tasks.nodes ?? {}).some((n) => Object.keys(n.tasks).length > 0)) adopted = true;
      const alias = await http(url, 'GET', '/_alias/tracks');
      if (alias.status === 200) {
        assert.deepEqual(alias.body, { 'tracks-v2': { aliases: { tracks: {} } } });
        break;
      }
      if (Date.now() > deadline) throw new Error(`the rebuild was not finished after its driver died (adopted by the master: ${adopted})`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await http(url, 'POST', '/tracks/_refresh');
    const count = await http(url, 'GET', '/tracks/_count');
    assert.equal((count.body as { count: number }).count, DOCS_KILL);
    const raw = await http(url, 'POST', '/tracks/_search', { size: 0, query: { term: { 'plate.raw': 'P12345' } } });
    assert.equal((raw.body as { hits: { total: number } }).hits.total, 1, 'the new sub-field holds the old documents');
    await c.restart(driver);
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 120_000, via: 'every' });
    assert.deepEqual((await http(c.url(driver), 'GET', '/_alias/tracks')).body, { 'tracks-v2': { aliases: { tracks: {} } } }, 'the restarted driver does not run it again');
  });
});
