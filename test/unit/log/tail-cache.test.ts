import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TailCache } from '../../../shared/log/embedded/tail-cache.ts';
import { prepareBatch, sealFrame } from '../../../shared/log/embedded/batch-format.ts';
import type { LogRecord } from '../../../shared/log/commit-log.ts';
import { randomBytes } from 'node:crypto';

async function frameOf(baseOffset: number, values: string[]): Promise<Buffer> {
  const prepared = await prepareBatch(values.map((v) => ({ value: Buffer.from(v) })));
  sealFrame(prepared.frame, baseOffset, Date.now());
  return prepared.frame;
}

test('the newest batch stays cached even when it is larger than the budget, until the next append', async () => {
  const cache = new TailCache(0, 1024, 60_000);
  cache.add(0, 2, await frameOf(0, ['a', 'b']));
  // Random bytes: the frame stays larger than the budget once compressed.
  const big = randomBytes(3072).toString('base64');
  cache.add(2, 1, await frameOf(2, [big]));
  assert.equal(cache.startOffset, 2, 'the older batch went to make room, the large one stayed');
  const out: LogRecord[] = [];
  cache.read(2, 10, out);
  assert.deepEqual(out.map((r) => [r.offset, r.value.length]), [[2, 4096]]);
  cache.add(3, 1, await frameOf(3, ['c']));
  assert.equal(cache.startOffset, 3, 'the large batch is evicted by the next one');
  const next: LogRecord[] = [];
  cache.read(3, 10, next);
  assert.deepEqual(next.map((r) => r.value.toString()), ['c']);
});

test('a newest batch larger than the budget is dropped after a while when nothing follows it', async () => {
  const cache = new TailCache(0, 1024, 20);
  cache.add(0, 1, await frameOf(0, [randomBytes(3072).toString('base64')]));
  assert.equal(cache.startOffset, 0, 'kept for the copies that follow');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(cache.startOffset, 1, 'dropped: the partition ends where nothing is cached');
});
