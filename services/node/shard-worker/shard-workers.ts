/**
 * The node's shard worker threads (protocol.ts): each holds the searchable
 * segments of some of the node's shard copies, so analysis, indexing,
 * merges and shard searches run beside the main thread (HTTP, coordination,
 * the log and the doc stores) and beside each other, one core each.
 *
 * A worker that dies (a bug, memory) is replaced at once, and each copy it
 * held is told to rebuild its segments in the new one from its doc store,
 * which the main thread keeps: nothing acknowledged lives only in a worker.
 */
import type { Worker } from 'node:worker_threads';
import { adoptEarlyThread, newWorkerThread } from './early-threads.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { errorFromWire } from '../../../shared/errors/transport-errors.ts';
import type { ContextOwner } from '../search/search-contexts.ts';
import type { FromWorker, SegmentStats, ToWorker } from './protocol.ts';
import { MessageBatcher, type Port } from './message-batcher.ts';
import { searchAnswerReceived, searchEnded, searchPosted, searchesInFlightBuffer, workerSearchCounts } from '../../../shared/steps/searches-first.ts';

/** A request's message without its sequence number (added when sent). */
export type WorkerRequest = ToWorker extends infer M ? (M extends { seq: number } ? Omit<M, 'seq'> : never) : never;

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: Error) => void;
}

function workerGone(index: number, why: string): EsError {
  return new EsError('node_closed_exception', `shard worker [${index}] is not running: ${why}`, 500);
}

/** What a worker's copy hears from it. */
export interface SlotCopy {
  /** The index being rebuilt this copy belongs to (its uuid), else null: see ShardWorkers.place. */
  readonly rebuildGroup: string | null;
  onStats(stats: SegmentStats): void;
  onError(context: string, err: EsError): void;
  /** The worker died; `replacement` is the new one to rebuild in. */
  onWorkerLost(replacement: WorkerSlot): void;
}

/** One worker thread and the requests waiting for its answers. */
export class WorkerSlot implements ContextOwner {
  private readonly pending = new Map<number, Pending>();
  private readonly out: MessageBatcher<ToWorker>;
  private seq = 1;
  private gone: string | null = null;
  /** Searches posted to the worker and not received, its answers to them not received here (searches-first.ts). */
  private readonly searchCounts = workerSearchCounts();
  /** Requests that are searches (query, fetch), whose answers are counted. */
  private readonly searchSeqs = new Set<number>();
  /** Copies this worker holds, by copy id: its stats and error messages are routed to them. */
  readonly copies = new Map<number, SlotCopy>();

  constructor(
    readonly index: number,
    private readonly worker: Worker,
    onExit: (slot: WorkerSlot, why: string) => void,
  ) {
    this.out = new MessageBatcher<ToWorker>(worker as Port<ToWorker>);
    // Its indexing slices wait for the node's shard searches in flight, and end when one is posted to it (searches-first.ts).
    this.out.post({ t: 'searches', buffer: searchesInFlightBuffer(), posted: this.searchCounts.counts.buffer as SharedArrayBuffer });
    worker.on('message', (msg: FromWorker) => this.receive(msg));
    worker.on('error', (err) => this.fail(`failed: ${err.message}`, onExit));
    worker.on('exit', (code) => this.fail(`exited with code ${code}`, onExit));
  }

  private fail(why: string, onExit: (slot: WorkerSlot, why: string) => void): void {
    if (this.gone !== null) return;
    this.gone = why;
    this.endSearches();
    for (const p of this.pending.values()) p.reject(workerGone(this.index, why));
    this.pending.clear();
    onExit(this, why);
  }

  private receive(msg: FromWorker): void {
    switch (msg.t) {
      case 'batch':
        for (const m of msg.messages) this.receive(m);
        return;
      case 'reply':
      case 'fail': {
        if (this.searchSeqs.delete(msg.seq)) searchAnswerReceived(this.searchCounts.counts);
        const p = this.pending.get(msg.seq);
        if (p === undefined) return;
        this.pending.delete(msg.seq);
        if (msg.t === 'reply') p.resolve(msg.value);
        else p.reject(errorFromWire(msg.error));
        return;
      }
      case 'stats':
        this.copies.get(msg.copy)?.onStats(msg.stats);
        return;
      case 'error':
        this.copies.get(msg.copy)?.onError(msg.context, errorFromWire(msg.error));
        return;
    }
  }

  post(msg: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (this.gone !== null) return;
    this.out.post(msg, transfer);
  }

