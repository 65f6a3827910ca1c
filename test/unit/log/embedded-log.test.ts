import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedLog } from '../../../shared/log/embedded-log.ts';
import type { EmbeddedLogOptions, RecoveryEvent } from '../../../shared/log/embedded-log.ts';
import type { AppendRecord, LogRecord } from '../../../shared/log/commit-log.ts';
import { generatePassRecords } from '../../../services/passinfo/pass-record-generator.ts';
import { offThreadCompressions } from '../../../shared/log/embedded/compress-thread.ts';

const TOPIC = 'test-cluster.vehicles.Zx3-uuid';

let dir: string;
let log: EmbeddedLog | null = null;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'embedded-log-test-'));
});

afterEach(async () => {
  await log?.close();
  log = null;
  await fs.rm(dir, { recursive: true, force: true });
});

async function openLog(options: EmbeddedLogOptions = {}): Promise<EmbeddedLog> {
  log = await EmbeddedLog.open(dir, options);
  return log;
}

async function reopen(options: EmbeddedLogOptions = {}): Promise<EmbeddedLog> {
  await log?.close();
  return openLog(options);
}

const values = (records: readonly LogRecord[]): string[] => records.map((r) => r.value.toString());
const batchOf = (...texts: string[]): AppendRecord[] => texts.map((t) => ({ value: Buffer.from(t) }));
const range = (n: number, prefix = 'r'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

async function segmentFiles(topicDir = TOPIC, partition = 0): Promise<string[]> {
  const pdir = path.join(dir, 'topics', topicDir, String(partition));
  return (await fs.readdir(pdir)).filter((f) => f.endsWith('.log')).sort().map((f) => path.join(pdir, f));
}

/** Resolves once `check` is true, polling briefly; fails after `ms`. */
async function eventually(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('append and read', () => {
  test('offsets start at 0, are dense, and a batch gets consecutive offsets', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 3);
    assert.equal(await l.highWatermark(TOPIC, 1), 0);
    assert.deepEqual(await l.append(TOPIC, 1, batchOf('a', 'b', 'c')), { baseOffset: 0 });
    assert.deepEqual(await l.append(TOPIC, 1, batchOf('d')), { baseOffset: 3 });
    assert.equal(await l.highWatermark(TOPIC, 1), 4);
    assert.equal(await l.highWatermark(TOPIC, 0), 0, 'partitions are independent');
    const records = await l.read(TOPIC, 1, 0, 100);
    assert.deepEqual(records.map((r) => r.offset), [0, 1, 2, 3]);
    assert.deepEqual(values(records), ['a', 'b', 'c', 'd']);
  });

  test('records keep key, headers and value exactly; missing key is null, missing headers empty', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    const before = Date.now();
    const binary = Buffer.from([0, 255, 1, 254, 0]);
    await l.append(TOPIC, 0, [
      { value: binary, key: Buffer.from('plate-京A12345'), headers: { traceparent: '00-abc-def-01', 'x-ü': 'wert ✓' } },
      { value: Buffer.alloc(0), key: Buffer.alloc(0) },
      { value: Buffer.from('plain') },
    ]);
    const [a, b, c] = await l.read(TOPIC, 0, 0, 10);
    assert.ok(a && b && c);
    assert.deepEqual(a.value, binary);
    assert.equal(a.key?.toString(), 'plate-京A12345');
    assert.deepEqual({ ...a.headers }, { traceparent: '00-abc-def-01', 'x-ü': 'wert ✓' });
    assert.ok(a.timestamp >= before && a.timestamp <= Date.now());
    assert.equal(b.value.length, 0);
    assert.deepEqual(b.key, Buffer.alloc(0), 'an empty key is not a null key');
    assert.equal(c.key, null);
    assert.deepEqual(c.headers, {});
  });

  test('the caller may reuse its buffers as soon as append returns', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    const value = Buffer.from('original');
    const done = l.append(TOPIC, 0, [{ value }]);
    value.write('mutated!');
    await done;
    assert.deepEqual(values(await l.read(TOPIC, 0, 0, 1)), ['original']);
  });

  test('read returns at most maxRecords from fromOffset, fewer at the end, none past it', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    await l.append(TOPIC, 0, batchOf(...range(10)));
    assert.deepEqual(values(await l.read(TOPIC, 0, 3, 4)), ['r3', 'r4', 'r5', 'r6']);
    assert.deepEqual(values(await l.read(TOPIC, 0, 8, 100)), ['r8', 'r9']);
    assert.deepEqual(await l.read(TOPIC, 0, 10, 100), []);
    assert.deepEqual(await l.read(TOPIC, 0, 50, 100), []);
    assert.deepEqual(await l.read(TOPIC, 0, 0, 0), []);
  });

  test('an empty batch takes no offset', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    await l.append(TOPIC, 0, batchOf('a'));
    assert.deepEqual(await l.append(TOPIC, 0, []), { baseOffset: 1 });
    assert.deepEqual(await l.append(TOPIC, 0, batchOf('b')), { baseOffset: 1 });
  });

  test('concurrent appends to one partition get offsets in call order', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => l.append(TOPIC, 0, batchOf(...range((i % 3) + 1, `b${i}-`)))),
    );
    let expected = 0;
    for (let i = 0; i < results.length; i++) {
      assert.equal(results[i]!.baseOffset, expected, `batch ${i}`);
      expected += (i % 3) + 1;
    }
    const all = await l.read(TOPIC, 0, 0, 1000);
    assert.equal(all.length, expected);
    assert.equal(all[0]!.value.toString(), 'b0-0');
    assert.equal(all[expected - 1]!.value.toString(), 'b49-1');
  });

  test('unknown topics, bad partitions and bad offsets are errors that name the topic and partition', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 2);
    await assert.rejects(l.append('nope', 0, batchOf('x')), /topic \[nope\] does not exist/);
    await assert.rejects(l.append(TOPIC, 2, batchOf('x')), /topic \[test-cluster.vehicles.Zx3-uuid\] has no partition \[2\]/);
    await assert.rejects(l.read(TOPIC, 0, -1, 10), /partition \[0\].*non-negative integer/);
    await assert.rejects(l.highWatermark('nope', 0), /does not exist/);
    await assert.rejects(
      l.append(TOPIC, 1, [{ value: 'not a buffer' as unknown as Buffer }]),
      /append to topic \[.*\] partition \[1\]: record 0 value must be a Buffer/,
    );
    assert.equal(await l.partitionCount('nope'), 0);
  });
});

