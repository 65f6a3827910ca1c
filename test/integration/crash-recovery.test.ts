import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { spawnServer, tempDir, http } from '../helpers/server.ts';

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
