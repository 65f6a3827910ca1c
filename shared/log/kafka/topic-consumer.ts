/**
 * Reads chosen partitions of one topic from chosen offsets with kafkajs,
 * which has no manual partition assignment (DESIGN.md section 6): the
 * consumer is the only member of a consumer group of its own, so it is
 * assigned every partition of the topic; it pauses the partitions nobody
 * reads and `seek`s each read partition to where its reader is. The position
 * lives here, never in Kafka: no offset is ever committed.
 *
 * Batches are checked against the reader's position, whatever kafkajs's own
 * position is after a rejoin or a seek racing a fetch: records before it are
 * dropped (a fetch returns whole record batches), and a batch starting after
 * it makes the consumer seek back instead of skipping records.
 */
import { randomUUID } from 'node:crypto';
import type { Batch, Consumer, ConsumerCrashEvent, ConsumerGroupJoinEvent, Kafka, RetryOptions } from 'kafkajs';
import type { LogRecord } from '../commit-log.ts';
import { asError, where } from './errors.ts';
import { toLogRecord } from './records.ts';

/**
 * Takes records of one partition in offset order, starting at the reader's
 * position; resolves to how many of them it took (the position moves past
 * those). Taking fewer than offered means the reader is done.
 */
export type PartitionSink = (records: LogRecord[]) => Promise<number>;

interface Reader {
  /** Offset of the next record the sink expects. */
  next: number;
  /**
   * Where the consumer fetches: `next`, or below it while `next` is past the
   * end of the partition (a fetch past the end makes kafkajs reset the
   * position, and commit that reset to Kafka).
   */
  fetchFrom: number;
  readonly sink: PartitionSink;
  readonly fail: (err: Error) => void;
  /** Batches in a row that started past `next`. */
  gaps: number;
}

export interface TopicConsumerOptions {
  readonly topic: string;
  /** Names the consumer's private group: `<clientId>.<purpose>.<topic>.<uuid>`. */
  readonly clientId: string;
  readonly purpose: string;
  readonly fetchMaxWaitMs: number;
  readonly metadataMaxAgeMs: number;
  readonly retry: RetryOptions;
}

/** kafkajs's default session timeout is 30 s; heartbeats while a sink runs keep a slow one in the group. */
const HEARTBEAT_WHILE_BUSY_MS = 3000;
/** A partition whose fetches keep starting past the reader's position has lost those records (retention). */
const MAX_GAPS = 3;

export class TopicConsumer {
  readonly topic: string;
  private readonly consumer: Consumer;
  private readonly readers = new Map<number, Reader>();
  /** Set once the group assigned the partitions; seek and pause need it. */
  private joined = false;
  private closed = false;
  /** Why the consumer stopped for good (it failed to start, or crashed past kafkajs's restarts). */
  private failure: Error | null = null;
  private readonly started: Promise<void>;
  private closing: Promise<void> | null = null;