describe('topics', () => {
  test('ensureTopic is idempotent, persists the partition count, and rejects another count', async () => {
    let l = await openLog();
    await l.ensureTopic(TOPIC, 4);
    await l.ensureTopic(TOPIC, 4);
    assert.equal(await l.partitionCount(TOPIC), 4);
    await assert.rejects(l.ensureTopic(TOPIC, 5), /topic \[test-cluster.vehicles.Zx3-uuid\] already exists with 4 partitions, not 5/);
    l = await reopen();
    assert.equal(await l.partitionCount(TOPIC), 4);
    await assert.rejects(l.ensureTopic(TOPIC, 2), /already exists with 4 partitions, not 2/);
    await assert.rejects(l.ensureTopic('other', 0), /partition count must be an integer/);
  });

  test('racing ensureTopic calls create the topic once', async () => {
    const l = await openLog();
    await Promise.all([l.ensureTopic(TOPIC, 2), l.ensureTopic(TOPIC, 2), l.ensureTopic(TOPIC, 2)]);
    assert.equal(await l.partitionCount(TOPIC), 2);
  });

  test('topic names with dots, dashes, slashes and unicode stay inside the log directory', async () => {
    let l = await openLog();
    const names = ['a.b-c_d', '../escape', '.hidden', 'x/y\\z', '索引.vehicles', 'a%2Fb', 'A'.repeat(300)];
    for (const [i, name] of names.entries()) {
      await l.ensureTopic(name, 1);
      await l.append(name, 0, batchOf(`v${i}`));
    }
    const dirs = await fs.readdir(path.join(dir, 'topics'));
    assert.equal(dirs.length, names.length);
    assert.ok(dirs.includes('a.b-c_d'), 'plain names are kept readable');
    assert.ok(dirs.every((d) => !d.startsWith('.') && !d.includes('/') && d.length <= 200), dirs.join(' '));
    assert.deepEqual(await fs.readdir(dir).then((e) => e.sort()), ['LOCK', 'topics']);
    l = await reopen();
    for (const [i, name] of names.entries()) {
      assert.deepEqual(values(await l.read(name, 0, 0, 10)), [`v${i}`], name);
    }
  });

  test('deleteTopic removes its files and ends its followers; a new topic of that name starts empty', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 2);
    await l.ensureTopic('other', 1);
    await l.append(TOPIC, 0, batchOf('a', 'b'));
    await l.append('other', 0, batchOf('kept'));
    const seen: string[] = [];
    const errors: Error[] = [];
    const sub = l.follow(TOPIC, 0, 0, async (records) => {
      seen.push(...values(records));
    }, { onError: (e) => errors.push(e) });
    await eventually(() => seen.length === 2);

    await l.deleteTopic(TOPIC);
    await sub.close();
    assert.deepEqual(errors, []);
    assert.equal(await l.partitionCount(TOPIC), 0);
    await assert.rejects(l.append(TOPIC, 0, batchOf('x')), /does not exist/);
    assert.deepEqual(await fs.readdir(path.join(dir, 'topics')), ['other']);
    await l.deleteTopic(TOPIC); // missing: not an error

    await l.ensureTopic(TOPIC, 3);
    assert.equal(await l.highWatermark(TOPIC, 0), 0);
    assert.deepEqual(await l.append(TOPIC, 0, batchOf('new')), { baseOffset: 0 });
    assert.deepEqual(values(await l.read('other', 0, 0, 10)), ['kept']);
  });
});

