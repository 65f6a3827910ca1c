/**
 * The document check thread (document-check.ts starts it): parses large
 * documents against their index's mapping away from the thread that serves
 * HTTP, and answers each job with the extended mapping or the document's
 * error.
 */
import { parentPort } from 'node:worker_threads';
import { runAtBackgroundPriority } from '../../../shared/steps/background-priority.ts';
import { runCheckJob, type CheckJob, type CheckJobResult } from './document-check.ts';

const port = parentPort;
if (port === null) throw new Error('document-check-thread.ts runs in a worker thread');
// Large documents' checks give way to the threads that answer requests (background-priority.ts).
runAtBackgroundPriority();

port.on('message', (job: CheckJob) => {
  let result: CheckJobResult;
  try {
    result = runCheckJob(job);
  } catch (err) {
    result = { job: job.job, updatedJson: null, errors: [], failure: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  port.postMessage(result, result.body === undefined ? [] : [result.body.buffer as ArrayBuffer]);
});
