/**
 * The embedded commit log: the default on one machine (DESIGN.md sections 2
 * and 5). A directory on local disk:
 *
 *   <dir>/LOCK                                     pid of the process that has it open
 *   <dir>/topics/<topic, %-encoded>/meta.json      {"topic", "partitions", "format"}
 *   <dir>/topics/<topic>/<partition>/<base>.log    append-only frames, one per batch (embedded/batch-format.ts)
 *   <dir>/topics/<topic>/<partition>/<base>.index  sparse index of a sealed segment
 *   <dir>/trash/                                   topics being deleted
 *
 * An append resolves once its bytes were written to the OS (and fdatasync'ed
 * with `fsync: true`), so an acknowledged batch survives kill -9. A batch
 * torn by a crash fails its CRC and is cut off when the log is opened again.
 * Appends to one partition are queued and written in call order; batches that
 * queue up while a write is in flight go out together in one writev.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type {
  AppendRecord,
  AppendResult,
  CommitLog,
  FollowOptions,
  LogRecord,
  RecordBatchHandler,
  Subscription,
} from './commit-log.ts';
import { prepareBatch, sealFrame, stampFrame } from './embedded/batch-format.ts';
import type { PreparedBatch } from './embedded/batch-format.ts';
import { acquireDirLock } from './embedded/dir-lock.ts';
import { closeFile, fileSize, openFile, syncData, syncDir, truncateFile, writeAllAt } from './embedded/file-io.ts';
import {
  indexFrame,
  loadIndexFile,
  newSegment,
  parseSegmentFileName,
  readSegment,
  scanSegment,
  segmentFileName,
  writeIndexFile,
} from './embedded/segment.ts';
import type { Segment } from './embedded/segment.ts';
import { TailCache } from './embedded/tail-cache.ts';
import { topicDirName } from './embedded/topic-names.ts';

export interface EmbeddedLogOptions {
  /** fdatasync every write before acknowledging it (survives power loss, not only process death). Default false. */
  readonly fsync?: boolean;
  /** A partition rolls to a new segment file once the current one would grow past this. Default 64 MiB. */
  readonly segmentBytes?: number;
  /** Recent batches kept in memory per partition for followers. Default 2 MiB; 0 disables. */
  readonly tailCacheBytes?: number;
  /** Told when opening cut a torn batch off a segment's end. Default: a process warning. */
  readonly onRecovery?: (event: RecoveryEvent) => void;
}

/** Opening found the end of a partition's last segment torn (a write cut short by a crash) and truncated it. */
export interface RecoveryEvent {
  readonly topic: string;
  readonly partition: number;
  readonly segment: string;
  /** File position the segment was truncated to. */
  readonly position: number;
  readonly droppedBytes: number;
  readonly reason: string;
}

const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
const DEFAULT_TAIL_CACHE_BYTES = 2 * 1024 * 1024;
/** FollowOptions.maxBatch default (commit-log.ts). */
const DEFAULT_MAX_BATCH = 1000;
/** Elasticsearch caps an index at 1024 shards (`index.number_of_shards`), and a partition is a shard. */
const MAX_PARTITIONS = 1024;
const META_FILE = 'meta.json';
const META_FORMAT = 1;

interface PendingAppend {
  /** A promise while the compression thread compresses it (batch-format.ts). */
  readonly batch: PreparedBatch | Promise<PreparedBatch>;
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (err: Error) => void;
}

/** An append whose batch is encoded: what writeGroup writes. */
interface ReadyAppend extends PendingAppend {
  readonly batch: PreparedBatch;
}

interface TopicState {
  readonly name: string;
  readonly dir: string;
  readonly partitions: PartitionState[];
  deleted: boolean;
}

interface PartitionState {
  readonly topic: TopicState;
  readonly id: number;
  readonly dir: string;
  /** In base-offset order; the last one is written to. */
  readonly segments: Segment[];
  /** Offset the next record gets: everything below it is written and readable. */
  nextOffset: number;
  /** Appends waiting for the write in flight. */
  pending: PendingAppend[];
  flushing: Promise<void> | null;
  /** Set when a failed write could not be undone: the partition takes no more appends until reopened. */
  failure: Error | null;
  readonly cache: TailCache;
  /** Followers waiting for the next append. */
  waiters: Set<() => void>;
  readsInFlight: number;
  /** Called when readsInFlight drops to 0. */
  readsDrained: (() => void)[];
}

