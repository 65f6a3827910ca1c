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

test('the bytes of decoded records count in the budget: a compressed batch read takes the room of what it decompressed to', async () => {
  // Each batch: 40 records of 500 compressible bytes, about 20 KB decoded and a few hundred bytes compressed.
  const values = (b: number) => Array.from({ length: 40 }, (_, i) => `${b}-${i}-`.padEnd(500, 'x'));
  const cache = new TailCache(0, 64 * 1024, 60_000);
  for (let b = 0; b < 10; b++) cache.add(b * 40, 40, await frameOf(b * 40, values(b)));
  assert.equal(cache.startOffset, 0, 'ten compressed batches fit the budget');
  const out: LogRecord[] = [];
  cache.read(0, 400, out);
  assert.equal(out.length, 400, 'every record read');
  assert.equal(out[399]!.value.toString().startsWith('9-39-'), true);
  // 10 × 20 KB decoded does not fit 64 KB: the oldest batches went, the newest stay.
  assert.ok(cache.startOffset >= 240, `startOffset ${cache.startOffset}`);
  const rest: LogRecord[] = [];
  cache.read(cache.startOffset, 400, rest);
  assert.equal(rest.at(-1)!.offset, 399);
});
