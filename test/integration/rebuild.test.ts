/**
 * Replay-based rebuild (`POST /{index}/_rebuild`, docs/rebuild.md) on one
 * node: pass records in a 5-shard index behind an alias, a writer indexing,
 * updating and deleting through the alias the whole time (every acknowledged
 * op recorded), a rebuild into 3 shards with a new `plate.edge` sub-field,
 * then every acknowledged op is checked in the new index. REBUILD_TEST_DOCS
 * sets the size (default 20,000; the 200,000 runs with
 * REBUILD_TEST_DOCS=200000).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, tempDir, http, type TestServer } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from '../../bench/pass-records.ts';

const DOCS = Number(process.env.REBUILD_TEST_DOCS ?? 20_000);

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

const EDGE_SETTINGS = {
  number_of_shards: 3,
  number_of_replicas: 0,
  refresh_interval: '1s',
  analysis: {
    ...PASSINFO_INDEX_BODY.settings.analysis,
    analyzer: { ...PASSINFO_INDEX_BODY.settings.analysis.analyzer, plate_edge: { type: 'custom', tokenizer: 'plate_edge_tokenizer', filter: ['lowercase'] } },
    tokenizer: { ...PASSINFO_INDEX_BODY.settings.analysis.tokenizer, plate_edge_tokenizer: { type: 'edge_ngram', min_gram: 1, max_gram: 10, token_chars: ['letter', 'digit'] } },
  },
};
const EDGE_MAPPINGS = {
  passinfo: {
    properties: {
      plate: { type: 'text', analyzer: 'plate_ngram', fields: { keyword: { type: 'keyword' }, edge: { type: 'text', analyzer: 'plate_edge', search_analyzer: 'keyword' } } },
    },
  },
};

async function bulk(index: string, lines: string[], refresh = false): Promise<{ errors: boolean; items: Record<string, BulkItem>[] }> {
  const r = await http(server.url, 'POST', `/${index}/_bulk${refresh ? '?refresh=true' : ''}`, lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal(r.status, 200, r.text);
  return r.body as { errors: boolean; items: Record<string, BulkItem>[] };
}

interface BulkItem {
  _id: string;
  _version: number;
  result?: string;
  status: number;
  error?: unknown;
}

async function load(index: string, records: Iterable<PassRecord>, shards = 5): Promise<void> {
  const created = await req('PUT', `/${index}`, { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: shards, number_of_replicas: 0 } });
  assert.equal(created.status, 200, created.text);
  let lines: string[] = [];
  for (const r of records) {
    lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
    if (lines.length >= 10_000) {
      assert.equal((await bulk(index, lines)).errors, false);
      lines = [];
    }
  }
  if (lines.length > 0) assert.equal((await bulk(index, lines)).errors, false);
}

/** What the writer was told about each id: its last acknowledged state. */
interface Acked {
  version: number;
  deleted: boolean;
  source: PassRecord | null;
}

/** Indexes, re-indexes and deletes through `alias` until `stop()`, recording every acknowledged op. */
function startWriter(alias: string, base: readonly PassRecord[], acked: Map<string, Acked>) {
  let stopped = false;
  let batches = 0;
  let n = 0;
  const fresh = generatePassRecords({ count: 1_000_000, seed: 99, plates: 500 });
  const run = (async () => {
    while (!stopped) {
      const lines: string[] = [];
      const sent: { id: string; source: PassRecord | null }[] = [];
      for (let k = 0; k < 50; k++, n++) {
        const kind = n % 5;
        if (kind === 3) {
          // Delete one of the loaded records.
          const id = base[(n * 7919) % base.length]!.event_id;
          lines.push(JSON.stringify({ delete: { _type: 'passinfo', _id: id } }));
          sent.push({ id, source: null });
        } else if (kind === 4) {
          // Re-index one of the loaded records with a new speed.
          const r = { ...base[(n * 104_729) % base.length]!, speed: n % 1000 };
          lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
          sent.push({ id: r.event_id, source: r });
        } else {
          const r = fresh.next().value as PassRecord;
          lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
          sent.push({ id: r.event_id, source: r });
        }
      }
      const res = await bulk(alias, lines);
      res.items.forEach((item, i) => {
        const it = (item.index ?? item.delete)!;
        const s = sent[i]!;
        if (it.error !== undefined) throw new Error(`write of [${s.id}] failed: ${JSON.stringify(it.error)}`);
        acked.set(s.id, { version: it._version, deleted: s.source === null, source: s.source });
      });
      batches++;
    }
  })();
  return {
    get batches() {
      return batches;
    },
    async stop() {
      stopped = true;
      await run;
    },
  };
}

