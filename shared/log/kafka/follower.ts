/**
 * `follow` on Kafka: a consumer of its own per subscription, reading one
 * partition from the copy's checkpoint on, handing batches to the handler
 * one call at a time.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogRecord, RecordBatchHandler, Subscription } from '../commit-log.ts';
import { where, withContext } from './errors.ts';
import type { TopicConsumer } from './topic-consumer.ts';

/** The subscription whose handler is running, so that close() called from inside it does not wait for itself. */
const handlerScope = new AsyncLocalStorage<KafkaSubscription>();

export interface FollowSpec {
  readonly topic: string;
  readonly partition: number;
  readonly fromOffset: number;
  readonly maxBatch: number;
  readonly handler: RecordBatchHandler;
  readonly onError: (err: Error) => void;
}

export class KafkaSubscription implements Subscription {
  readonly topic: string;
  private closed = false;
  private consumer: TopicConsumer | null = null;
  private readonly started: Promise<void>;
  private stopping: Promise<void> | null = null;

  /**
   * `open` checks the topic, partition and offset and makes the consumer;
   * its failure reaches onError even if the subscription was closed meanwhile
   * (it is the caller's mistake, not a consequence of closing).
   */
  constructor(
    private readonly spec: FollowSpec,
    open: () => Promise<{ consumer: TopicConsumer; fetchFrom: number }>,
    private readonly onStopped: (sub: KafkaSubscription) => void,
  ) {
    this.topic = spec.topic;
    this.started = (async () => {
      try {
        const { consumer, fetchFrom } = await open();
        this.consumer = consumer;
        if (this.closed) return;
        consumer.read(spec.partition, spec.fromOffset, (records) => this.deliver(records), (err) => this.fail(err), fetchFrom);
      } catch (err) {
        this.closed = true;
        this.report(err);
      }
    })();
  }

  /** Hands the records to the handler in batches of at most maxBatch, while the subscription is open. */
  private async deliver(records: LogRecord[]): Promise<number> {
    const { handler, maxBatch } = this.spec;
    let taken = 0;
    while (taken < records.length && !this.closed) {
      const batch = records.length <= maxBatch && taken === 0 ? records : records.slice(taken, taken + maxBatch);
      try {
        await handlerScope.run(this, () => handler(batch));
      } catch (err) {
        // A handler's failure is always reported, even when it closed the subscription first.
        this.closed = true;
        this.report(err);
        void this.stop();
        return taken;
      }
      taken += batch.length;
    }
    if (this.closed) void this.stop();
    return taken;
  }

  /** The consumer failed for good. */
  private fail(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.report(err);
    void this.stop();
  }

  private report(err: unknown): void {
    this.spec.onError(withContext(err, `follower of ${where(this.spec.topic, this.spec.partition)}`));
  }

  /** Ends delivery and disconnects the consumer, without reporting anything. */
  stop(): Promise<void> {
    this.closed = true;
    this.stopping ??= (async () => {
      await this.started;
      await this.consumer?.close();
      this.onStopped(this);
    })();
    return this.stopping;
  }

  close(): Promise<void> {
    const stopped = this.stop();
    // From inside its own handler: the handler's return is what the consumer waits for.
    return handlerScope.getStore() === this ? Promise.resolve() : stopped;
  }
}
