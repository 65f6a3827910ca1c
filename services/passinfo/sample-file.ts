/**
 * `passinfo generate`: sample pass records written as NDJSON, one record a
 * line in the form `import` reads, so a trial needs neither Kafka nor data
 * of its own. The records are the producer's (realistic plates,
 * checkpoints, day and night traffic, in time order).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { realisticRecords, type GeneratedStream } from './producer.ts';

export interface SampleFileResult {
  readonly records: number;
  readonly bytes: number;
}

/** Writes `opts.count` records to `out` (a path, or an open stream such as stdout); `progress` after every few thousand. */
export async function writeSampleFile(
  opts: GeneratedStream,
  out: string | NodeJS.WritableStream,
  progress?: (written: number) => void,
): Promise<SampleFileResult> {
  const stream: NodeJS.WritableStream | WriteStream = typeof out === 'string' ? createWriteStream(out) : out;
  let records = 0;
  let bytes = 0;
  let chunk = '';
  const write = async (text: string): Promise<void> => {
    bytes += Buffer.byteLength(text);
    if (!stream.write(text)) await once(stream, 'drain');
  };
  for (const r of realisticRecords(opts)) {
    chunk += `${JSON.stringify(r)}\n`;
    records++;
    if (records % 2000 === 0) {
      await write(chunk);
      chunk = '';
      progress?.(records);
    }
  }
  if (chunk) await write(chunk);
  progress?.(records);
  if (typeof out === 'string') {
    stream.end();
    await once(stream, 'finish');
  }
  return { records, bytes };
}