interface TaskGet {
  completed: boolean;
  task: { status?: { phase: string; ops_replayed: number; ops_behind: number; ops_per_second: number; eta_in_millis: number | null } };
  response?: { dest: string; alias: string; ops_replayed: number; switch_offsets: number[] };
  error?: { type: string; reason: string };
}

async function waitTask(taskId: string, timeoutMs = 600_000): Promise<{ final: TaskGet; seenRunning: TaskGet | null }> {
  const deadline = Date.now() + timeoutMs;
  let seenRunning: TaskGet | null = null;
  for (;;) {
    const r = await req('GET', `/_tasks/${taskId}`);
    assert.equal(r.status, 200, r.text);
    const t = r.body as TaskGet;
    if (t.completed) return { final: t, seenRunning };
    seenRunning ??= t;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still running`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Checks every acknowledged op against the index behind `alias`, by mget in slices. */
async function checkAcked(alias: string, acked: ReadonlyMap<string, Acked>): Promise<void> {
  const ids = [...acked.keys()];
  for (let i = 0; i < ids.length; i += 1000) {
    const slice = ids.slice(i, i + 1000);
    const r = await req('POST', `/${alias}/passinfo/_mget`, { ids: slice });
    assert.equal(r.status, 200, r.text);
    const docs = (r.body as { docs: { _id: string; _index: string; found: boolean; _version?: number; _source?: PassRecord }[] }).docs;
    docs.forEach((d, k) => {
      const want = acked.get(slice[k]!)!;
      if (want.deleted) {
        assert.equal(d.found, false, `[${d._id}] was deleted (acknowledged version ${want.version}) but is in [${d._index}]`);
        return;
      }
      assert.equal(d.found, true, `acknowledged [${d._id}] version ${want.version} is missing from [${d._index}]`);
      assert.equal(d._version, want.version, `[${d._id}] version`);
      assert.deepEqual(d._source, want.source, `[${d._id}] source`);
    });
  }
}

before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

describe('POST /{index}/_rebuild', () => {
  test('rebuilds 5 shards into 3 with a new edge n-gram sub-field while a writer goes on through the alias: every acknowledged op is in the new index once, with its version, and the alias moved', async (t) => {
    const base = [...generatePassRecords({ count: DOCS, seed: 5, plates: Math.max(50, DOCS / 20) })];
    await load('passinfo-v1', base);
    assert.equal((await req('POST', '/_aliases', { actions: [{ add: { index: 'passinfo-v1', alias: 'passinfo' } }] })).status, 200);
    const acked = new Map<string, Acked>();
    for (const r of base) acked.set(r.event_id, { version: 1, deleted: false, source: r });
    const writer = startWriter('passinfo', base, acked);
    t.after(() => writer.stop().catch(() => undefined));
    // Let the writer run against the source first.
    while (writer.batches < 5) await new Promise((res) => setTimeout(res, 20));

    const started = await req('POST', '/passinfo-v1/_rebuild?wait_for_completion=false', {
      dest: { index: 'passinfo-v2', settings: EDGE_SETTINGS, mappings: EDGE_MAPPINGS },
      alias: 'passinfo',
    });
    assert.equal(started.status, 200, started.text);
    const taskId = (started.body as { task: string }).task;
    assert.match(taskId, /^.+:\d+$/);

    // A second rebuild of the same index while this one runs is refused.
    const second = await req('POST', '/passinfo-v1/_rebuild', { dest: { index: 'passinfo-v3' }, alias: 'passinfo' });
    assert.equal(second.status, 400, second.text);
    assert.match(second.text, /already being rebuilt into \[passinfo-v2\]/);

    const batchesAtStart = writer.batches;
    const { final, seenRunning } = await waitTask(taskId);
    // The writer was acknowledged during the rebuild, not only before and after it.
    assert.ok(writer.batches > batchesAtStart, 'no write was acknowledged while the rebuild ran');
    assert.equal(final.error, undefined, JSON.stringify(final.error));
    assert.equal(final.response?.dest, 'passinfo-v2');
    if (seenRunning !== null) {
      const st = seenRunning.task.status!;
      assert.ok(['replaying', 'switching'].includes(st.phase), st.phase);
      for (const k of ['ops_replayed', 'ops_behind', 'ops_per_second'] as const) assert.equal(typeof st[k], 'number', k);
    }
    // Writes go on after the switch: now straight to the new index.
    const afterSwitch = writer.batches;
    while (writer.batches < afterSwitch + 5) await new Promise((res) => setTimeout(res, 20));
    await writer.stop();

    const alias = await req('GET', '/_alias/passinfo');
    assert.deepEqual(alias.body, { 'passinfo-v2': { aliases: { passinfo: {} } } });
    assert.equal((await req('POST', '/passinfo/_refresh')).status, 200);
    await checkAcked('passinfo', acked);
    const live = [...acked.values()].filter((a) => !a.deleted);
    const count = await req('GET', '/passinfo/_count');
    assert.equal((count.body as { count: number }).count, live.length);
    assert.equal(((await req('GET', '/passinfo-v2/_settings')).body as Record<string, { settings: { index: { number_of_shards: string } } }>)['passinfo-v2']!.settings.index.number_of_shards, '3');

    // The new sub-field matches documents indexed before the rebuild; the answer agrees with a brute-force one.
    const prefix = base[0]!.plate.slice(0, 3).toLowerCase();
    const expected = new Set(live.filter((a) => a.source!.plate.toLowerCase().startsWith(prefix)).map((a) => a.source!.event_id));
    assert.ok(expected.has(base[0]!.event_id) || acked.get(base[0]!.event_id)!.deleted);
    const found = await req('POST', '/passinfo/_search', { size: 10_000, _source: false, query: { term: { 'plate.edge': prefix } } });
    assert.equal(found.status, 200, found.text);
    const hits = (found.body as { hits: { total: number; hits: { _id: string; _index: string }[] } }).hits;
    assert.equal(hits.total, expected.size);
    assert.deepEqual(new Set(hits.hits.map((h) => h._id)), expected);
    assert.ok(hits.hits.every((h) => h._index === 'passinfo-v2'));
    // The source is kept (delete_source false) and still answers by its name.
    assert.equal((await req('HEAD', '/passinfo-v1')).status, 200);
  });

  test('a cancelled rebuild deletes the new index and leaves the alias where it was', async () => {
    const started = await req('POST', '/passinfo-v1/_rebuild?wait_for_completion=false', { dest: { index: 'passinfo-cancelled' }, alias: 'passinfo' });
    assert.equal(started.status, 200, started.text);
    const taskId = (started.body as { task: string }).task;
    const cancel = await req('POST', `/_tasks/${taskId}/_cancel`);
    assert.equal(cancel.status, 200, cancel.text);
    const { final } = await waitTask(taskId);
    assert.match(JSON.stringify(final.error), /cancelled/);
    assert.equal((await req('HEAD', '/passinfo-cancelled')).status, 404);
    assert.deepEqual((await req('GET', '/_alias/passinfo')).body, { 'passinfo-v2': { aliases: { passinfo: {} } } });
  });

  test('a document the new mapping refuses fails the rebuild with its id and reason; the alias, the source and its documents stay', async () => {
    const created = await req('PUT', '/notes-v1', { settings: { number_of_shards: 2, number_of_replicas: 0 }, aliases: { notes: {} } });
    assert.equal(created.status, 200, created.text);
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(JSON.stringify({ index: { _type: '_doc', _id: `n${i}` } }), JSON.stringify({ note: i === 137 ? 'not a number' : String(i) }));
    assert.equal((await bulk('notes', lines, true)).errors, false);
    const r = await req('POST', '/notes-v1/_rebuild', { dest: { index: 'notes-v2', mappings: { _doc: { properties: { note: { type: 'integer' } } } } }, alias: 'notes' });
    assert.equal(r.status, 400, r.text);
    assert.match(r.text, /document \[n137\]/);
    assert.match(r.text, /mapper_parsing_exception/);
    assert.deepEqual((await req('GET', '/_alias/notes')).body, { 'notes-v1': { aliases: { notes: {} } } });
    assert.equal((await req('HEAD', '/notes-v2')).status, 404);
    assert.equal(((await req('GET', '/notes/_count')).body as { count: number }).count, 200);
    // Once refused, a rebuild with a mapping that takes every document succeeds.
    const ok = await req('POST', '/notes-v1/_rebuild', { dest: { index: 'notes-v2', mappings: { _doc: { properties: { note: { type: 'keyword' } } } } }, alias: 'notes', delete_source: true });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((ok.body as { source_deleted: boolean }).source_deleted, true);
    assert.equal((await req('HEAD', '/notes-v1')).status, 404);
    assert.equal(((await req('GET', '/notes/_count')).body as { count: number }).count, 200);
    // The shared log outlives its first index: writes through the alias still land.
    assert.equal((await req('PUT', '/notes/_doc/extra?refresh=true', { note: 'x' })).status, 201);
    assert.equal(((await req('GET', '/notes/_count')).body as { count: number }).count, 201);
  });

  test('bad requests get Elasticsearch-shaped 4xx', async () => {
    assert.equal((await req('POST', '/missing-index/_rebuild', { dest: { index: 'x' } })).status, 404);
    const noDest = await req('POST', '/notes/_rebuild', { alias: 'notes' });
    assert.equal(noDest.status, 400, noDest.text);
    const unknown = await req('POST', '/notes/_rebuild', { dest: { index: 'x' }, bogus: 1 });
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.text, /unknown field \[bogus\]/);
    const exists = await req('POST', '/notes/_rebuild', { dest: { index: 'notes-v2' } });
    assert.equal(exists.status, 400, exists.text);
    assert.match(exists.text, /resource_already_exists_exception/);
  });
});

test('a rebuild interrupted by a node restart resumes from its copies\' commits and switches the alias', async () => {
  const dir = await tempDir('rebuild-restart-');
  let node = await startServer([], dir);
  try {
    const local = (method: string, path: string, body?: unknown) => http(node.url, method, path, body);
    const created = await local('PUT', '/r-v1', { settings: { number_of_shards: 2, number_of_replicas: 0 }, aliases: { r: {} } });
    assert.equal(created.status, 200, created.text);
    const n = 30_000;
    for (let start = 0; start < n; start += 5000) {
      const lines: string[] = [];
      for (let i = start; i < start + 5000; i++) lines.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}` } }), JSON.stringify({ n: i, text: `doc ${i}` }));
      const b = await http(node.url, 'POST', '/r/_bulk', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
      assert.equal((b.body as { errors: boolean }).errors, false);
    }
    const started = await local('POST', '/r-v1/_rebuild?wait_for_completion=false', { dest: { index: 'r-v2', settings: { number_of_shards: 3, number_of_replicas: 0 } }, alias: 'r' });
    assert.equal(started.status, 200, started.text);
    await node.stop();
    node = await startServer([], dir);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const a = await http(node.url, 'GET', '/_alias/r');
      if (JSON.stringify(a.body) === JSON.stringify({ 'r-v2': { aliases: { r: {} } } })) break;
      if (Date.now() > deadline) throw new Error(`alias not switched after restart: ${a.text}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    await http(node.url, 'POST', '/r/_refresh');
    assert.equal(((await http(node.url, 'GET', '/r/_count')).body as { count: number }).count, n);
    const doc = await http(node.url, 'GET', '/r/_doc/d29999');
    assert.equal((doc.body as { _index: string; _source: { n: number } })._index, 'r-v2');
    assert.equal((doc.body as { _source: { n: number } })._source.n, 29_999);
  } finally {
    await node.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
