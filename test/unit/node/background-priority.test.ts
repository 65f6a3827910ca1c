/**
 * Background threads give way to the threads that answer requests (issue 11,
 * item 6): the check thread of large documents and the merge thread run at
 * nice BACKGROUND_NICE, and the thread that made them does not.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocumentChecker, LARGE_DOCUMENT_BYTES } from '../../../services/node/coordinator/document-check.ts';
import { CHECK_CONTEXT } from '../../helpers/check-context.ts';
import { newThread } from '../../../services/node/shard-worker/new-thread.ts';
import type { MergeJob } from '../../../services/node/shard-worker/merge-runner.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { BACKGROUND_NICE } from '../../../shared/steps/background-priority.ts';

const linux = process.platform === 'linux';

/** The nice value of each thread of this process, by thread id. */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // After the command name: state is the 1st field, nice the 17th.
    out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

function backgroundThreads(): number {
  return [...niceByThread().values()].filter((n) => n === BACKGROUND_NICE).length;
}

const ctx = CHECK_CONTEXT;

const checker = new DocumentChecker();
const dir = await mkdtemp(join(tmpdir(), 'background-priority-'));
after(async () => {
  await checker.close();
  await rm(dir, { recursive: true, force: true });
});

test('the check thread of a large document runs at background priority; the thread that asked does not', { skip: !linux }, async () => {
  assert.equal(backgroundThreads(), 0);
  const big = Buffer.from(JSON.stringify({ text: 'x'.repeat(LARGE_DOCUMENT_BYTES) }));
  const out = await checker.check(Mapping.empty('_doc'), true, [{ docs: [big] }], ctx, () => true);
  assert.equal(out.errors[0], null);
  assert.equal(backgroundThreads(), 1, 'the check thread');
  assert.equal(niceByThread().get(process.pid), 0, 'the main thread keeps its priority');
});

test('the merge thread runs at background priority', { skip: !linux }, async () => {
  const before = backgroundThreads();
  // The thread merge-runner.ts starts, given a merge of no segment: it answers, and no file is needed.
  const thread = newThread(new URL('../../../services/node/shard-worker/merge-runner.ts', import.meta.url).href, './merge-thread', { name: 'merge' });
  try {
    const answered = new Promise((resolve) => thread.once('message', resolve));
    const job: MergeJob = { job: 1, dir, id: 1, sources: [] };
    thread.postMessage(job);
    await answered;
    assert.equal(backgroundThreads(), before + 1, 'the merge thread');
    assert.equal(niceByThread().get(process.pid), 0);
  } finally {
    await thread.terminate();
  }
});