  request<T>(msg: WorkerRequest, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.gone !== null) return Promise.reject(workerGone(this.index, this.gone));
    const seq = this.seq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(seq, { resolve: resolve as (v: unknown) => void, reject });
      if (msg.t === 'query' || msg.t === 'fetch') {
        this.searchSeqs.add(seq);
        searchPosted(this.searchCounts.counts);
      }
      this.out.post({ ...msg, seq } as ToWorker, transfer);
    });
  }

  /** ContextOwner: the node freed a context whose view this worker pins. */
  release(id: number): void {
    this.post({ t: 'drop', contextIds: [id] });
  }

  /** Requests posted and not answered yet (thread pool stats). */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Whether the worker stopped (terminated, or died). */
  get stopped(): boolean {
    return this.gone !== null;
  }

  /** Stops the worker; it is not replaced. */
  async terminate(): Promise<void> {
    this.gone ??= 'stopped';
    this.endSearches();
    await this.worker.terminate();
  }

  /** The worker answers no more: its searches are not in flight, and answers it counted and never delivered would cut the HTTP thread's slices for good. */
  private endSearches(): void {
    this.searchCounts.drop();
    for (let n = this.searchSeqs.size; n > 0; n--) searchEnded();
    this.searchSeqs.clear();
  }

  /** Stops the worker as a crash would: it is replaced and its copies rebuilt (for tests). */
  async crash(): Promise<void> {
    await this.worker.terminate();
  }
}

export interface ShardWorkersOptions {
  /** Worker threads (at least 1). */
  readonly count: number;
  /** A worker stopped on its own (a crash); it has been replaced and its copies are rebuilding. */
  readonly onExit?: (index: number, why: string) => void;
}

/** Workers a rebuild may start beyond `count` (ShardWorkers.place). */
const EXTRA_WORKERS = 1;

function startWorker(index: number): Worker {
  return adoptEarlyThread(index) ?? newWorkerThread(index);
}

export class ShardWorkers {
  private readonly slots: WorkerSlot[] = [];
  private nextCopy = 1;
  private closed = false;

  private constructor(private readonly opts: ShardWorkersOptions) {}

  static async start(opts: ShardWorkersOptions): Promise<ShardWorkers> {
    const workers = new ShardWorkers(opts);
    for (let i = 0; i < Math.max(1, opts.count); i++) workers.slots.push(workers.newSlot(i));
    // Loading the sources takes a moment: answer a ping before taking copies.
    await Promise.all(workers.slots.map((s) => s.request({ t: 'ping' })));
    return workers;
  }

  private newSlot(index: number): WorkerSlot {
    return new WorkerSlot(index, startWorker(index), (slot, why) => this.lost(slot, why));
  }

  /** A worker died: a new one takes its place, and its copies rebuild there. */
  private lost(slot: WorkerSlot, why: string): void {
    if (this.closed || this.slots[slot.index] !== slot) return;
    const replacement = this.newSlot(slot.index);
    this.slots[slot.index] = replacement;
    this.opts.onExit?.(slot.index, why);
    for (const copy of [...slot.copies.values()]) copy.onWorkerLost(replacement);
    slot.copies.clear();
  }

  /** The worker at `index` (tests). */
  slot(index: number): WorkerSlot {
    return this.slots[index]!;
  }

  get size(): number {
    return this.slots.length;
  }

  /** Requests waiting for an answer from any worker. */
  get inFlight(): number {
    let n = 0;
    for (const s of this.slots) n += s.inFlight;
    return n;
  }

  /**
   * A new copy id and the worker to hold it: the one with the fewest copies.
   * The copies of an index being rebuilt (`rebuildGroup`) each go to a worker
   * that holds none of the others when there is one: they replay the whole
   * log at once, so the worker that held two of three did two thirds of the
   * rebuild while the other idled. When every worker already holds one, one
   * worker more is started for them (once: EXTRA_WORKERS); on two cores the
   * three threads share them evenly.
   */
  place(rebuildGroup: string | null = null): { copy: number; slot: WorkerSlot } {
    let slot = this.slots[0]!;
    for (const s of this.slots) if (s.copies.size < slot.copies.size) slot = s;
    if (rebuildGroup !== null) {
      const holds = (s: WorkerSlot) => [...s.copies.values()].some((c) => c.rebuildGroup === rebuildGroup);
      const free = this.slots.filter((s) => !holds(s));
      if (free.length > 0) {
        slot = free[0]!;
        for (const s of free) if (s.copies.size < slot.copies.size) slot = s;
      } else if (this.slots.length < Math.max(1, this.opts.count) + EXTRA_WORKERS) {
        slot = this.newSlot(this.slots.length);
        this.slots.push(slot);
      }
    }
    return { copy: this.nextCopy++, slot };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.terminate()));
  }
}
