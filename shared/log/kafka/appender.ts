/**
 * Appends: one produce request per append, to one partition, with kafkajs's
 * idempotent producer (acks=all, one request in flight per broker, retries).
 *
 * Appends to one partition run one at a time, in call order, so their
 * offsets follow call order and the producer's sequence numbers never race
 * (kafkajs reads and bumps a partition's sequence around each request).
 *
 * An append whose retries ran out is rejected, but its records may still have
 * reached the log (a response lost on the way back). The producer that sent
 * it is then retired and the next append gets a new one: with the old
 * producer id, the next batch would reuse the failed batch's sequence
 * numbers and a broker that did store the failed batch would take the new
 * one for its duplicate, acknowledging records it never wrote.
 *
 * kafkajs's producer also puts every topic it ever produced to in its
 * metadata requests, which all fail once one of those topics is deleted
 * (kafkajs issues #651, #1622). So the producer is replaced when the log
 * deletes a topic it wrote to, and an append that fails that way for a topic
 * that exists is sent once more with a new producer.
 */
import { Partitioners } from 'kafkajs';
import type { Kafka, Message, Producer, RetryOptions } from 'kafkajs';
import { hasCause, where, withContext } from './errors.ts';
import { BATCH_COMPRESSION } from './zstd-codec.ts';

/** acks=all: every in-sync replica has the batch before it is acknowledged (DESIGN.md, writes). */
const ACKS_ALL = -1;

const TOPIC_MISSING = ['UNKNOWN_TOPIC_OR_PARTITION'];

interface ProducerSlot {
  readonly producer: Producer;
  readonly connected: Promise<void>;
  /** Topics the producer has sent to, which kafkajs keeps asking the brokers about. */
  readonly topics: Set<string>;
  inFlight: number;
  retired: boolean;
}

export interface AppendSteps {
  /** Runs before the batch is sent, in the partition's turn (the topic and partition exist). */
  readonly check: () => Promise<void>;
  /** The base offset of an empty batch: the partition's high watermark once earlier appends are done. */
  readonly whenEmpty: () => Promise<number>;
  /** Asked after a send failed with "unknown topic": worth sending once more with a new producer? */
  readonly topicExists: () => Promise<boolean>;
}

export class Appender {
  private slot: ProducerSlot | null = null;
  /** Last append queued per partition (`topic\0partition`). */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    private readonly kafka: Kafka,
    private readonly retry: RetryOptions,
  ) {}

  /** Connects the first producer now, so that a broker problem shows at open and the first append is quick. */
  async connect(): Promise<void> {
    await this.currentSlot().connected;
  }

  /**
   * Sends the messages (all for `partition`) as one batch after the
   * partition's earlier appends; resolves to the base offset the broker gave.
   * `check` runs first, in turn; with no messages, the answer is `whenEmpty()`.
   */
  append(topic: string, partition: number, messages: Message[], steps: AppendSteps): Promise<number> {
    const key = `${topic}\0${partition}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(async () => {
      await steps.check();
      if (messages.length === 0) return steps.whenEmpty();
      try {
        return await this.send(topic, partition, messages);
      } catch (err) {
        if (!hasCause(err, TOPIC_MISSING) || !(await steps.topicExists().catch(() => false))) throw err;
        return this.send(topic, partition, messages);
      }
    });
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }

  private async send(topic: string, partition: number, messages: Message[]): Promise<number> {
    const slot = this.currentSlot();
    slot.inFlight++;
    slot.topics.add(topic);
    try {
      await slot.connected;
      const answers = await slot.producer.send({ topic, acks: ACKS_ALL, messages, compression: BATCH_COMPRESSION });
      const answer = answers.find((a) => a.topicName === topic && a.partition === partition);
      const baseOffset = Number(answer?.baseOffset);
      if (answer === undefined || !Number.isSafeInteger(baseOffset) || baseOffset < 0) {
        throw new Error(`the brokers acknowledged the batch with base offset ${answer?.baseOffset ?? 'none'}`);
      }
      return baseOffset;
    } catch (err) {
      this.retire(slot);
      throw withContext(err, `append to ${where(topic, partition)}`);
    } finally {
      slot.inFlight--;
      this.disconnectIfIdle(slot);
    }
  }

  private currentSlot(): ProducerSlot {
    if (this.slot !== null && !this.slot.retired) return this.slot;
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      retry: this.retry,
      // Every message names its partition; the partitioner is never asked.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    const slot: ProducerSlot = { producer, connected: producer.connect(), topics: new Set(), inFlight: 0, retired: false };
    // A failed connect fails the appends waiting for it, and the next append starts over.
    slot.connected.catch(() => this.retire(slot));
    this.slot = slot;
    return slot;
  }

  private retire(slot: ProducerSlot): void {
    if (slot.retired) return;
    slot.retired = true;
    if (this.slot === slot) this.slot = null;
    this.disconnectIfIdle(slot);
  }

  /** A retired producer is disconnected once the appends it carries (on other partitions) have finished. */
  private disconnectIfIdle(slot: ProducerSlot): void {
    if (!slot.retired || slot.inFlight > 0) return;
    const done = slot.connected
      .catch(() => undefined)
      .then(() => slot.producer.disconnect())
      .catch(() => undefined);
    this.retiring.add(done);
    void done.then(() => this.retiring.delete(done));
  }

  /** The topic was deleted: a producer that wrote to it is replaced before the next append. */
  forgetTopic(topic: string): void {
    if (this.slot?.topics.has(topic) === true) this.retire(this.slot);
  }

  /** Lets every queued append finish, then disconnects the producers. */
  async close(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
    if (this.slot !== null) this.retire(this.slot);
    await Promise.all([...this.retiring]);
  }
}
