/**
 * Searches before indexing (shared/steps/searches-first.ts, issue 11 item
 * 6): while a shard search is in flight, a copy's apply of a large batch
 * leaves the thread idle between its slices, so the threads serving the
 * search get the cores; with none in flight it runs as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopyEngine, indexMetaOf } from '../../../services/node/shard-worker/copy-engine.ts';
import { packRecordBatch } from '../../../services/node/shard-worker/record-batch.ts';
import { parseIndexSettings } from '../../../shared/engine/mapping/index-settings.ts';
import { docOpCodec, type DocOp } from '../../../shared/records/doc-op.ts';
import type { LogRecord } from '../../../shared/log/commit-log.ts';
import {
  adoptSearchesInFlight,
  searchAnswerReceived,
  searchAnswerWaiting,
  searchEnded,
  searchStarted,
  searchesInFlight,
  searchesInFlightBuffer,
  workerSearchCounts,
  yieldToSearches,
} from '../../../shared/steps/searches-first.ts';
import { TimeSlice } from '../../../shared/steps/time-slice.ts';

async function openCopy(): Promise<{ engine: CopyEngine; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'searches-first-'));
  const mapping = { properties: { k: { type: 'keyword' }, msg: { type: 'text' }, n: { type: 'long' } } };
  const meta = indexMetaOf(
    { name: 'sf', uuid: 'sf-uuid', settings: parseIndexSettings({ number_of_shards: 1 }), typeName: '_doc', mappingJson: JSON.stringify(mapping), mappingVersion: 1, rebuilding: false },
    null,
  );
  const { engine } = await CopyEngine.open(0, meta, join(dir, 'copy'), { onStats: () => undefined, onError: () => undefined });
  return { engine, dir };
}

/** Records at offsets `from`.. indexing the documents doc-0..doc-(count-1), overwriting them after the first time. */
function batch(from: number, count: number): Uint8Array {
  const records: LogRecord[] = [];
  for (let i = 0; i < count; i++) {
    const op: DocOp = {
      request_id: 'r',
      item: i,
      op: 'INDEX',
      index_uuid: 'sf-uuid',
      type: '_doc',
      id: `doc-${i}`,
      routing: null,
      source: Buffer.from(JSON.stringify({ k: `key-${from + i}`, msg: `a log line of some length, number ${from + i}, with words to index`, n: from + i })),
      version: null,
      version_type: 'INTERNAL',
      if_seq_no: null,
      if_primary_term: null,
      update: null,
      timestamp: 0,
    };
    records.push({ offset: from + i, value: docOpCodec.encode(op), key: null, headers: {}, timestamp: 0 });
  }
  return packRecordBatch(records);
}

/**
 * Applies `bytes`, counting the ticks of a 1 ms timer meanwhile: a timer
 * fires once per turn of the event loop while the thread works in slices,
 * and about once a millisecond while it waits idle. The documents are in
 * the version map already (overwrites): no read of the store leaves the
 * thread idle.
 */
async function tickedApply(engine: CopyEngine, bytes: Uint8Array): Promise<{ ms: number; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const t0 = performance.now();
  try {
    const reply = await engine.apply(0, bytes);
    assert.ok(reply.results.every((r) => r >= 0));
  } finally {
    clearInterval(timer);
  }
  return { ms: performance.now() - t0, ticks };
}

const told = (runs: Record<string, { ms: number; ticks: number }>) =>
  Object.entries(runs)
    .map(([what, r]) => `${what}: ${r.ms.toFixed(0)} ms, ${r.ticks} ticks`)
    .join('; ');