describe('follow', () => {
  test('delivers the backlog, then new records as they are appended, in order', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    await l.append(TOPIC, 0, batchOf(...range(25)));
    const seen: LogRecord[] = [];
    const batchSizes: number[] = [];
    const sub = l.follow(TOPIC, 0, 0, async (records) => {
      batchSizes.push(records.length);
      seen.push(...records);
    }, { maxBatch: 10 });
    await eventually(() => seen.length === 25);
    assert.deepEqual(batchSizes, [10, 10, 5]);
    await l.append(TOPIC, 0, batchOf('live1'));
    await l.append(TOPIC, 0, batchOf('live2', 'live3'));
    await eventually(() => seen.length === 28);
    assert.deepEqual(seen.map((r) => r.offset), Array.from({ length: 28 }, (_, i) => i));
    assert.deepEqual(values(seen.slice(25)), ['live1', 'live2', 'live3']);
    await sub.close();
  });

  test('a follower in the same process is woken by the append itself, not by polling', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    let delivered: (() => void) | null = null;
    const sub = l.follow(TOPIC, 0, 0, async () => {
      delivered?.();
    });
    await new Promise((r) => setTimeout(r, 20)); // the follower is now waiting
    for (let i = 0; i < 20; i++) {
      const got = new Promise<void>((resolve) => {
        delivered = resolve;
      });
      const start = performance.now();
      await l.append(TOPIC, 0, batchOf(`x${i}`));
      await got;
      assert.ok(performance.now() - start < 50, 'delivered at once');
    }
    await sub.close();
  });

  test('starts at fromOffset, and waits for it when it is beyond the end', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    await l.append(TOPIC, 0, batchOf(...range(5)));
    const seen: string[] = [];
    const mid = l.follow(TOPIC, 0, 3, async (r) => {
      seen.push(...values(r));
    });
    const ahead: string[] = [];
    const future = l.follow(TOPIC, 0, 7, async (r) => {
      ahead.push(...values(r));
    });
    await eventually(() => seen.length === 2);
    assert.deepEqual(seen, ['r3', 'r4']);
    await l.append(TOPIC, 0, batchOf('r5', 'r6', 'r7', 'r8'));
    await eventually(() => ahead.length === 2);
    assert.deepEqual(ahead, ['r7', 'r8']);
    await Promise.all([mid.close(), future.close()]);
  });

  test('one handler call at a time: the next batch is read only after the handler resolved', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    let total = 0;
    const sub = l.follow(TOPIC, 0, 0, async (records) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      total += records.length;
      running--;
    });
    for (let i = 0; i < 30; i++) await l.append(TOPIC, 0, batchOf(`v${i}`));
    await eventually(() => total === 30);
    assert.equal(maxRunning, 1);
    assert.ok(calls < 30, 'records appended while the handler ran arrive together');
    await sub.close();
  });

  test('close waits for the running handler, and close from inside the handler does not deadlock', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    await l.append(TOPIC, 0, batchOf('a'));
    let finished = false;
    let release!: () => void;
    let started!: () => void;
    const handlerStarted = new Promise<void>((r) => {
      started = r;
    });
    const sub = l.follow(TOPIC, 0, 0, async () => {
      started();
      await new Promise<void>((r) => {
        release = r;
      });
      finished = true;
    });
    await handlerStarted;
    const closing = sub.close();
    setTimeout(() => release(), 10);
    await closing;
    assert.equal(finished, true);

    let calls = 0;
    let selfSub: { close(): Promise<void> } | null = null;
    selfSub = l.follow(TOPIC, 0, 0, async () => {
      calls++;
      await selfSub!.close();
    });
    await l.append(TOPIC, 0, batchOf('b'));
    await eventually(() => calls === 1);
    await selfSub.close();
    await l.append(TOPIC, 0, batchOf('c'));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(calls, 1, 'no delivery after close');
  });

  test('a failing handler stops the follower and reaches onError', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    await l.append(TOPIC, 0, batchOf('a'));
    const errors: Error[] = [];
    let calls = 0;
    const sub = l.follow(TOPIC, 0, 0, async () => {
      calls++;
      throw new Error('apply failed');
    }, { onError: (e) => errors.push(e) });
    await eventually(() => errors.length === 1);
    assert.match(errors[0]!.message, /partition \[0\].*apply failed/);
    await l.append(TOPIC, 0, batchOf('b'));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(calls, 1);
    await sub.close();
  });

  test('following an unknown topic reports an error', async () => {
    const l = await openLog();
    const errors: Error[] = [];
    const sub = l.follow('missing', 0, 0, async () => {}, { onError: (e) => errors.push(e) });
    await sub.close();
    assert.equal(errors.length, 1);
    assert.match(errors[0]!.message, /topic \[missing\] does not exist/);
  });

  test('a follower far behind catches up from disk, past the tail cache', async () => {
    const l = await openLog({ tailCacheBytes: 2048, segmentBytes: 8192 });
    await l.ensureTopic(TOPIC, 1);
    for (let i = 0; i < 40; i++) await l.append(TOPIC, 0, batchOf(...range(10, `b${i}-`)));
    const seen: LogRecord[] = [];
    const sub = l.follow(TOPIC, 0, 0, async (records) => {
      seen.push(...records);
    }, { maxBatch: 33 });
    await eventually(() => seen.length === 400);
    assert.deepEqual(seen.map((r) => r.offset), Array.from({ length: 400 }, (_, i) => i));
    assert.equal(seen[399]!.value.toString(), 'b39-9');
    await sub.close();
  });
});

