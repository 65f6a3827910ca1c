/**
 * kill -9 at each step of the storage's write path (shared/engine/store/fault-injection.ts):
 * while a refresh writes a segment, after a merge wrote one, between the files of a
 * commit and its batch, and after the batch. Each time, the restarted node holds every
 * acknowledged write once, with its version, and no file that no live segment uses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnServer, tempDir, http, type ChildServer } from '../helpers/server.ts';
import type { CrashPoint } from '../../shared/engine/store/fault-injection.ts';
import { DATA_FILES } from '../../shared/engine/segment/segment-info.ts';

const INDEX = 'crashy';

async function spawnWithCrashPoint(dir: string, point: `${CrashPoint}@${number}` | null): Promise<ChildServer> {
  const before = process.env.LOGSEARCH_CRASH_AT;
  if (point === null) delete process.env.LOGSEARCH_CRASH_AT;
  else process.env.LOGSEARCH_CRASH_AT = point;
  try {
    return await spawnServer(dir);
  } finally {
    if (before === undefined) delete process.env.LOGSEARCH_CRASH_AT;
    else process.env.LOGSEARCH_CRASH_AT = before;
  }
}

interface Written {
  /** Acknowledged versions by id. */
  readonly acked: Map<string, number>;
  /** Ids of the batch the kill cut short: in the log or not, acknowledged to nobody. */
  unanswered: string[];
}

/** Writes small refreshed batches (each one a segment) until the server dies. */
async function writeUntilDead(server: ChildServer, maxBatches: number): Promise<Written> {
  const written: Written = { acked: new Map(), unanswered: [] };
  const acked = written.acked;
  for (let b = 0; b < maxBatches; b++) {
    const lines: string[] = [];
    // Every third batch rewrites the ids of the batch before it: versions 2, and deletes in older segments.
    const ids = Array.from({ length: 50 }, (_, i) => (b % 3 === 2 ? `b${b - 1}-${i}` : `b${b}-${i}`));
    for (const id of ids) lines.push(JSON.stringify({ index: { _type: '_doc', _id: id } }), JSON.stringify({ b, text: `batch ${b}` }));
    let res;
    try {
      res = await http(server.url, 'POST', `/${INDEX}/_bulk?refresh=true`, lines.join('\n') + '\n');
    } catch {
      written.unanswered = ids;
      return written;
    }
    const items = (res.body as { items: { index: { _id: string; _version: number; status: number } }[] }).items;
    for (const it of items) if (it.index.status < 300) acked.set(it.index._id, it.index._version);
    try {
      await http(server.url, 'POST', `/${INDEX}/_flush`);
    } catch {
      return written;
    }
  }
  return written;
}

/** Files of the index's segment folders that are not a file of a complete segment. */
function segmentFolders(dir: string): string[] {
  const out: string[] = [];
  const indices = join(dir, 'indices');
  for (const uuid of readdirSync(indices)) for (const shard of readdirSync(join(indices, uuid))) out.push(join(indices, uuid, shard, 'segments'));
  return out;
}

function bytesOfSegmentFiles(dir: string): number {
  let n = 0;
  for (const folder of segmentFolders(dir)) {
    for (const name of readdirSync(folder)) if (!name.endsWith('.liv')) n += statSync(join(folder, name)).size;
  }
  return n;
}

function incompleteSegments(dir: string): string[] {
  const out: string[] = [];
  for (const folder of segmentFolders(dir)) {
    const names = new Set(readdirSync(folder));
    for (const name of names) {
      const m = /^(_[0-9a-z]+)\.si$/.exec(name);
      const base = m?.[1] ?? /^(_[0-9a-z]+)\./.exec(name)?.[1];
      if (base === undefined) continue;
      for (const kind of ['si', ...DATA_FILES]) if (!names.has(`${base}.${kind}`)) out.push(`${folder}/${base}.${kind} missing`);
    }
  }
  return out;
}

// Refreshes keep segments in memory; commits (here `_flush` after each batch) and merges write them.
for (const point of ['segment-before-info@5', 'merge-written@1', 'commit-files-synced@3', 'commit-durable@3'] as const) {
  test(`kill -9 at ${point}: every acknowledged write is there once after the restart, and no file is left over`, { timeout: 120_000 }, async () => {
    const dir = await tempDir('segment-crash-');
    try {
      let server = await spawnWithCrashPoint(dir, point);
      await http(server.url, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
      // Commits come COMMIT_INTERVAL_MS after the last: pause between batches until one does.
      const { acked, unanswered } = await writeUntilDead(server, 40);
      const exit = await Promise.race([server.exited, new Promise<'alive'>((r) => setTimeout(() => r('alive'), 15_000))]);
      if (exit === 'alive') server.child.kill('SIGKILL');
      assert.notEqual(exit, 'alive', `the node reached ${point} and was killed there`);
      assert.ok(acked.size > 0);

      server = await spawnWithCrashPoint(dir, null);
      try {
        // The batch cut short may have reached the log before the kill: then all of it is there, applied once.
        const cut = unanswered.length === 0 ? { docs: [] } : ((await http(server.url, 'POST', `/${INDEX}/_doc/_mget`, { ids: unanswered })).body as { docs: { _id: string; found: boolean; _version: number }[] });
        const cutFound = cut.docs.filter((d) => d.found);
        // A batch that rewrites earlier ids shows as its versions, one above the acknowledged ones.
        const cutApplied = cutFound.length > 0 && cutFound.every((d) => d._version === (acked.get(d._id) ?? 0) + 1);
        assert.ok(cutFound.length === 0 || (cutFound.length === unanswered.length && cutApplied), 'a batch is all in the log, applied once, or not at all');
        const expected = new Map(acked);
        for (const d of cutFound) expected.set(d._id, d._version);
        const res = await http(server.url, 'POST', `/${INDEX}/_doc/_mget`, { ids: [...acked.keys()] });
        for (const d of (res.body as { docs: { _id: string; found: boolean; _version: number }[] }).docs) {
          assert.equal(d.found, true, `acknowledged ${d._id} is there`);
          assert.equal(d._version, expected.get(d._id), `${d._id} has the version its acknowledgement reported (or the cut batch's, once)`);
        }
        const present = new Set(expected.keys());
        // Written to disk, so that the segment files on disk are every live segment.
        await http(server.url, 'POST', `/${INDEX}/_flush`);
        const count = (await http(server.url, 'GET', `/${INDEX}/_count`)).body as { count: number };
        assert.equal(count.count, present.size, 'each document once');
        assert.deepEqual(incompleteSegments(dir), []);
        const cat = (await http(server.url, 'GET', `/_cat/indices/${INDEX}?format=json&bytes=b&h=store.size`)).body as { 'store.size': string }[];
        assert.equal(Number(cat[0]!['store.size']), bytesOfSegmentFiles(dir), 'every segment file on disk belongs to a live segment');
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
