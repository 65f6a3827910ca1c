/**
 * The commit log on Kafka: the log of a cluster (DESIGN.md sections 2 and 5).
 * A log topic is a Kafka topic, a partition a Kafka partition, an offset a
 * Kafka offset.
 *
 * - append: one produce request per call with the idempotent producer,
 *   acks=all, retried; resolves with the base offset the broker gave
 *   (kafka/appender.ts).
 * - ensureTopic: CreateTopics, or the configured provisioner where the
 *   brokers refuse it; then waits for the metadata to show the topic with
 *   exactly the partitions asked for (kafka/topic-admin.ts).
 * - read and follow: consumers in private groups, positioned with pause and
 *   seek, never committing offsets: a copy's checkpoint lives with the copy
 *   (kafka/topic-consumer.ts, kafka/reader.ts, kafka/follower.ts).
 */
import type {
  AppendRecord,
  AppendResult,
  CommitLog,
  FollowOptions,
  LogRecord,
  RecordBatchHandler,
  Subscription,
} from './commit-log.ts';
import type { Kafka } from 'kafkajs';
import { Appender } from './kafka/appender.ts';
import {
  DEFAULT_FETCH_MAX_WAIT_MS,
  DEFAULT_METADATA_MAX_AGE_MS,
  DEFAULT_READ_TIMEOUT_MS,
  DEFAULT_TOPIC_READY_TIMEOUT_MS,
  createKafka,
  kafkaRetry,
  logSink,
} from './kafka/client.ts';
import type { KafkaLogOptions } from './kafka/client.ts';
import { checkOffset, where, withContext } from './kafka/errors.ts';
import { KafkaSubscription } from './kafka/follower.ts';
import { TopicReader } from './kafka/reader.ts';
import { toMessages } from './kafka/records.ts';
import { TopicAdmin } from './kafka/topic-admin.ts';
import { TopicConsumer } from './kafka/topic-consumer.ts';

export type { KafkaConnectionSecurity, KafkaLogEntry, KafkaLogLevel, KafkaLogOptions, KafkaRetryOptions, TopicProvisioner } from './kafka/client.ts';

/** FollowOptions.maxBatch default (commit-log.ts). */
const DEFAULT_MAX_BATCH = 1000;

