/**
 * Runs the merges of a shard worker's copies on one merge thread
 * (merge-thread.ts), in the order they were asked for: on this 2-core
 * machine one merge at a time per worker, as Elasticsearch's merge scheduler
 * runs max(1, min(4, cores / 2)) merge threads. The thread starts with the
 * first merge and is replaced if it dies.
 */
import type { Worker } from 'node:worker_threads';
import { newThread } from './new-thread.ts';
import type { MergePlan, WrittenMerge } from '../../../shared/engine/segment/shard-index.ts';

/** One merge for the thread: write segment `id` of `dir` from `sources`. */
export interface MergeJob {
  readonly job: number;
  readonly dir: string;
  readonly id: number;
  readonly sources: MergePlan['sources'];
}

export interface MergeJobResult {
  readonly job: number;
  /** null with no error: the inputs had no live doc. */
  readonly docMaps: Int32Array[] | null;
  readonly ms: number;
  readonly error: string | null;
  /** The error is an input's file failing its check (CorruptSegmentError): the copy is damaged. */
  readonly damaged: boolean;
}

export interface MergeDone {
  readonly written: WrittenMerge | null;
  readonly ms: number;
}

/**
 * A merge input whose file failed its checksum: the copy holds a damaged
 * segment and is rebuilt from the log (a byte damaged since the copy's open,
 * or any byte of one opened with `index.shard.check_on_startup: false`).
 */
export class MergeInputDamaged extends Error {}

/** A merge that will not finish: its copy closed or reset while it waited or ran. */
export class MergeCancelled extends Error {
  constructor() {
    super('merge cancelled');
  }
}

interface Queued {
  readonly job: MergeJob;
  readonly owner: object;
  readonly resolve: (done: MergeDone) => void;
  readonly reject: (err: Error) => void;
}


export class MergeRunner {
  private thread: Worker | null = null;
  private readonly queue: Queued[] = [];
  private running: Queued | null = null;
  private nextJob = 1;

  /** Writes `plan` of the copy `owner` in `dir` on the merge thread, after the merges asked for before. */
  run(owner: object, dir: string, plan: MergePlan): Promise<MergeDone> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { job: this.nextJob++, dir, id: plan.id, sources: plan.sources }, owner, resolve, reject });
      this.next();
    });
  }

  /**
   * Drops the merges of `owner` (its copy closes or resets): the waiting ones
   * and, by stopping the thread, the one being written. Their promises reject
   * with MergeCancelled; the other copies' merges go on on a new thread.
   */
  async cancel(owner: object): Promise<void> {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const q = this.queue[i]!;
      if (q.owner !== owner) continue;
      this.queue.splice(i, 1);
      q.reject(new MergeCancelled());
    }
    const running = this.running;
    if (running === null || running.owner !== owner) return;
    const thread = this.thread!;
    this.thread = null;
    this.running = null;
    await thread.terminate();
    running.reject(new MergeCancelled());
    this.next();
  }

  private next(): void {
    if (this.running !== null) return;
    const q = this.queue.shift();
    if (q === undefined) return;
    this.running = q;
    this.threadNow().postMessage(q.job);
  }

  private threadNow(): Worker {
    if (this.thread !== null) return this.thread;
    const thread = newThread(import.meta.url, './merge-thread', { name: 'merge' });
    // The worker's port keeps it alive; a thread waiting for merges does not.
    thread.unref();
    thread.on('message', (result: MergeJobResult) => this.finished(thread, result));
    thread.on('error', (err) => this.lost(thread, err));
    thread.on('exit', (code) => this.lost(thread, new Error(`merge thread exited with code ${code}`)));
    this.thread = thread;
    return thread;
  }

  private finished(thread: Worker, result: MergeJobResult): void {
    const q = this.running;
    if (thread !== this.thread || q === null || q.job.job !== result.job) return;
    this.running = null;
    if (result.error !== null && result.damaged) q.reject(new MergeInputDamaged(result.error));
    else if (result.error !== null) q.reject(new Error(`merge into segment ${q.job.id} failed: ${result.error}`));
    else q.resolve({ written: result.docMaps === null ? null : { docMaps: result.docMaps }, ms: result.ms });
    this.next();
  }

  /** The thread died (not stopped by cancel): its merge fails, the next one gets a new thread. */
  private lost(thread: Worker, err: Error): void {
    if (thread !== this.thread) return;
    this.thread = null;
    const q = this.running;
    this.running = null;
    q?.reject(err);
    this.next();
  }
}

/** The merge runner of this shard worker (each worker thread loads its own). */
export const mergeRunner = new MergeRunner();