describe('on disk', () => {
  test('everything survives close and reopen, and appends continue at the next offset', async () => {
    let l = await openLog();
    await l.ensureTopic(TOPIC, 2);
    await l.append(TOPIC, 0, batchOf('a', 'b'));
    await l.append(TOPIC, 1, [{ value: Buffer.from('c'), key: Buffer.from('k'), headers: { h: 'v' } }]);
    l = await reopen();
    assert.equal(await l.highWatermark(TOPIC, 0), 2);
    const [c] = await l.read(TOPIC, 1, 0, 1);
    assert.equal(c?.value.toString(), 'c');
    assert.equal(c?.key?.toString(), 'k');
    assert.deepEqual({ ...c?.headers }, { h: 'v' });
    assert.deepEqual(await l.append(TOPIC, 0, batchOf('d')), { baseOffset: 2 });
    assert.deepEqual(values(await l.read(TOPIC, 0, 0, 10)), ['a', 'b', 'd']);
  });

  test('segments roll at segmentBytes; reads cross them; reopening uses saved indexes or rescans without them', async () => {
    let l = await openLog({ segmentBytes: 4096 });
    await l.ensureTopic(TOPIC, 1);
    const expected: string[] = [];
    for (let i = 0; i < 60; i++) {
      const batch = range((i % 7) + 1, `s${i}-`).map((t) => t.padEnd(100, '.'));
      expected.push(...batch);
      await l.append(TOPIC, 0, batchOf(...batch));
    }
    const files = await segmentFiles();
    assert.ok(files.length >= 5, `${files.length} segment files`);
    for (const f of files.slice(0, -1)) assert.ok((await fs.stat(f)).size <= 4096);
    assert.deepEqual(values(await l.read(TOPIC, 0, 0, 10_000)), expected);
    assert.deepEqual(values(await l.read(TOPIC, 0, 37, 50)), expected.slice(37, 87));

    l = await reopen({ segmentBytes: 4096 });
    assert.deepEqual(values(await l.read(TOPIC, 0, 0, 10_000)), expected);
    await l.close();
    for (const f of files) await fs.rm(f.replace(/\.log$/, '.index'), { force: true });
    l = await openLog({ segmentBytes: 4096 });
    assert.equal(await l.highWatermark(TOPIC, 0), expected.length);
    assert.deepEqual(values(await l.read(TOPIC, 0, 100, 60)), expected.slice(100, 160));
    await l.append(TOPIC, 0, batchOf('after'));
    assert.deepEqual(values(await l.read(TOPIC, 0, expected.length, 5)), ['after']);
  });

  test('a batch larger than a segment gets a segment of its own', async () => {
    const l = await openLog({ segmentBytes: 1024 });
    await l.ensureTopic(TOPIC, 1);
    await l.append(TOPIC, 0, batchOf('small'));
    // Random text: larger than a segment even compressed.
    await l.append(TOPIC, 0, batchOf(randomBytes(3750).toString('base64')));
    await l.append(TOPIC, 0, batchOf('small again'));
    assert.equal((await segmentFiles()).length, 3);
    assert.deepEqual(values(await l.read(TOPIC, 0, 0, 5)).map((v) => v.length), [5, 5000, 11]);
  });

  for (const [name, damage] of [
    ['garbage after the last batch', async (file: string) => fs.appendFile(file, Buffer.from([0x17, 0, 0, 0, 0xde, 0xad, 0xbe]))],
    ['half of a batch', async (file: string) => {
      const size = (await fs.stat(file)).size;
      await fs.truncate(file, size - 40);
    }],
    ['a batch with a flipped byte', async (file: string) => {
      const fh = await fs.open(file, 'r+');
      const size = (await fh.stat()).size;
      await fh.write(Buffer.from([0x42]), 0, 1, size - 3);
      await fh.close();
    }],
  ] as const) {
    test(`a torn tail (${name}) is cut off at open; everything before it is intact`, async () => {
      let l = await openLog();
      await l.ensureTopic(TOPIC, 1);
      await l.append(TOPIC, 0, batchOf('one', 'two'));
      await l.append(TOPIC, 0, batchOf('three'));
      const lastBatch = batchOf(...range(5, 'last').map((t) => t.padEnd(20, '!')));
      await l.append(TOPIC, 0, lastBatch);
      await l.close();
      const [file] = await segmentFiles();
      const sizeBefore = (await fs.stat(file!)).size;
      await damage(file!);

      const recoveries: RecoveryEvent[] = [];
      l = await openLog({ onRecovery: (e) => recoveries.push(e) });
      assert.equal(recoveries.length, 1);
      assert.equal(recoveries[0]!.topic, TOPIC);
      const damagedTheLastBatch = name !== 'garbage after the last batch';
      const expected = damagedTheLastBatch ? ['one', 'two', 'three'] : ['one', 'two', 'three', ...values(lastBatch as LogRecord[])];
      assert.equal(await l.highWatermark(TOPIC, 0), expected.length);
      assert.deepEqual(values(await l.read(TOPIC, 0, 0, 100)), expected);
      if (!damagedTheLastBatch) assert.equal((await fs.stat(file!)).size, sizeBefore);
      assert.deepEqual(await l.append(TOPIC, 0, batchOf('next')), { baseOffset: expected.length });

      l = await reopen({ onRecovery: (e) => recoveries.push(e) });
      assert.equal(recoveries.length, 1, 'nothing more to repair');
      assert.deepEqual(values(await l.read(TOPIC, 0, 0, 100)), [...expected, 'next']);
    });
  }

  test('damage inside a sealed segment is reported, not silently dropped', async () => {
    const l = await openLog({ segmentBytes: 512 });
    await l.ensureTopic(TOPIC, 1);
    for (let i = 0; i < 10; i++) await l.append(TOPIC, 0, batchOf(`v${i}`.padEnd(200, '-')));
    await l.close();
    log = null;
    const [first] = await segmentFiles();
    await fs.rm(first!.replace(/\.log$/, '.index'));
    const fh = await fs.open(first!, 'r+');
    await fh.write(Buffer.from('XX'), 0, 2, 40);
    await fh.close();
    await assert.rejects(EmbeddedLog.open(dir, { segmentBytes: 512 }), /partition \[0\]: .*00000000000000000000\.log is corrupt at byte 0: CRC mismatch/);
  });

  test('fsync mode appends and reads back', async () => {
    let l = await openLog({ fsync: true, segmentBytes: 2048 });
    await l.ensureTopic(TOPIC, 1);
    for (let i = 0; i < 10; i++) await l.append(TOPIC, 0, batchOf(`f${i}`.padEnd(300, '.')));
    l = await reopen({ fsync: true });
    assert.equal((await l.read(TOPIC, 0, 0, 100)).length, 10);
  });

  test('close ends followers, refuses further calls, and frees the directory for the next open', async () => {
    const l = await openLog();
    await l.ensureTopic(TOPIC, 1);
    await assert.rejects(EmbeddedLog.open(dir), /already open by this process/);
    const errors: Error[] = [];
    const sub = l.follow(TOPIC, 0, 0, async () => {}, { onError: (e) => errors.push(e) });
    const pending = l.append(TOPIC, 0, batchOf('queued before close'));
    await l.close();
    assert.deepEqual(await pending, { baseOffset: 0 }, 'appends made before close complete');
    await sub.close();
    assert.deepEqual(errors, []);
    await assert.rejects(l.append(TOPIC, 0, batchOf('x')), /is closed/);
    await assert.rejects(l.read(TOPIC, 0, 0, 1), /is closed/);
    const again = await openLog();
    assert.deepEqual(values(await again.read(TOPIC, 0, 0, 10)), ['queued before close']);
  });
});

