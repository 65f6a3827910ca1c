/**
 * A copy's background tasks (merge planning after a refresh, the idle
 * commit) against the searches, refreshes and applies of the copy, in a
 * fixed interleaving. A background task queued behind a long task, then a
 * refresh, then a search: the background task waited for every search, the
 * search for the refresh, the refresh for the background task, and the copy
 * answered nothing more (a source shard of a scroll `_reindex` under writes
 * stopped answering searches, writes and its close).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopyEngine, indexMetaOf } from '../../../services/node/shard-worker/copy-engine.ts';
import { packRecordBatch } from '../../../services/node/shard-worker/record-batch.ts';
import { parseIndexSettings } from '../../../shared/engine/mapping/index-settings.ts';
import { nextTurn } from '../../../shared/steps/run-steps.ts';

async function openCopy(): Promise<{ engine: CopyEngine; dir: string; errors: unknown[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'copy-engine-bg-'));
  const meta = indexMetaOf(
    { name: 'bg', uuid: 'bg-uuid', settings: parseIndexSettings({ number_of_shards: 1 }), typeName: null, mappingJson: null, mappingVersion: 1, rebuilding: false },
    null,
  );
  const errors: unknown[] = [];
  const { engine } = await CopyEngine.open(0, meta, join(dir, 'copy'), { onStats: () => undefined, onError: (_c, err) => errors.push(err) });
  return { engine, dir, errors };
}

/** `p`'s value, or a failure naming `what` when it has not settled within `ms`. */
async function within<T>(p: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

function gate(): { held: Promise<void>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
}

test('a search queued behind a refresh that is queued behind a merge planning answers, and so do the refresh and the close', async () => {
  const { engine, dir, errors } = await openCopy();
  try {
    const long = gate();
    const refreshed = engine.refresh();
    // A long task of the copy (an apply in steps under load) queued after the refresh.
    const busy = engine.run(() => long.held);
    await refreshed;
    // The refresh planned merges after a turn: that background task is now queued behind the long one.
    await nextTurn();
    // The node's next refresh (or a settle), then a search of the scroll: both behind the background task.
    const refresh = engine.run(() => 'refreshed');
    const search = engine.search(() => 'answered');
    long.release();
    await busy;
    assert.equal(await within(search, 'the search'), 'answered');
    assert.equal(await within(refresh, 'the refresh'), 'refreshed');
    const applied = await within(engine.apply(0, packRecordBatch([]), 0), 'an apply after them');
    assert.equal(applied.results.length, 0);
    await within(engine.close(false), 'the close');
    assert.deepEqual(errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a merge planning waits for the search under way when it starts, and the applies queued behind it wait too', async () => {
  const { engine, dir, errors } = await openCopy();
  try {
    const searching = gate();
    const refreshed = engine.refresh();
    // Starts right after the refresh, before the merge planning is queued.
    let searched = false;
    const search = engine.search(() => searching.held.then(() => (searched = true)));
    await refreshed;
    await nextTurn();
    let applied = false;
    const apply = engine.apply(0, packRecordBatch([]), 0).then(() => (applied = true));
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.equal(applied, false, 'the apply behind the merge planning ran while the search was under way');
    searching.release();
    await within(search, 'the search');
    await within(apply, 'the apply');
    assert.equal(searched, true);
    await within(engine.close(false), 'the close');
    assert.deepEqual(errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