interface MetaFile {
  readonly topic: string;
  readonly partitions: number;
  readonly format: number;
}

/** The subscription whose handler is running, so that close() called from inside it does not wait for itself. */
const handlerScope = new AsyncLocalStorage<FollowSubscription>();

class FollowSubscription implements Subscription {
  closed = false;
  topic: TopicState | null = null;
  done: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private waitingIn: Set<() => void> | null = null;

  /** Resolves on the partition's next append, or when the subscription stops. */
  waitForAppend(waiters: Set<() => void>): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.waitingIn = waiters;
      waiters.add(resolve);
    });
  }

  stop(): void {
    if (this.closed) return;
    this.closed = true;
    const wake = this.wake;
    if (wake !== null) {
      this.waitingIn?.delete(wake);
      this.wake = null;
      this.waitingIn = null;
      wake();
    }
  }

  /** Waits for the follow loop to end, unless called from this subscription's own handler. */
  finished(): Promise<void> {
    return handlerScope.getStore() === this ? Promise.resolve() : this.done;
  }

  async close(): Promise<void> {
    this.stop();
    await this.finished();
  }
}

function where(topic: string, partition?: number): string {
  return partition === undefined ? `topic [${topic}]` : `topic [${topic}] partition [${partition}]`;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The group's batches once encoded, in append order: a large batch is a
 * promise while the compression thread works on it. An append whose
 * encoding failed is refused alone and left out.
 */
async function encoded(p: PartitionState, group: readonly PendingAppend[]): Promise<ReadyAppend[]> {
  const out: ReadyAppend[] = [];
  for (const a of group) {
    if (!(a.batch instanceof Promise)) {
      out.push(a as ReadyAppend);
      continue;
    }
    try {
      out.push({ ...a, batch: await a.batch });
    } catch (err) {
      a.reject(withContext(err, `append to ${where(p.topic.name, p.id)}`));
    }
  }
  return out;
}

function withContext(err: unknown, context: string): Error {
  const e = asError(err);
  return new Error(`${context}: ${e.message}`, { cause: e });
}

function checkOffset(offset: number, context: string): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new Error(`${context}: offset must be a non-negative integer, got ${offset}`);
  }
}

export class EmbeddedLog implements CommitLog {
  private readonly topics = new Map<string, TopicState>();
  private readonly subscriptions = new Set<FollowSubscription>();
  private readonly topicsDir: string;
  private readonly trashDir: string;
  private readonly fsync: boolean;
  private readonly segmentBytes: number;
  private readonly tailCacheBytes: number;
  private readonly onRecovery: (event: RecoveryEvent) => void;
  private metaChain: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | null = null;

  private constructor(
    readonly dir: string,
    options: EmbeddedLogOptions,
    private readonly releaseLock: () => Promise<void>,
  ) {
    this.topicsDir = path.join(dir, 'topics');
    this.trashDir = path.join(dir, 'trash');
    this.fsync = options.fsync ?? false;
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.tailCacheBytes = options.tailCacheBytes ?? DEFAULT_TAIL_CACHE_BYTES;
    this.onRecovery =
      options.onRecovery ??
      ((e) =>
        process.emitWarning(
          `${where(e.topic, e.partition)}: truncated ${e.segment} to ${e.position} bytes ` +
            `(dropped ${e.droppedBytes} bytes: ${e.reason})`,
          'EmbeddedLogRecovery',
        ));
    if (!Number.isSafeInteger(this.segmentBytes) || this.segmentBytes < 1) {
      throw new Error(`segmentBytes must be a positive integer, got ${options.segmentBytes}`);
    }
  }