test('batches of pass records are compressed on disk and read back byte for byte', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'log-compress-'));
  try {
    const log = await EmbeddedLog.open(dir);
    await log.ensureTopic('t', 1);
    const records = [...generatePassRecords({ count: 2000 })].map((r) => Buffer.from(JSON.stringify(r)));
    await log.append('t', 0, records.map((value) => ({ value, headers: { traceparent: '00-abc-def-01' } })));
    await log.append('t', 0, [{ value: Buffer.from('{"one":"small"}') }]);
    const read = await log.read('t', 0, 0, 5000);
    assert.deepEqual(
      read.map((r) => r.value.toString()),
      [...records.map((r) => r.toString()), '{"one":"small"}'],
    );
    assert.equal(read[5]!.headers.traceparent, '00-abc-def-01');
    await log.close();
    let onDisk = 0;
    for (const f of await fs.readdir(dir, { recursive: true })) {
      const stat = await fs.stat(path.join(dir, f));
      if (stat.isFile() && f.endsWith('.log')) onDisk += stat.size;
    }
    const raw = records.reduce((n, r) => n + r.length, 0);
    assert.ok(onDisk < raw / 3, `${onDisk} bytes on disk for ${raw} bytes of records`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('records of one batch that share headers, and those that do not, read back each with its own', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'log-headers-'));
  try {
    const log = await EmbeddedLog.open(dir);
    await log.ensureTopic('t', 1);
    const a = { traceparent: '00-aaa-01-01' };
    const b = { traceparent: '00-bbb-01-01', tracestate: 'x=1' };
    const same = { traceparent: '00-aaa-01-01' };
    const heads = [a, a, b, undefined, a, same, {}, b];
    await log.append('t', 0, heads.map((headers, i) => ({ value: Buffer.from(`r${i}`), headers })));
    const read = await log.read('t', 0, 0, 100);
    assert.deepEqual(
      read.map((r) => ({ ...r.headers })),
      heads.map((h) => ({ ...(h ?? {}) })),
    );
    assert.deepEqual(read.map((r) => r.value.toString()), heads.map((_, i) => `r${i}`));
    await log.close();
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('large batches are compressed on the compression thread and keep their place among the appends around them', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'log-compress-thread-'));
  try {
    const log = await EmbeddedLog.open(dir);
    await log.ensureTopic('t', 1);
    const before = offThreadCompressions();
    // Compressible records, 400 KB a batch (over OFF_THREAD_BYTES), between small ones, all appended in one turn.
    const large = (tag: string) => Array.from({ length: 100 }, (_, i) => ({ value: Buffer.from(`${tag}:${i}:${'pass record text '.repeat(240)}`) }));
    const batches = [large('a'), [{ value: Buffer.from('small-1') }], large('b'), [{ value: Buffer.from('small-2') }], large('c')];
    const results = await Promise.all(batches.map((b) => log.append('t', 0, b)));
    assert.deepEqual(
      results.map((r) => r.baseOffset),
      [0, 100, 101, 201, 202],
    );
    assert.equal(offThreadCompressions() - before, 3);
    const expected = batches.flat().map((r) => r.value.toString());
    // From the tail cache (the uncompressed frames), then from disk after a restart.
    assert.deepEqual((await log.read('t', 0, 0, 1000)).map((r) => r.value.toString()), expected);
    await log.close();
    const again = await EmbeddedLog.open(dir);
    assert.deepEqual((await again.read('t', 0, 0, 1000)).map((r) => r.value.toString()), expected);
    await again.close();
    let onDisk = 0;
    for (const f of await fs.readdir(dir, { recursive: true })) {
      const stat = await fs.stat(path.join(dir, f));
      if (stat.isFile() && f.endsWith('.log')) onDisk += stat.size;
    }
    assert.ok(onDisk < 1_200_000 / 10, `${onDisk} bytes on disk: the large batches were not compressed`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