  constructor(kafka: Kafka, options: TopicConsumerOptions) {
    this.topic = options.topic;
    this.consumer = kafka.consumer({
      groupId: `${options.clientId}.${options.purpose}.${options.topic}.${randomUUID()}`,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: options.fetchMaxWaitMs,
      metadataMaxAge: options.metadataMaxAgeMs,
      retry: options.retry,
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, (event: ConsumerGroupJoinEvent) => this.onJoin(event));
    this.consumer.on(this.consumer.events.CRASH, (event: ConsumerCrashEvent) => this.onCrash(event));
    this.started = this.start();
    this.started.catch((err: unknown) => this.failAll(asError(err)));
  }

  private async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    if (this.closed) return;
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => this.onBatch(payload.batch, payload.resolveOffset, payload.heartbeat),
    });
  }

  /** Whether the consumer stopped for good; it takes no more readers then. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /**
   * Starts handing the partition's records from `fromOffset` on to `sink`,
   * fetching from `fetchFrom` (at most the partition's end). One reader per
   * partition.
   */
  read(partition: number, fromOffset: number, sink: PartitionSink, fail: (err: Error) => void, fetchFrom = fromOffset): void {
    if (this.closed) throw new Error(`consumer of ${where(this.topic)} is closed`);
    if (this.failure !== null) throw this.failure;
    if (this.readers.has(partition)) throw new Error(`${where(this.topic, partition)} already has a reader`);
    const reader: Reader = { next: fromOffset, fetchFrom: Math.min(fetchFrom, fromOffset), sink, fail, gaps: 0 };
    this.readers.set(partition, reader);
    if (this.joined) this.position(partition, reader.fetchFrom);
  }

  /** Stops handing the partition's records out. */
  release(partition: number): void {
    if (!this.readers.delete(partition) || !this.joined || this.closed) return;
    this.call(() => this.consumer.pause([{ topic: this.topic, partitions: [partition] }]));
  }

  /** Points the consumer at `offset` of the partition and lets it fetch there. */
  private position(partition: number, offset: number): void {
    this.call(() => {
      this.consumer.seek({ topic: this.topic, partition, offset: String(offset) });
      this.consumer.resume([{ topic: this.topic, partitions: [partition] }]);
    });
  }

  /** seek, pause and resume throw while kafkajs restarts a crashed consumer; the next join positions again. */
  private call(fn: () => void): void {
    try {
      fn();
    } catch {
      this.joined = false;
    }
  }

  private onJoin(event: ConsumerGroupJoinEvent): void {
    if (this.closed) return;
    this.joined = true;
    const assigned = event.payload.memberAssignment[this.topic] ?? [];
    const idle = assigned.filter((p) => !this.readers.has(p));
    if (idle.length > 0) this.call(() => this.consumer.pause([{ topic: this.topic, partitions: idle }]));
    for (const [partition, reader] of this.readers) this.position(partition, reader.fetchFrom);
  }

  private onCrash(event: ConsumerCrashEvent): void {
    this.joined = false;
    if (!event.payload.restart) this.failAll(event.payload.error);
  }

  private failAll(err: Error): void {
    if (this.closed) return;
    this.failure = new Error(`consumer of ${where(this.topic)} stopped: ${err.message}`, { cause: err });
    const readers = [...this.readers.values()];
    this.readers.clear();
    for (const r of readers) r.fail(err);
  }

  private async onBatch(batch: Batch, resolveOffset: (offset: string) => void, heartbeat: () => Promise<void>): Promise<void> {
    const partition = batch.partition;
    const reader = this.readers.get(partition);
    if (reader === undefined || this.closed || batch.messages.length === 0) return;
    const messages = batch.messages;
    let first = 0;
    while (first < messages.length && Number(messages[first]!.offset) < reader.next) first++;
    if (first === messages.length) {
      // All before the reader's position: move kafkajs's position on towards it.
      const last = Number(messages[messages.length - 1]!.offset);
      reader.fetchFrom = last + 1;
      resolveOffset(String(last));
      return;
    }
    const firstOffset = Number(messages[first]!.offset);
    if (firstOffset > reader.next) {
      if (++reader.gaps >= MAX_GAPS) {
        this.readers.delete(partition);
        reader.fail(
          new Error(
            `${where(this.topic, partition)}: records [${reader.next}, ${firstOffset}) are no longer in the log ` +
              '(deleted by retention?)',
          ),
        );
        return;
      }
      reader.fetchFrom = reader.next;
      this.position(partition, reader.next);
      return;
    }
    reader.gaps = 0;
    const records = messages.slice(first).map(toLogRecord);
    const keepAlive = setInterval(() => heartbeat().catch(() => undefined), HEARTBEAT_WHILE_BUSY_MS);
    let taken: number;
    try {
      taken = await reader.sink(records);
    } catch (err) {
      if (this.readers.get(partition) === reader) this.release(partition);
      reader.fail(asError(err));
      return;
    } finally {
      clearInterval(keepAlive);
    }
    if (taken <= 0 || this.readers.get(partition) !== reader) return;
    const last = records[taken - 1]!.offset;
    reader.next = last + 1;
    reader.fetchFrom = last + 1;
    resolveOffset(String(last));
  }

  /** Leaves the group and disconnects; waits for a running sink call to end. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.readers.clear();
      await this.started.catch(() => undefined);
      await this.consumer.disconnect().catch(() => undefined);
    })();
    return this.closing;
  }
}
