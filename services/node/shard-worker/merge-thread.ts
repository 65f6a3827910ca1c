/**
 * A shard worker's merge thread (merge-runner.ts starts it): writes the
 * merges the worker's copies plan, one at a time, while the worker goes on
 * applying ops and answering searches. A merge of millions of documents
 * takes minutes; written on the worker itself, it held every write to the
 * worker's copies that long (acknowledgements timed out at 60 s).
 *
 * The inputs are mapped again here and their files checked whole, checksum
 * included, as Lucene checks a merge's inputs (`checkIntegrity`): a byte may
 * have gone bad since the copy's open checked it (or the open checked only the
 * files' structure, `index.shard.check_on_startup: false`; docs/decisions/003),
 * and the merge reads every byte anyway. An input that fails is reported as damage
 * (the copy is rebuilt from the log). The output is the copy's to open, sync
 * and commit.
 */
import { parentPort } from 'node:worker_threads';
import { CorruptSegmentError } from '../../../shared/engine/codec/file-format.ts';
import { MappedSegment } from '../../../shared/engine/segment/mapped-segment.ts';
import { writeMerge } from '../../../shared/engine/segment/shard-index.ts';
import type { MergeJob, MergeJobResult } from './merge-runner.ts';
import { runAtBackgroundPriority } from '../../../shared/steps/background-priority.ts';

const port = parentPort;
if (port === null) throw new Error('merge-thread.ts runs in a worker thread');
// Merges give way to the threads that index and answer requests (background-priority.ts), as Elasticsearch throttles them.
runAtBackgroundPriority();

port.on('message', (job: MergeJob) => {
  const started = performance.now();
  const inputs: MappedSegment[] = [];
  let result: MergeJobResult;
  try {
    for (const source of job.sources) {
      const segment = MappedSegment.open(job.dir, source.segmentId, 'checksum');
      segment.adviseSequential();
      inputs.push(segment);
    }
    const written = writeMerge(
      job.dir,
      job.id,
      inputs.map((segment, k) => ({ segment, liveDocs: job.sources[k]!.liveDocs })),
    );
    result = { job: job.job, docMaps: written === null ? null : [...written.docMaps], ms: performance.now() - started, error: null, damaged: false };
  } catch (err) {
    const damaged = err instanceof CorruptSegmentError;
    const error = damaged ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    result = { job: job.job, docMaps: null, ms: performance.now() - started, error, damaged };
  } finally {
    for (const segment of inputs) segment.close();
  }
  port.postMessage(result, result.docMaps?.map((m) => m.buffer as ArrayBuffer) ?? []);
});
