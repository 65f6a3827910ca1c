import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { SEGMENT_FORMAT_VERSION } from '../../shared/engine/codec/file-format.ts';
import { spawnServer, startServer, tempDir, http } from '../helpers/server.ts';
import type { ShardWorkers } from '../../services/node/shard-worker/shard-workers.ts';

/**
 * kill -9 the server while bulk loads are in flight, restart it on the same
 * data directory, and find every acknowledged document once, with the
 * version its acknowledgement reported.
 */
test('every acknowledged write survives kill -9 during a bulk load', async () => {
  const dir = await tempDir('crash-');
  try {
    let server = await spawnServer(dir);
    await http(server.url, 'PUT', '/crash', { settings: { number_of_shards: 3, number_of_replicas: 0 } });
    const acked = new Map<string, number>();
    let stop = false;
    let batchNo = 0;
    const loader = async () => {
      while (!stop) {
        const b = batchNo++;
        const lines: string[] = [];
        for (let i = 0; i < 200; i++) {
          // Every fifth batch rewrites ids of an earlier batch, so versions go above 1.
          const id = b % 5 === 4 ? `d${b - 4}-${i}` : `d${b}-${i}`;
          lines.push(JSON.stringify({ index: { _type: '_doc', _id: id } }), JSON.stringify({ batch: b, i }));
        }
        try {
          const res = await http(server.url, 'POST', '/crash/_bulk', lines.join('\n') + '\n');
          const items = (res.body as { items: { index: { _id: string; _version: number; status: number } }[] }).items;
          for (const it of items) if (it.index.status < 300) acked.set(it.index._id, it.index._version);
        } catch {
          return; // the server is gone
        }
      }
    };
    const loaders = [loader(), loader()];
    await new Promise((r) => setTimeout(r, 1500));
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(loaders);
    await server.exited;
    assert.ok(acked.size > 0, 'some writes were acknowledged before the kill');

    server = await spawnServer(dir);
    try {
      const ids = [...acked.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        const res = await http(server.url, 'POST', '/crash/_doc/_mget', { ids: chunk });
        const docs = (res.body as { docs: { _id: string; found: boolean; _version: number }[] }).docs;
        for (const d of docs) {
          assert.equal(d.found, true, `acknowledged document ${d._id} is missing after restart`);
          assert.ok(d._version >= acked.get(d._id)!, `document ${d._id} went back from version ${acked.get(d._id)} to ${d._version}`);
        }
      }
      await http(server.url, 'POST', '/crash/_refresh');
      const count = (await http(server.url, 'GET', '/crash/_count')).body as { count: number };
      const distinct = new Set<string>();
      for (let b = 0; b < batchNo; b++) if (b % 5 !== 4) for (let i = 0; i < 200; i++) distinct.add(`d${b}-${i}`);
      // Each document is present once: the count never exceeds the ids that were ever written.
      assert.ok(count.count >= new Set(acked.keys()).size && count.count <= distinct.size);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * A shard worker thread dies (a bug, memory): the node replaces it and the
 * copies it held open again from their last commit and replay the log after
 * it. Searches on those shards are left out (never answered from part of the
 * documents) until the replay is done, writes and realtime gets wait for it,
 * and no document is lost.
 */
test('a shard worker that dies is replaced and its copies reopened from their last commit', async () => {
  const server = await startServer(['--node.processors', '2']);
  try {
    await http(server.url, 'PUT', '/wk', { settings: { number_of_shards: 4, number_of_replicas: 0 } });
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) lines.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}` } }), JSON.stringify({ n: i, tag: `t${i % 7}` }));
    assert.equal(((await http(server.url, 'POST', '/wk/_bulk?refresh=true', lines.join('\n') + '\n')).body as { errors: boolean }).errors, false);

    const workers = (server.node as unknown as { workers: ShardWorkers }).workers;
    await workers.slot(0).crash();
    // Writes and realtime gets are answered once the copies caught up again.
    assert.equal((await http(server.url, 'PUT', '/wk/_doc/after?refresh=true', { n: -1, tag: 'late' })).status, 201);
    assert.equal(((await http(server.url, 'GET', '/wk/_doc/d7')).body as { found: boolean }).found, true);

    const deadline = Date.now() + 30_000;
    let body: { hits: { total: number }; _shards: { failed: number } };
    for (;;) {
      body = (await http(server.url, 'POST', '/wk/_search', { size: 0, query: { match_all: {} } })).body as typeof body;
      if (body._shards.failed === 0 || Date.now() > deadline) break;
      // Until its copies are rebuilt, their shards are reported failed, not answered with part of their documents.
      assert.ok(body.hits.total < 401);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(body._shards.failed, 0, 'every shard answers again');
    assert.equal(body.hits.total, 401);
    const agg = (await http(server.url, 'POST', '/wk/_search', { size: 0, aggs: { tags: { terms: { field: 'tag.keyword', size: 10 } } } })).body as {
      aggregations: { tags: { buckets: { key: string; doc_count: number }[] } };
    };
    assert.equal(agg.aggregations.tags.buckets.find((b) => b.key === 't0')?.doc_count, 58);
    assert.equal(agg.aggregations.tags.buckets.find((b) => b.key === 'late')?.doc_count, 1);
  } finally {
    await server.stop();
  }
});

async function loadDocs(url: string, index: string, docs: number, settings: Record<string, string> = {}): Promise<void> {
  await http(url, 'PUT', `/${index}`, { settings: { number_of_shards: 1, number_of_replicas: 0, ...settings } });
  for (let start = 0; start < docs; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < start + 10_000; i++) lines.push(`{"index":{"_type":"_doc","_id":"${i}"}}`, `{"n":${i},"plate":"京A${String(i).padStart(5, '0')}"}`);
    assert.equal(((await http(url, 'POST', `/${index}/_bulk`, lines.join('\n') + '\n')).body as { errors: boolean }).errors, false);
  }
}

interface RecoveryRow {
  index: string;
  type: string;
  translog_ops: string;
}

/**
 * A clean stop commits every copy; the restarted node maps their segment
 * files and replays nothing, so every copy is started as soon as it answers.
 */
test('a restarted node opens its copies from their segment files and replays nothing after a clean stop', async () => {
  const dir = await tempDir('restart-');
  const docs = 60_000;
  try {
    let server = await startServer([], dir);
    await loadDocs(server.url, 'big', docs);
    await server.stop();

    const t0 = performance.now();
    server = await startServer([], dir);
    try {
      const green = (await http(server.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=30s')).body as { status: string };
      assert.equal(green.status, 'green');
      assert.ok(performance.now() - t0 < 15_000, 'started without rebuilding anything');
      const rows = (await http(server.url, 'GET', '/_cat/recovery/big?format=json&h=index,type,translog_ops')).body as RecoveryRow[];
      assert.deepEqual(rows, [{ index: 'big', type: 'existing_store', translog_ops: '0' }]);
      const found = (await http(server.url, 'POST', '/big/_search', { size: 0, query: { match: { plate: 'A00042' } } })).body as { hits: { total: number } };
      assert.equal(found.hits.total, 1);
      assert.equal(((await http(server.url, 'GET', '/big/_count')).body as { count: number }).count, docs);
      assert.equal(((await http(server.url, 'GET', '/big/_doc/59999')).body as { _source: { n: number } })._source.n, 59999);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Files under `dir` whose name matches `re`. */
async function filesMatching(dir: string, re: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) if (re.test(entry)) out.push(join(dir, entry));
  return out.sort();
}

/**
 * Flips bits (`mask`) of the middle byte of the first file under `dir` whose name matches `re`, or of the
 * largest (`largest`); returns the file's name.
 */
async function flipMiddleByte(dir: string, re: RegExp, mask: number, largest = false): Promise<string> {
  const files = await filesMatching(dir, re);
  const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
  const file = largest ? files[sizes.indexOf(Math.max(...sizes))] : files[0];
  assert.ok(file !== undefined, `a file matching ${re}`);
  const bytes = await readFile(file);
  bytes[Math.floor(bytes.length / 2)]! ^= mask;
  await writeFile(file, bytes);
  return file.slice(file.lastIndexOf('/') + 1);
}

/**
 * Counts `index` (one shard, its copy being rebuilt) until a count answers from its shard: until then
 * every count is refused, never a part of the documents, and the cluster is red; then it is `docs`.
 */
async function assertRefusedUntilRebuilt(url: string, index: string, docs: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    // A health taken before a refused count saw the copy unstarted too (the rebuild ends once).
    const health = ((await http(url, 'GET', '/_cluster/health')).body as { status: string }).status;
    const counted = await http(url, 'GET', `/${index}/_count`);
    const body = counted.body as { count?: number; _shards?: { successful: number } };
    if (counted.status === 200 && body._shards?.successful === 1) {
      assert.equal(body.count, docs);
      return;
    }
    assert.equal(health, 'red', `health while the count is refused: ${JSON.stringify(body)}`);
    assert.ok(Date.now() < deadline, `still no count after 60 s: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Restarts a node on `dir` (a file of it damaged) and checks that the copy of `index` (20,000 docs) was rebuilt
 * from the log: red and refusing searches (never a part of its documents) until every doc is back, a
 * recovery from an empty store that replayed every op, and the node's log saying which file was refused
 * and why (`why`).
 */
async function assertRebuiltAfter(dir: string, index: string, why: RegExp): Promise<void> {
  const child = await spawnServer(dir);
  const logged = async () => readFile(join(dir, 'logs', 'logsearch.log'), 'utf8');
  try {
    await assertRefusedUntilRebuilt(child.url, index, 20_000);
    await http(child.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=60s');
    await http(child.url, 'POST', `/${index}/_refresh`);
    assert.equal(((await http(child.url, 'GET', `/${index}/_count`)).body as { count: number }).count, 20_000);
    const rows = (await http(child.url, 'GET', `/_cat/recovery/${index}?format=json&h=index,type,translog_ops`)).body as RecoveryRow[];
    assert.deepEqual(rows, [{ index, type: 'empty_store', translog_ops: '20000' }]);
    assert.match(await logged(), why);
  } finally {
    child.child.kill('SIGTERM');
    await child.exited;
  }
}

test('by default a flipped byte in the middle of a large segment file is found at open and the copy rebuilt from the log', async () => {
  const dir = await tempDir('damaged-');
  try {
    const server = await startServer([], dir);
    await loadDocs(server.url, 'dmg', 20_000);
    await loadDocs(server.url, 'fdt', 20_000);
    const uuidOf = async (index: string) =>
      ((await http(server.url, 'GET', `/${index}/_settings`)).body as Record<string, { settings: { index: { uuid: string } } }>)[index]!.settings.index.uuid;
    const [dmgDir, fdtDir] = [join(dir, 'indices', await uuidOf('dmg')), join(dir, 'indices', await uuidOf('fdt'))];
    await server.stop();
    // The largest file of the index, and the largest stored-fields file: a structure check reads neither's middle.
    const damaged = await flipMiddleByte(dmgDir, /segments\/_[0-9a-z]+\.(tim|doc|pos|dvd|fdt)$/, 0xff, true);
    await assertRebuiltAfter(dir, 'dmg', new RegExp(`rebuilding from the log: segment file \\[${damaged.replace('.', '\\.')}\\] is corrupt: checksum`));
    await flipMiddleByte(fdtDir, /segments\/_[0-9a-z]+\.fdt$/, 0x10, true);
    await assertRebuiltAfter(dir, 'fdt', /rebuilding from the log: segment file \[_[0-9a-z]+\.fdt\] is corrupt: checksum/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('by default a truncated or missing segment file, or a flipped byte in a segment info file, is found at open and the copy rebuilt from the log', async () => {
  const dir = await tempDir('truncated-');
  try {
    const server = await startServer([], dir);
    await loadDocs(server.url, 'cut', 20_000);
    await loadDocs(server.url, 'si', 20_000);
    await loadDocs(server.url, 'gone', 20_000);
    const uuidOf = async (index: string) =>
      ((await http(server.url, 'GET', `/${index}/_settings`)).body as Record<string, { settings: { index: { uuid: string } } }>)[index]!.settings.index.uuid;
    const [cutDir, siDir, goneDir] = [join(dir, 'indices', await uuidOf('cut')), join(dir, 'indices', await uuidOf('si')), join(dir, 'indices', await uuidOf('gone'))];
    await server.stop();
    // A stored-fields file that lost its last 100 bytes (a disk that failed mid-write, a partial copy).
    const [stored] = await filesMatching(cutDir, /segments\/_[0-9a-z]+\.fdt$/);
    assert.ok(stored !== undefined);
    await truncate(stored, (await stat(stored)).size - 100);
    await assertRebuiltAfter(dir, 'cut', /rebuilding from the log: segment file \[_[0-9a-z]+\.fdt\] is corrupt: [0-9]+ bytes where the segment info says [0-9]+/);
    // The .si is read whole at every open: one flipped byte is enough.
    await flipMiddleByte(siDir, /segments\/_[0-9a-z]+\.si$/, 0x01);
    await assertRebuiltAfter(dir, 'si', /rebuilding from the log: segment file \[_[0-9a-z]+\.si\] is corrupt: checksum/);
    // A postings file deleted (a partial restore, an operator's mistake).
    const [postings] = await filesMatching(goneDir, /segments\/_[0-9a-z]+\.pos$/);
    assert.ok(postings !== undefined);
    await rm(postings);
    await assertRebuiltAfter(dir, 'gone', /rebuilding from the log: segment file \[_[0-9a-z]+\.pos\] is corrupt: missing/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('with index.shard.check_on_startup: false, a flipped byte the open does not read is found by the next merge, and the copy rebuilt from the log', async () => {
  const dir = await tempDir('merge-damaged-');
  try {
    const server = await startServer([], dir);
    await http(server.url, 'PUT', '/mrg', { settings: { number_of_shards: 1, number_of_replicas: 0, 'index.shard.check_on_startup': false } });
    // Two committed segments of 10,000 docs each.
    for (const start of [0, 10_000]) {
      const lines: string[] = [];
      for (let i = start; i < start + 10_000; i++) lines.push(`{"index":{"_type":"_doc","_id":"${i}"}}`, `{"n":${i},"plate":"京A${String(i).padStart(5, '0')}"}`);
      assert.equal(((await http(server.url, 'POST', '/mrg/_bulk', lines.join('\n') + '\n')).body as { errors: boolean }).errors, false);
      await http(server.url, 'POST', '/mrg/_flush');
    }
    await server.stop();
    await flipMiddleByte(join(dir, 'indices'), /segments\/_[0-9a-z]+\.doc$/, 0xff);

    const child = await spawnServer(dir);
    const logged = async () => readFile(join(dir, 'logs', 'logsearch.log'), 'utf8');
    try {
      await http(child.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=60s');
      const opened = (await http(child.url, 'GET', '/_cat/recovery/mrg?format=json&h=index,type,translog_ops')).body as RecoveryRow[];
      assert.deepEqual(opened, [{ index: 'mrg', type: 'existing_store', translog_ops: '0' }], 'an open with check_on_startup false reads only the ends of the .doc');
      assert.equal((await http(child.url, 'POST', '/mrg/_forcemerge?max_num_segments=1')).status, 200);
      assert.match(await logged(), /rebuilding from the log: segment file \[_[0-9a-z]+\.doc\] is corrupt: checksum/);
      await assertRefusedUntilRebuilt(child.url, 'mrg', 20_000);
      await http(child.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=60s');
      assert.deepEqual((await http(child.url, 'GET', '/_cat/shards/mrg?format=json&h=state')).body, [{ state: 'STARTED' }]);
      const found = (await http(child.url, 'POST', '/mrg/_search', { size: 0, query: { term: { n: 12345 } } })).body as { hits: { total: number } };
      assert.equal(found.hits.total, 1);
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a copy whose segments an older node wrote (format 4) is rebuilt from the log, and the node says why', async () => {
  const dir = await tempDir('format4-');
  try {
    const server = await startServer([], dir);
    await loadDocs(server.url, 'old', 20_000);
    await server.stop();
    // What the previous release wrote: the same files, with format 4 in every header and checksums that add up.
    const files = await filesMatching(join(dir, 'indices'), /segments\/_[0-9a-z]+\.(si|tim|doc|pos|dvd|fdt)$/);
    assert.ok(files.length >= 6);
    for (const f of files) {
      const bytes = await readFile(f);
      assert.equal(bytes.readUInt32LE(4), SEGMENT_FORMAT_VERSION);
      bytes.writeUInt32LE(4, 4);
      bytes.writeUInt32LE(zlib.crc32(bytes.subarray(0, bytes.length - 8)), bytes.length - 4);
      await writeFile(f, bytes);
    }

    const child = await spawnServer(dir);
    const logged = async () => readFile(join(dir, 'logs', 'logsearch.log'), 'utf8');
    try {
      await http(child.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=60s');
      await http(child.url, 'POST', '/old/_refresh');
      assert.equal(((await http(child.url, 'GET', '/old/_count')).body as { count: number }).count, 20_000);
      const found = (await http(child.url, 'POST', '/old/_search', { size: 0, query: { match: { plate: 'A00042' } } })).body as { hits: { total: number } };
      assert.equal(found.hits.total, 1);
      const rows = (await http(child.url, 'GET', '/_cat/recovery/old?format=json&h=index,type,translog_ops')).body as RecoveryRow[];
      assert.deepEqual(rows, [{ index: 'old', type: 'empty_store', translog_ops: '20000' }]);
      assert.match(await logged(), new RegExp(`rebuilding from the log: segment file \\[_[0-9a-z]+\\.si\\] is corrupt: format version 4, this node reads ${SEGMENT_FORMAT_VERSION}`));
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a copy whose commit lies beyond the end of its log is rebuilt from the log, and new writes apply', async () => {
  const dir = await tempDir('ahead-');
  try {
    const server = await startServer([], dir);
    await loadDocs(server.url, 'ahead', 10_000);
    await server.stop();
    // The log loses its tail (an OS crash with log.fsync off): here, its last 4,000 records.
    const { EmbeddedLog } = await import('../../shared/log/embedded-log.ts');
    let log = await EmbeddedLog.open(join(dir, 'log'));
    const topic = (await readdir(join(dir, 'log', 'topics'))).find((t) => t.includes('.ahead.'))!;
    const kept = [];
    while (kept.length < 6000) kept.push(...(await log.read(topic, 0, kept.length, 6000 - kept.length)));
    await log.close();
    for (const f of await filesMatching(join(dir, 'log', 'topics', topic, '0'), /\.(log|index)$/)) await rm(f);
    log = await EmbeddedLog.open(join(dir, 'log'));
    await log.append(topic, 0, kept.map((r) => ({ value: r.value, key: r.key, headers: r.headers })));
    assert.equal(await log.highWatermark(topic, 0), 6000);
    await log.close();

    const child = await spawnServer(dir);
    const logged = async () => readFile(join(dir, 'logs', 'logsearch.log'), 'utf8');
    try {
      await http(child.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=60s');
      await http(child.url, 'POST', '/ahead/_refresh');
      assert.equal(((await http(child.url, 'GET', '/ahead/_count')).body as { count: number }).count, 6000, 'what the log holds, nothing more');
      assert.equal((await http(child.url, 'GET', '/ahead/_doc/7000')).status, 404);
      const t0 = performance.now();
      assert.equal((await http(child.url, 'PUT', '/ahead/_doc/new?refresh=true', { n: -1 })).status, 201);
      assert.ok(performance.now() - t0 < 5000, 'a new write is applied, not taken for one already applied');
      assert.match(await logged(), /applied up to offset 10000 but the log ends at 6000: rebuilding the copy from the log/);
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