test('an apply leaves its thread idle between slices while a shard search is in flight, and runs on without one', async () => {
  const { engine, dir } = await openCopy();
  try {
    const N = 12_000;
    // Warm: the code compiled, the documents in the version map.
    await engine.apply(0, batch(0, N));
    const free = await tickedApply(engine, batch(N, N));
    assert.equal(searchesInFlight(), 0);
    searchStarted();
    let gated: { ms: number; ticks: number };
    try {
      gated = await tickedApply(engine, batch(2 * N, N));
    } finally {
      searchEnded();
    }
    assert.equal(searchesInFlight(), 0);
    const after = await tickedApply(engine, batch(3 * N, N));
    const figures = told({ 'without a search': free, 'with one in flight': gated, after });
    // Long enough to take several slices: otherwise nothing is measured.
    assert.ok(free.ticks >= 4, figures);
    // In flight for the whole apply: an idle wait of up to GATE_MAX_MS after each slice (SLICE_MS) of work.
    assert.ok(gated.ticks >= 3 * Math.max(free.ticks, after.ticks), figures);
    // Bounded: the apply goes on while the search stays in flight.
    assert.ok(gated.ms < 6 * Math.max(free.ms, after.ms), figures);
    await engine.close(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an apply a queued search of its copy waits for does not wait for the searches in flight', async () => {
  const { engine, dir } = await openCopy();
  try {
    const N = 12_000;
    await engine.apply(0, batch(0, N));
    searchStarted();
    try {
      const gated = await tickedApply(engine, batch(N, N));
      // The apply, then a refresh, then this copy's search: the search waits for the refresh, which waits for the apply.
      const applied = tickedApply(engine, batch(2 * N, N));
      const refreshed = engine.refresh();
      let answered = false;
      const search = engine.search(() => (answered = true));
      const queued = await applied;
      await refreshed;
      await search;
      assert.equal(answered, true);
      const figures = told({ 'with a search in flight': gated, 'with a search of the copy queued behind it too': queued });
      assert.ok(gated.ticks >= 4, figures);
      assert.ok(3 * queued.ticks <= gated.ticks, figures);
    } finally {
      searchEnded();
    }
    await engine.close(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a search on its way to the worker ends the apply\'s slice at once', async () => {
  const { engine, dir } = await openCopy();
  // What a shard worker is given: the node's count of searches in flight, and of those posted to this worker and not received.
  const posted = new Int32Array(new SharedArrayBuffer(4));
  adoptSearchesInFlight(searchesInFlightBuffer(), posted.buffer as SharedArrayBuffer);
  try {
    const N = 6_000;
    await engine.apply(0, batch(0, N));
    /** Turns of the event loop while `bytes` is applied. */
    const turnsOf = async (bytes: Uint8Array): Promise<number> => {
      let turns = 0;
      let on = true;
      const tick = () => {
        turns++;
        if (on) setImmediate(tick);
      };
      setImmediate(tick);
      await engine.apply(0, bytes);
      on = false;
      return turns;
    };
    const free = await turnsOf(batch(N, N));
    // The worker takes the message at its next turn (worker-main.ts decrements the count); until then, a turn after each document.
    Atomics.store(posted, 0, 1);
    let waiting: number;
    try {
      waiting = await turnsOf(batch(2 * N, N));
    } finally {
      Atomics.store(posted, 0, 0);
    }
    const figures = `${free} turns without a search on its way, ${waiting} with one, for ${N} documents`;
    assert.ok(waiting >= N / 2, figures);
    assert.ok(free <= N / 50, figures);
    await engine.close(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('on the HTTP thread, an indexing slice ends as soon as a worker\'s answer to a search is waiting, and not for a worker that stopped', () => {
  const worker = workerSearchCounts();
  const other = workerSearchCounts();
  try {
    const slice = new TimeSlice(yieldToSearches, searchAnswerWaiting);
    assert.equal(slice.due(), false, 'a slice just begun, nothing waiting');
    // A worker posts its answer (worker-main.ts counts it first).
    Atomics.add(worker.counts, 1, 1);
    assert.equal(searchAnswerWaiting(), true);
    assert.equal(slice.due(), true, 'an answer is waiting: the slice ends now');
    searchAnswerReceived(worker.counts);
    assert.equal(slice.due(), false, 'received: the slice runs on');
    // A worker that died with an answer counted and never delivered stops counting.
    Atomics.add(other.counts, 1, 1);
    assert.equal(slice.due(), true);
    other.drop();
    assert.equal(slice.due(), false);
  } finally {
    worker.drop();
    other.drop();
  }
});