  /** Opens (creating if needed) the log in `dir`, recovering from a crash if the last run had one. */
  static async open(dir: string, options: EmbeddedLogOptions = {}): Promise<EmbeddedLog> {
    const root = path.resolve(dir);
    await fsp.mkdir(path.join(root, 'topics'), { recursive: true });
    const release = await acquireDirLock(root);
    let log: EmbeddedLog | null = null;
    try {
      log = new EmbeddedLog(root, options, release);
      await log.load();
      return log;
    } catch (err) {
      await log?.closeFiles().catch(() => undefined);
      await release();
      throw withContext(err, `cannot open log ${root}`);
    }
  }

  // ---- topics ---------------------------------------------------------------

  async ensureTopic(topic: string, partitions: number): Promise<void> {
    this.checkOpen();
    if (typeof topic !== 'string' || topic.length === 0) throw new Error(`topic name must be a non-empty string`);
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
      throw new Error(`${where(topic)}: partition count must be an integer in [1, ${MAX_PARTITIONS}], got ${partitions}`);
    }
    return this.withMetaLock(async () => {
      this.checkOpen();
      const existing = this.topics.get(topic);
      if (existing !== undefined) {
        if (existing.partitions.length !== partitions) {
          throw new Error(
            `${where(topic)} already exists with ${existing.partitions.length} partitions, not ${partitions}`,
          );
        }
        return;
      }
      await this.createTopic(topic, partitions);
    });
  }

  async deleteTopic(topic: string): Promise<void> {
    this.checkOpen();
    return this.withMetaLock(async () => {
      const t = this.topics.get(topic);
      if (t === undefined) return;
      t.deleted = true;
      this.topics.delete(topic);
      await this.quiesce(t.partitions, (sub) => sub.topic === t);
      await Promise.all(t.partitions.map((p) => this.closePartitionFiles(p)));
      // Rename first, so a crash mid-delete never leaves a half-deleted topic behind.
      await fsp.mkdir(this.trashDir, { recursive: true });
      const trashed = path.join(this.trashDir, `${path.basename(t.dir)}.${Date.now()}`);
      await fsp.rename(t.dir, trashed);
      await fsp.rm(trashed, { recursive: true, force: true });
    });
  }

  async partitionCount(topic: string): Promise<number> {
    this.checkOpen();
    return this.topics.get(topic)?.partitions.length ?? 0;
  }

  async highWatermark(topic: string, partition: number): Promise<number> {
    return this.partitionOf(topic, partition).nextOffset;
  }

  // ---- append -----------------------------------------------------------------

  append(topic: string, partition: number, records: readonly AppendRecord[]): Promise<AppendResult> {
    let p: PartitionState;
    let batch: PreparedBatch | Promise<PreparedBatch>;
    try {
      p = this.partitionOf(topic, partition);
      if (p.failure !== null) throw p.failure;
      if (!Array.isArray(records)) throw new TypeError('records must be an array');
      batch = prepareBatch(records);
      // Awaited by flush, in append order; a failure is that append's alone (no unhandled rejection meanwhile).
      if (batch instanceof Promise) batch.catch(() => undefined);
    } catch (err) {
      return Promise.reject(withContext(err, `append to ${where(topic, partition)}`));
    }
    return new Promise((resolve, reject) => {
      p.pending.push({ batch, resolve, reject });
      p.flushing ??= this.flush(p);
    });
  }

  /** Writes queued appends until none are left; appends queued meanwhile go out together next. */
  private async flush(p: PartitionState): Promise<void> {
    // Yield first: appends made in the same tick join this write, and the
    // loop cannot finish (and clear `p.flushing`) before the caller has set it.
    await Promise.resolve();
    try {
      while (p.pending.length > 0) {
        const group = p.pending;
        p.pending = [];
        await this.writeGroup(p, await encoded(p, group));
      }
    } finally {
      p.flushing = null;
    }
  }

  private async writeGroup(p: PartitionState, group: ReadyAppend[]): Promise<void> {
    if (p.topic.deleted || p.failure !== null) {
      const reason = p.topic.deleted ? 'the topic was deleted' : p.failure!.message;
      const err = new Error(`append to ${where(p.topic.name, p.id)}: ${reason}`);
      for (const a of group) a.reject(err);
      return;
    }
    const timestamp = Date.now();
    let seg = p.segments[p.segments.length - 1]!;
    let i = 0;
    try {
      while (i < group.length) {
        const firstBytes = group[i]!.batch.count > 0 ? group[i]!.batch.frame.length : 0;
        if (seg.size > 0 && seg.size + firstBytes > this.segmentBytes) seg = await this.roll(p);
        // As many queued batches as fit in this segment go out in one write.
        const frames: Buffer[] = [];
        let bytes = 0;
        let offset = p.nextOffset;
        let j = i;
        for (; j < group.length; j++) {
          const b = group[j]!.batch;
          if (b.count === 0) continue;
          if (j > i && seg.size + bytes + b.frame.length > this.segmentBytes) break;
          sealFrame(b.frame, offset, timestamp);
          if (b.plain !== null) stampFrame(b.plain, offset, timestamp);
          frames.push(b.frame);
          bytes += b.frame.length;
          offset += b.count;
        }
        await writeAllAt(seg.fd!, frames, seg.size);
        if (this.fsync && bytes > 0) await syncData(seg.fd!);
        for (let k = i; k < j; k++) this.commit(p, seg, group[k]!);
        i = j;
        this.wakeFollowers(p);
      }
    } catch (err) {
      const error = withContext(err, `append to ${where(p.topic.name, p.id)} at offset ${p.nextOffset}`);
      // Cut off whatever part of the failed write reached the file, so it ends at the last acknowledged batch.
      try {
        await truncateFile(seg.fd!, seg.size);
      } catch {
        p.failure = error;
      }
      for (let k = i; k < group.length; k++) group[k]!.reject(error);
    }
  }

  private commit(p: PartitionState, seg: Segment, a: ReadyAppend): void {
    const baseOffset = p.nextOffset;
    const { batch } = a;
    if (batch.count > 0) {
      indexFrame(seg, baseOffset, seg.size);
      seg.size += batch.frame.length;
      seg.nextOffset += batch.count;
      p.nextOffset += batch.count;
      p.cache.add(baseOffset, batch.count, batch.plain ?? batch.frame);
    }
    a.resolve({ baseOffset });
  }

  private async roll(p: PartitionState): Promise<Segment> {
    const sealed = p.segments[p.segments.length - 1]!;
    const segPath = path.join(p.dir, segmentFileName(p.nextOffset));
    const fd = await openFile(segPath, 'wx+');
    const seg = newSegment(segPath, p.nextOffset, fd);
    p.segments.push(seg);
    if (this.fsync) await syncDir(p.dir);
    // The saved index only spares a rescan at the next open; failing to write it loses nothing.
    await writeIndexFile(sealed).catch(() => undefined);
    return seg;
  }

  private wakeFollowers(p: PartitionState): void {
    if (p.waiters.size === 0) return;
    const waiters = p.waiters;
    p.waiters = new Set();
    for (const wake of waiters) wake();
  }

  // ---- read and follow ------------------------------------------------------------

  async read(topic: string, partition: number, fromOffset: number, maxRecords: number): Promise<LogRecord[]> {
    const p = this.partitionOf(topic, partition);
    checkOffset(fromOffset, `read from ${where(topic, partition)}`);
    if (!Number.isInteger(maxRecords) || maxRecords < 0) {
      throw new Error(`read from ${where(topic, partition)}: maxRecords must be a non-negative integer, got ${maxRecords}`);
    }
    return this.readPartition(p, fromOffset, maxRecords);
  }

  private async readPartition(p: PartitionState, fromOffset: number, maxRecords: number): Promise<LogRecord[]> {
    const n = Math.min(maxRecords, p.nextOffset - fromOffset);
    if (n <= 0) return [];
    const out: LogRecord[] = [];
    if (fromOffset >= p.cache.startOffset) {
      p.cache.read(fromOffset, n, out);
    } else {
      p.readsInFlight++;
      try {
        await this.readSegments(p, fromOffset, n, out);
      } catch (err) {
        throw withContext(err, `read from ${where(p.topic.name, p.id)} at offset ${fromOffset}`);
      } finally {
        if (--p.readsInFlight === 0) for (const drained of p.readsDrained.splice(0)) drained();
      }
    }
    if (out.length !== n || out[0]!.offset !== fromOffset || out[n - 1]!.offset !== fromOffset + n - 1) {
      throw new Error(
        `read from ${where(p.topic.name, p.id)}: offsets [${fromOffset}, ${fromOffset + n}) expected, ` +
          `got ${out.length} records from ${out[0]?.offset ?? 'none'}`,
      );
    }
    return out;
  }

  private async readSegments(p: PartitionState, fromOffset: number, n: number, out: LogRecord[]): Promise<void> {
    const segments = p.segments;
    let lo = 0;
    let hi = segments.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (segments[mid]!.baseOffset <= fromOffset) {
        k = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (k < 0) throw new Error(`offset ${fromOffset} is before the start of the log (${segments[0]!.baseOffset})`);
    let from = fromOffset;
    let left = n;
    for (; k < segments.length && left > 0; k++) {
      const seg = segments[k]!;
      if (from >= seg.nextOffset) continue;
      const fd = await this.segmentFd(seg);
      const take = Math.min(left, seg.nextOffset - from);
      const before = out.length;
      await readSegment(fd, seg, from, take, out);
      const got = out.length - before;
      if (got !== take) throw new Error(`segment ${seg.path} returned ${got} records from offset ${from}, expected ${take}`);
      from += got;
      left -= got;
    }
  }

  private segmentFd(seg: Segment): Promise<number> {
    if (seg.fd !== null) return Promise.resolve(seg.fd);
    seg.opening ??= openFile(seg.path, 'r').then(
      (fd) => {
        seg.fd = fd;
        seg.opening = null;
        return fd;
      },
      (err: unknown) => {
        seg.opening = null;
        throw err;
      },
    );
    return seg.opening;
  }

  follow(
    topic: string,
    partition: number,
    fromOffset: number,
    handler: RecordBatchHandler,
    options: FollowOptions = {},
  ): Subscription {
    const sub = new FollowSubscription();
    const onError =
      options.onError ??
      ((err: Error) => console.error(`embedded log: follower of ${where(topic, partition)} stopped:`, err));
    this.subscriptions.add(sub);
    sub.done = this.runFollower(sub, topic, partition, fromOffset, handler, options.maxBatch ?? DEFAULT_MAX_BATCH, onError)
      .finally(() => {
        sub.closed = true;
        this.subscriptions.delete(sub);
      });
    return sub;
  }

  private async runFollower(
    sub: FollowSubscription,
    topic: string,
    partition: number,
    fromOffset: number,
    handler: RecordBatchHandler,
    maxBatch: number,
    onError: (err: Error) => void,
  ): Promise<void> {
    let inHandler = false;
    try {
      const p = this.partitionOf(topic, partition);
      checkOffset(fromOffset, `follow ${where(topic, partition)}`);
      if (!Number.isInteger(maxBatch) || maxBatch < 1) {
        throw new Error(`follow ${where(topic, partition)}: maxBatch must be a positive integer, got ${maxBatch}`);
      }
      sub.topic = p.topic;
      let next = fromOffset;
      while (!sub.closed && !p.topic.deleted) {
        if (next < p.nextOffset) {
          const records = await this.readPartition(p, next, maxBatch);
          if (sub.closed || p.topic.deleted) break;
          inHandler = true;
          await handlerScope.run(sub, () => handler(records));
          inHandler = false;
          next = records[records.length - 1]!.offset + 1;
        } else {
          await sub.waitForAppend(p.waiters);
        }
      }
    } catch (err) {
      // A handler's failure is always reported; a read failing because the subscription was being closed is not.
      if (inHandler || !sub.closed) {
        sub.closed = true;
        onError(withContext(err, `follower of ${where(topic, partition)}`));
      }
    }
  }

  // ---- lifecycle ---------------------------------------------------------------------

  async close(): Promise<void> {
    this.closing ??= (async () => {
      const partitions = [...this.topics.values()].flatMap((t) => t.partitions);
      await this.quiesce(partitions, () => true);
      await this.closeFiles();
      await this.releaseLock();
    })();
    return this.closing;
  }

  /** Lets queued writes finish, ends the chosen followers and waits until no read is in flight. */
  private async quiesce(partitions: readonly PartitionState[], ends: (sub: FollowSubscription) => boolean): Promise<void> {
    await Promise.all(partitions.map((p) => p.flushing));
    const ending = [...this.subscriptions].filter(ends);
    for (const sub of ending) sub.stop();
    await Promise.all(ending.map((sub) => sub.finished()));
    await Promise.all(
      partitions.map((p) =>
        p.readsInFlight === 0
          ? undefined
          : new Promise<void>((resolve) => {
              p.readsDrained.push(resolve);
            }),
      ),
    );
  }

  private async closeFiles(): Promise<void> {
    await Promise.all([...this.topics.values()].flatMap((t) => t.partitions.map((p) => this.closePartitionFiles(p))));
  }

  private async closePartitionFiles(p: PartitionState): Promise<void> {
    for (const seg of p.segments) {
      if (seg.fd !== null) {
        const fd = seg.fd;
        seg.fd = null;
        await closeFile(fd);
      }
    }
  }

  private checkOpen(): void {
    if (this.closing !== null) throw new Error(`log ${this.dir} is closed`);
  }

  private partitionOf(topic: string, partition: number): PartitionState {
    this.checkOpen();
    const t = this.topics.get(topic);
    if (t === undefined) throw new Error(`${where(topic)} does not exist`);
    const p = Number.isInteger(partition) ? t.partitions[partition] : undefined;
    if (p === undefined) {
      throw new Error(`${where(topic)} has no partition [${partition}] (it has ${t.partitions.length})`);
    }
    return p;
  }

  private withMetaLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.metaChain.then(fn);
    this.metaChain = run.catch(() => undefined);
    return run;
  }

  // ---- on disk ---------------------------------------------------------------------------

  private newPartition(topic: TopicState, id: number, segments: Segment[]): PartitionState {
    const nextOffset = segments[segments.length - 1]!.nextOffset;
    return {
      topic,
      id,
      dir: path.join(topic.dir, String(id)),
      segments,
      nextOffset,
      pending: [],
      flushing: null,
      failure: null,
      cache: new TailCache(nextOffset, this.tailCacheBytes),
      waiters: new Set(),
      readsInFlight: 0,
      readsDrained: [],
    };
  }

  private async createTopic(name: string, partitions: number): Promise<void> {
    const dir = path.join(this.topicsDir, topicDirName(name));
    // A directory without meta.json is what an interrupted creation leaves: start over.
    await fsp.rm(dir, { recursive: true, force: true });
    await fsp.mkdir(dir);
    const t: TopicState = { name, dir, partitions: [], deleted: false };
    try {
      for (let id = 0; id < partitions; id++) {
        const pdir = path.join(dir, String(id));
        await fsp.mkdir(pdir);
        const segPath = path.join(pdir, segmentFileName(0));
        const fd = await openFile(segPath, 'wx+');
        t.partitions.push(this.newPartition(t, id, [newSegment(segPath, 0, fd)]));
      }
      const meta: MetaFile = { topic: name, partitions, format: META_FORMAT };
      await fsp.writeFile(path.join(dir, `${META_FILE}.tmp`), `${JSON.stringify(meta)}\n`);
      await fsp.rename(path.join(dir, `${META_FILE}.tmp`), path.join(dir, META_FILE));
      if (this.fsync) {
        for (const p of t.partitions) await syncDir(p.dir);
        await syncDir(dir);
        await syncDir(this.topicsDir);
      }
    } catch (err) {
      await Promise.all(t.partitions.map((p) => this.closePartitionFiles(p))).catch(() => undefined);
      await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw withContext(err, `cannot create ${where(name)}`);
    }
    this.topics.set(name, t);
  }

  private async load(): Promise<void> {
    await fsp.rm(this.trashDir, { recursive: true, force: true });
    const entries = await fsp.readdir(this.topicsDir, { withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(this.topicsDir, entry.name);
      const meta = await readMeta(dir);
      if (meta === null) {
        await fsp.rm(dir, { recursive: true, force: true });
        continue;
      }
      if (topicDirName(meta.topic) !== entry.name) {
        throw new Error(`${dir}/${META_FILE} names ${where(meta.topic)}, which is not stored in this directory`);
      }
      const t: TopicState = { name: meta.topic, dir, partitions: [], deleted: false };
      this.topics.set(t.name, t);
      for (let id = 0; id < meta.partitions; id++) {
        t.partitions.push(this.newPartition(t, id, await this.loadSegments(t, id)));
      }
    }
  }

  /**
   * Loads a partition's segments: sealed ones from their saved index (or a
   * full scan), the last one always scanned with every CRC checked; a torn
   * end there is truncated away.
   */
  private async loadSegments(t: TopicState, id: number): Promise<Segment[]> {
    const pdir = path.join(t.dir, String(id));
    await fsp.mkdir(pdir, { recursive: true });
    const names = await fsp.readdir(pdir);
    for (const name of names) {
      if (name.endsWith('.tmp')) await fsp.rm(path.join(pdir, name), { force: true });
    }
    const bases = names
      .map(parseSegmentFileName)
      .filter((b): b is number => b !== null)
      .sort((a, b) => a - b);
    if (bases.length === 0) {
      const segPath = path.join(pdir, segmentFileName(0));
      return [newSegment(segPath, 0, await openFile(segPath, 'wx+'))];
    }
    const segments: Segment[] = [];
    const opened: number[] = [];
    try {
      for (let k = 0; k < bases.length; k++) {
        const base = bases[k]!;
        const segPath = path.join(pdir, segmentFileName(base));
        const previous = segments[k - 1];
        if (previous !== undefined && previous.nextOffset !== base) {
          throw new Error(
            `${where(t.name, id)}: ${segPath} starts at offset ${base}, but the segment before it ends at ${previous.nextOffset}`,
          );
        }
        const last = k === bases.length - 1;
        if (!last) {
          const size = (await fsp.stat(segPath)).size;
          const saved = await loadIndexFile(segPath, size);
          if (saved !== null) {
            segments.push(newSegment(segPath, base, null, { size, ...saved }));
            continue;
          }
        }
        const fd = await openFile(segPath, last ? 'r+' : 'r');
        opened.push(fd);
        const size = await fileSize(fd);
        const scan = await scanSegment(fd, base, size);
        if (scan.problem !== null && (!last || scan.problem.kind === 'inconsistent')) {
          throw new Error(`${where(t.name, id)}: ${segPath} is corrupt at byte ${scan.validBytes}: ${scan.problem.reason}`);
        }
        const seg = newSegment(segPath, base, fd, { size: scan.validBytes, nextOffset: scan.nextOffset, index: scan.index });
        segments.push(seg);
        if (scan.problem !== null) {
          await truncateFile(fd, scan.validBytes);
          if (this.fsync) await syncData(fd);
          this.onRecovery({
            topic: t.name,
            partition: id,
            segment: segPath,
            position: scan.validBytes,
            droppedBytes: size - scan.validBytes,
            reason: scan.problem.reason,
          });
        } else if (!last) {
          await writeIndexFile(seg).catch(() => undefined);
        }
      }
    } catch (err) {
      for (const fd of opened) await closeFile(fd).catch(() => undefined);
      throw err;
    }
    return segments;
  }
}

async function readMeta(topicDir: string): Promise<MetaFile | null> {
  let text: string;
  try {
    text = await fsp.readFile(path.join(topicDir, META_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const meta = JSON.parse(text) as Partial<MetaFile>;
  if (typeof meta.topic !== 'string' || !Number.isInteger(meta.partitions) || meta.format !== META_FORMAT) {
    throw new Error(`${topicDir}/${META_FILE} is not a topic description this log can read: ${text.trim()}`);
  }
  return meta as MetaFile;
}
