/**
 * Child process for the embedded log's crash test: appends batches to two
 * partitions forever, several in flight at once, and prints one line per
 * acknowledged batch: `ack <partition> <baseOffset> <batchNo> <count>`.
 * The test kills it with SIGKILL and checks that every acknowledged batch
 * survived. Stdout is a pipe, which Node writes synchronously on Linux, so a
 * printed line was acknowledged before the kill.
 *
 *   node --import tsx test/helpers/log-crash-writer.ts <dir> <topic>
 */
import { pathToFileURL } from 'node:url';
import { EmbeddedLog } from '../../shared/log/embedded-log.ts';
import type { AppendRecord } from '../../shared/log/commit-log.ts';

/**
 * The value of record `j` of batch `batchNo`: self-describing, with a length
 * that varies, and pseudo-random letters that compress little (so the crash
 * lands among several log segments, compressed batches or not).
 */
export function crashTestValue(batchNo: number, j: number): Buffer {
  const head = `${batchNo}:${j}:`;
  const n = (batchNo * 31 + j * 7) % 1500;
  const out = Buffer.alloc(head.length + n);
  out.write(head, 'latin1');
  let x = (batchNo * 7919 + j * 104729 + 1) >>> 0;
  for (let i = head.length; i < out.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = 97 + (x >>> 27);
  }
  return out;
}

export function crashTestBatchSize(batchNo: number): number {
  return 1 + ((batchNo * 13) % 200);
}

async function main(): Promise<void> {
  const [dir, topic] = process.argv.slice(2);
  if (dir === undefined || topic === undefined) throw new Error('usage: log-crash-writer.ts <dir> <topic>');
  // Small segments, so the crash can also land around a segment roll.
  const log = await EmbeddedLog.open(dir, { segmentBytes: 1024 * 1024 });
  await log.ensureTopic(topic, 2);
  process.stdout.write('ready\n');
  let nextBatch = 0;
  const writer = async (partition: number): Promise<never> => {
    for (;;) {
      const batchNo = nextBatch++;
      const count = crashTestBatchSize(batchNo);
      const records: AppendRecord[] = [];
      for (let j = 0; j < count; j++) {
        records.push({ value: crashTestValue(batchNo, j), key: Buffer.from(`k${batchNo}`), headers: { batch: String(batchNo) } });
      }
      const { baseOffset } = await log.append(topic, partition, records);
      process.stdout.write(`ack ${partition} ${baseOffset} ${batchNo} ${count}\n`);
    }
  };
  // Three appends in flight per partition: exercises queued batches written together.
  await Promise.all([0, 0, 0, 1, 1, 1].map(writer));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
