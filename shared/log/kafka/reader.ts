/**
 * `read` on Kafka: one long-lived consumer per topic (joining a group costs a
 * round of the group protocol, and a real broker delays a new group's first
 * join by group.initial.rebalance.delay.ms), positioned at each read's
 * offset and paused again once the read has its records. Reads of one
 * partition take turns; reads of different partitions run side by side.
 */
import type { LogRecord } from '../commit-log.ts';
import { where } from './errors.ts';
import type { TopicConsumer } from './topic-consumer.ts';

export class TopicReader {
  /** Last read queued per partition. */
  private readonly queues = new Map<number, Promise<unknown>>();

  constructor(
    readonly consumer: TopicConsumer,
    private readonly timeoutMs: number,
  ) {}

  /** Reads exactly `count` records from `fromOffset` (the caller checked they exist). */
  read(partition: number, fromOffset: number, count: number): Promise<LogRecord[]> {
    const previous = this.queues.get(partition) ?? Promise.resolve();
    const run = previous.then(() => this.readNow(partition, fromOffset, count));
    const tail = run.catch(() => undefined);
    this.queues.set(partition, tail);
    void tail.then(() => {
      if (this.queues.get(partition) === tail) this.queues.delete(partition);
    });
    return run;
  }

  private readNow(partition: number, fromOffset: number, count: number): Promise<LogRecord[]> {
    const topic = this.consumer.topic;
    return new Promise<LogRecord[]>((resolve, reject) => {
      const out: LogRecord[] = [];
      let settled = false;
      const finish = (err: Error | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.consumer.release(partition);
        if (err === null) resolve(out);
        else reject(err);
      };
      const timer = setTimeout(
        () =>
          finish(
            new Error(
              `read from ${where(topic, partition)} at offset ${fromOffset}: ` +
                `${out.length} of ${count} records arrived within ${this.timeoutMs} ms`,
            ),
          ),
        this.timeoutMs,
      );
      try {
        this.consumer.read(
          partition,
          fromOffset,
          async (records) => {
            if (settled) return 0;
            const take = Math.min(records.length, count - out.length);
            for (let i = 0; i < take; i++) out.push(records[i]!);
            if (out.length === count) finish(null);
            return take;
          },
          (err) => finish(new Error(`read from ${where(topic, partition)} at offset ${fromOffset}: ${err.message}`, { cause: err })),
        );
      } catch (err) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
  }

  close(): Promise<void> {
    return this.consumer.close();
  }
}
