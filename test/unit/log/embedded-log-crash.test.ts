/**
 * A real crash: a child process appends as fast as it can and prints every
 * acknowledged batch; it is killed with SIGKILL mid-stream; the log, opened
 * again, must hold every acknowledged batch, dense offsets, and no half batch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedLog } from '../../../shared/log/embedded-log.ts';
import type { LogRecord } from '../../../shared/log/commit-log.ts';
import { crashTestBatchSize, crashTestValue } from '../../helpers/log-crash-writer.ts';

const WRITER = fileURLToPath(new URL('../../helpers/log-crash-writer.ts', import.meta.url));
const TOPIC = 'crash.vehicles.uuid-1';

interface Ack {
  readonly partition: number;
  readonly baseOffset: number;
  readonly batchNo: number;
  readonly count: number;
}

/** Runs the writer until it has acknowledged `acksBeforeKill` batches, then kills it with SIGKILL. */
async function runAndKill(dir: string, acksBeforeKill: number): Promise<Ack[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, TOPIC], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acks: Ack[] = [];
  let stderr = '';
  let pending = '';
  let killed = false;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!; // a line cut by the kill is not an acknowledgement
    for (const line of lines) {
      const m = /^ack (\d+) (\d+) (\d+) (\d+)$/.exec(line);
      if (m === null) continue;
      acks.push({ partition: Number(m[1]), baseOffset: Number(m[2]), batchNo: Number(m[3]), count: Number(m[4]) });
    }
    if (!killed && acks.length >= acksBeforeKill) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  assert.equal(signal, 'SIGKILL', `writer exited by itself (code ${code}): ${stderr}`);
  assert.ok(killed, `writer was killed before ${acksBeforeKill} acknowledgements (got ${acks.length}): ${stderr}`);
  return acks;
}

async function readAll(log: EmbeddedLog, partition: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for (;;) {
    const batch = await log.read(TOPIC, partition, out.length, 5000);
    if (batch.length === 0) return out;
    out.push(...batch);
  }
}

/** Checks that a partition is a sequence of whole, intact batches; returns where each batch starts. */
function checkWholeBatches(records: readonly LogRecord[], partition: number): Map<number, number> {
  const starts = new Map<number, number>();
  let i = 0;
  while (i < records.length) {
    const first = records[i]!;
    const batchNo = Number(first.value.toString('latin1', 0, 12).split(':')[0]);
    const count = crashTestBatchSize(batchNo);
    assert.ok(i + count <= records.length, `partition ${partition}: batch ${batchNo} at offset ${i} is cut short`);
    for (let j = 0; j < count; j++) {
      const r = records[i + j]!;
      assert.equal(r.offset, i + j, 'offsets are dense');
      assert.ok(r.value.equals(crashTestValue(batchNo, j)), `partition ${partition}: record ${j} of batch ${batchNo} intact`);
      assert.equal(r.key?.toString(), `k${batchNo}`);
      assert.deepEqual({ ...r.headers }, { batch: String(batchNo) });
    }
    starts.set(batchNo, i);
    i += count;
  }
  return starts;
}

test('every batch acknowledged before kill -9 is there after reopening, whole, with dense offsets', { timeout: 30_000 }, async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'embedded-log-crash-'));
  try {
    for (const acksBeforeKill of [150, 400]) {
      const acks = await runAndKill(dir, acksBeforeKill);
      const log = await EmbeddedLog.open(dir, { segmentBytes: 1024 * 1024, onRecovery: () => {} });
      try {
        for (const partition of [0, 1]) {
          const records = await readAll(log, partition);
          assert.equal(await log.highWatermark(TOPIC, partition), records.length);
          const starts = checkWholeBatches(records, partition);
          for (const ack of acks.filter((a) => a.partition === partition)) {
            assert.equal(starts.get(ack.batchNo), ack.baseOffset, `acknowledged batch ${ack.batchNo} at offset ${ack.baseOffset}`);
          }
        }
        assert.ok((await fs.readdir(path.join(dir, 'topics', TOPIC, '0'))).filter((f) => f.endsWith('.log')).length > 1);
      } finally {
        await log.close();
      }
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