export class KafkaLog implements CommitLog {
  private readonly topics: TopicAdmin;
  private readonly appender: Appender;
  private readonly readers = new Map<string, TopicReader>();
  private readonly subscriptions = new Set<KafkaSubscription>();
  /** Appends made and not yet answered: close() lets them finish. */
  private readonly appending = new Set<Promise<AppendResult>>();
  private readonly fetchMaxWaitMs: number;
  private readonly readTimeoutMs: number;
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly kafka: Kafka,
    private readonly options: KafkaLogOptions,
  ) {
    const log = logSink(options);
    this.topics = new TopicAdmin(kafka, {
      retry: kafkaRetry(options.retry),
      provisioner: options.provisioner,
      replicationFactor: options.replicationFactor ?? -1,
      topicReadyTimeoutMs: options.topicReadyTimeoutMs ?? DEFAULT_TOPIC_READY_TIMEOUT_MS,
      warn: (message) => log({ level: 'warn', namespace: 'KafkaLog', message, extra: {} }),
    });
    this.appender = new Appender(kafka, kafkaRetry(options.retry));
    this.fetchMaxWaitMs = options.fetchMaxWaitMs ?? DEFAULT_FETCH_MAX_WAIT_MS;
    this.readTimeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  }

  /** Connects to the brokers (admin and producer); rejects if they cannot be reached. */
  static async open(options: KafkaLogOptions): Promise<KafkaLog> {
    const log = new KafkaLog(createKafka(options), options);
    try {
      await log.topics.connect();
      await log.appender.connect();
    } catch (err) {
      await log.close().catch(() => undefined);
      throw withContext(err, `cannot connect to Kafka at ${options.brokers.join(',')}`);
    }
    return log;
  }

  // ---- topics ---------------------------------------------------------------

  async ensureTopic(topic: string, partitions: number): Promise<void> {
    this.checkOpen();
    return this.topics.ensureTopic(topic, partitions);
  }

  async deleteTopic(topic: string): Promise<void> {
    this.checkOpen();
    await this.stopTopicConsumers(topic);
    await this.topics.deleteTopic(topic);
    this.appender.forgetTopic(topic);
  }

  async partitionCount(topic: string): Promise<number> {
    this.checkOpen();
    return this.topics.partitionCount(topic);
  }

  async highWatermark(topic: string, partition: number): Promise<number> {
    this.checkOpen();
    return this.topics.highWatermark(topic, partition);
  }

  // ---- append -------------------------------------------------------------------

  append(topic: string, partition: number, records: readonly AppendRecord[]): Promise<AppendResult> {
    const context = `append to ${where(topic, partition)}`;
    let messages;
    try {
      this.checkOpen();
      messages = toMessages(records, partition);
    } catch (err) {
      return Promise.reject(withContext(err, context));
    }
    // Queued at once, so that offsets follow call order; the checks run in turn.
    const appended = this.appender
      .append(topic, partition, messages, {
        check: () => this.topics.checkPartition(topic, partition).catch((err: unknown) => {
          throw withContext(err, context);
        }),
        whenEmpty: () => this.topics.highWatermark(topic, partition),
        topicExists: async () => (await this.topics.partitionCount(topic)) > 0,
      })
      .then((baseOffset) => ({ baseOffset }));
    this.appending.add(appended);
    const forget = (): void => {
      this.appending.delete(appended);
    };
    appended.then(forget, forget);
    return appended;
  }

  // ---- read and follow ------------------------------------------------------------

  async read(topic: string, partition: number, fromOffset: number, maxRecords: number): Promise<LogRecord[]> {
    this.checkOpen();
    const context = `read from ${where(topic, partition)}`;
    checkOffset(fromOffset, context);
    if (!Number.isInteger(maxRecords) || maxRecords < 0) {
      throw new Error(`${context}: maxRecords must be a non-negative integer, got ${maxRecords}`);
    }
    const end = await this.topics.highWatermark(topic, partition);
    const count = Math.min(maxRecords, end - fromOffset);
    if (count <= 0) return [];
    const records = await this.readerOf(topic).read(partition, fromOffset, count);
    const last = records[records.length - 1];
    if (records.length !== count || records[0]!.offset !== fromOffset || last!.offset !== fromOffset + count - 1) {
      throw new Error(
        `${context}: offsets [${fromOffset}, ${fromOffset + count}) expected, got ${records.length} records ` +
          `from ${records[0]?.offset ?? 'none'} to ${last?.offset ?? 'none'}`,
      );
    }
    return records;
  }

  private readerOf(topic: string): TopicReader {
    let reader = this.readers.get(topic);
    if (reader?.consumer.failed === true) {
      void reader.close();
      reader = undefined;
    }
    if (reader === undefined) {
      reader = new TopicReader(this.newConsumer(topic, 'read', Math.min(this.fetchMaxWaitMs, 100)), this.readTimeoutMs);
      this.readers.set(topic, reader);
    }
    return reader;
  }

  private newConsumer(topic: string, purpose: string, fetchMaxWaitMs: number): TopicConsumer {
    return new TopicConsumer(this.kafka, {
      topic,
      clientId: this.options.clientId,
      purpose,
      fetchMaxWaitMs,
      metadataMaxAgeMs: this.options.metadataMaxAgeMs ?? DEFAULT_METADATA_MAX_AGE_MS,
      retry: kafkaRetry(this.options.retry),
    });
  }

  follow(
    topic: string,
    partition: number,
    fromOffset: number,
    handler: RecordBatchHandler,
    options: FollowOptions = {},
  ): Subscription {
    const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    const onError =
      options.onError ??
      ((err: Error) => console.error(`kafka log: follower of ${where(topic, partition)} stopped:`, err));
    const open = async (): Promise<{ consumer: TopicConsumer; fetchFrom: number }> => {
      this.checkOpen();
      checkOffset(fromOffset, `follow ${where(topic, partition)}`);
      if (!Number.isInteger(maxBatch) || maxBatch < 1) {
        throw new Error(`follow ${where(topic, partition)}: maxBatch must be a positive integer, got ${maxBatch}`);
      }
      const end = await this.topics.highWatermark(topic, partition);
      return { consumer: this.newConsumer(topic, 'follow', this.fetchMaxWaitMs), fetchFrom: Math.min(fromOffset, end) };
    };
    const sub = new KafkaSubscription({ topic, partition, fromOffset, maxBatch, handler, onError }, open, (s) =>
      this.subscriptions.delete(s),
    );
    this.subscriptions.add(sub);
    return sub;
  }

  // ---- lifecycle ---------------------------------------------------------------------

  /** Stops the followers and the reader of the topic, without reporting errors to anyone. */
  private async stopTopicConsumers(topic: string): Promise<void> {
    const subs = [...this.subscriptions].filter((s) => s.topic === topic);
    const reader = this.readers.get(topic);
    this.readers.delete(topic);
    await Promise.all([...subs.map((s) => s.stop()), reader?.close()]);
  }

  /** Lets appends already made finish, ends followers and disconnects. */
  async close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.appending]);
      await this.appender.close();
      const readers = [...this.readers.values()];
      this.readers.clear();
      await Promise.all([...[...this.subscriptions].map((s) => s.stop()), ...readers.map((r) => r.close())]);
      await this.topics.close();
    })();
    return this.closing;
  }

  private checkOpen(): void {
    if (this.closing !== null) throw new Error(`kafka log [${this.options.clientId}] is closed`);
  }
}
