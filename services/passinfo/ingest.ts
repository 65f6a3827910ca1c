/**
 * The ingest service: consumes the pass-record topic in a consumer group and
 * writes the records to the passes alias.
 *
 * Per batch of a partition, in order:
 * 1. decode (Avro, pass-record-codec.ts) and validate (pass-record.ts); a
 *    record that fails goes to the dead-letter list with the reason;
 * 2. bulk-write the good ones (pass-writer.ts: `_id` = event_id, op create,
 *    so a redelivered record changes nothing); records the search service
 *    refuses join the dead letters;
 * 3. send the dead letters (dead-letter.ts) and wait for Kafka's ack;
 * 4. decide and store first entries (first-entry.ts);
 * 5. only then commit the offsets.
 * A crash anywhere before 5 redelivers the batch, which the create op and the
 * first-entry _ids make harmless: every record is indexed exactly once.
 *
 * It reports, every `statusIntervalMs`, a status line (consumed, indexed,
 * duplicates, dead-lettered, first entries, the group's lag per partition).
 */
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { DeadLetterQueue, deadLetterTopicOf, type DeadLetter } from './dead-letter.ts';
import { FirstEntryDetector } from './first-entry.ts';
import type { EntryDesignation } from './entry-designation.ts';
import { saveDesignation } from './entry-designation.ts';
import { ensureIndices, type IndexNames, type IndexOptions } from './index-setup.ts';
import { passRecordCodec } from './pass-record-codec.ts';
import { validatePassRecord, type PassRecord } from './pass-record.ts';
import { PassWriter } from './pass-writer.ts';
import type { SearchClient } from './search-client.ts';

export interface IngestOptions {
  readonly kafka: Kafka;
  readonly client: SearchClient;
  readonly names: IndexNames;
  readonly topic: string;
  readonly groupId?: string;
  readonly deadLetterTopic?: string;
  /** Entry checkpoints for first entries; none: first entries are not recorded. */
  readonly designation?: EntryDesignation;
  readonly index?: IndexOptions;
  /** Partitions processed at the same time (each its own bulk requests). Default 2. */
  readonly concurrency?: number;
  /** Records per bulk request. Default 2000. */
  readonly bulkSize?: number;
  /** Consumer group session timeout: how soon a killed instance's partitions move. Default 30 s. */
  readonly sessionTimeoutMs?: number;
  readonly statusIntervalMs?: number;
  readonly report?: (status: IngestStatus) => void;
  /** Fatal consumer failure (kafkajs gave up restarting). */
  readonly onFatal?: (err: Error) => void;
}

export interface IngestStatus {
  consumed: number;
  indexed: number;
  duplicates: number;
  dead_lettered: number;
  first_entries: number;
  /** Records produced and not yet committed by the group, per partition. */
  lag: Record<string, number>;
  total_lag: number;
  /**
   * Records the group never read because Kafka's retention deleted them first
   * (the partition's start offset is past the group's committed offset).
   */
  lost_to_retention: number;
  records_per_second: number;
}

export const DEFAULT_GROUP = 'passinfo-ingest';
const DEFAULT_BULK_SIZE = 2000;

export class IngestService {
  private readonly consumer: Consumer;
  private readonly admin: Admin;
  private readonly dlq: DeadLetterQueue;
  private readonly writer: PassWriter;
  private readonly detector: FirstEntryDetector | null;
  private readonly bulkSize: number;
  readonly groupId: string;
  private readonly counters = { consumed: 0, indexed: 0, duplicates: 0, dead_lettered: 0, first_entries: 0 };
  private readonly partitionLag = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private lastReport = { at: Date.now(), consumed: 0 };
  private stopped: Promise<void> | null = null;

  private constructor(private readonly options: IngestOptions) {
    this.groupId = options.groupId ?? DEFAULT_GROUP;
    this.bulkSize = options.bulkSize ?? DEFAULT_BULK_SIZE;
    this.consumer = options.kafka.consumer({
      groupId: this.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      // How long a rebalance waits for members to rejoin; a killed member is dropped after its session timeout.
      rebalanceTimeout: Math.max(options.sessionTimeoutMs ?? 30_000, 10_000),
      heartbeatInterval: Math.max(500, Math.floor((options.sessionTimeoutMs ?? 30_000) / 10)),
      maxWaitTimeInMs: 500,
      metadataMaxAge: 5000,
    });
    this.admin = options.kafka.admin();
    this.dlq = new DeadLetterQueue(options.kafka, options.deadLetterTopic ?? deadLetterTopicOf(options.topic));
    this.writer = new PassWriter(options.client, options.names);
    this.detector = options.designation ? new FirstEntryDetector(options.client, options.names, options.designation) : null;
  }

  /** Sets up the indices, saves the entry designation, joins the group and starts consuming. */
  static async start(options: IngestOptions): Promise<IngestService> {
    await ensureIndices(options.client, options.names, options.index);
    if (options.designation) await saveDesignation(options.client, options.names, options.designation);
    const service = new IngestService(options);
    await service.run();
    return service;
  }

  private async run(): Promise<void> {
    const c = this.consumer;
    c.on(c.events.GROUP_JOIN, () => this.detector?.forget());
    c.on(c.events.CRASH, (event) => {
      if (!event.payload.restart) this.options.onFatal?.(event.payload.error);
    });
    await this.admin.connect();
    await c.connect();
    await c.subscribe({ topics: [this.options.topic], fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.concurrency ?? 2,
      eachBatch: (payload) => this.onBatch(payload),
    });
    const interval = this.options.statusIntervalMs ?? 5000;
    if (this.options.report && interval > 0) {
      this.timer = setInterval(() => {
        this.status()
          .then((s) => this.options.report?.(s))
          .catch(() => undefined);
      }, interval);
      this.timer.unref();
    }
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const messages = batch.messages;
    for (let i = 0; i < messages.length; i += this.bulkSize) {
      if (!payload.isRunning() || payload.isStale()) return;
      const chunk = messages.slice(i, i + this.bulkSize);
      await this.process(batch.topic, batch.partition, chunk);
      const last = chunk[chunk.length - 1]!.offset;
      payload.resolveOffset(last);
      await this.consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(Number(last) + 1) }]);
      this.partitionLag.set(batch.partition, Math.max(0, Number(batch.highWatermark) - Number(last) - 1));
      await payload.heartbeat();
    }
  }

  private async process(topic: string, partition: number, messages: readonly KafkaMessage[]): Promise<void> {
    const letters: DeadLetter[] = [];
    const records: PassRecord[] = [];
    const origin = new Map<PassRecord, KafkaMessage>();
    const letter = (m: KafkaMessage, stage: DeadLetter['stage'], reason: string): DeadLetter => ({
      key: m.key,
      value: m.value,
      reason,
      stage,
      topic,
      partition,
      offset: m.offset,
    });
    for (const m of messages) {
      let decoded: unknown;
      try {
        if (m.value === null) throw new Error('the record has no value (tombstone)');
        decoded = passRecordCodec.decode(m.value);
      } catch (err) {
        letters.push(letter(m, 'decode', `not a pass record: ${err instanceof Error ? err.message : String(err)}`));
        continue;
      }
      const v = validatePassRecord(decoded);
      if (!v.ok) {
        letters.push(letter(m, 'validate', v.reason));
        continue;
      }
      records.push(v.record);
      origin.set(v.record, m);
    }
    const written = records.length > 0 ? await this.writer.write(records) : { indexed: 0, duplicates: 0, rejects: [] };
    for (const r of written.rejects) letters.push(letter(origin.get(r.record)!, 'index', r.reason));
    await this.dlq.send(letters);
    if (this.detector !== null) {
      const rejected = new Set(written.rejects.map((r) => r.record));
      const firsts = await this.detector.decide(records.filter((r) => !rejected.has(r)));
      await this.detector.store(firsts);
      this.counters.first_entries += firsts.length;
    }
    this.counters.consumed += messages.length;
    this.counters.indexed += written.indexed;
    this.counters.duplicates += written.duplicates;
    this.counters.dead_lettered += letters.length;
  }

  /** Counters and the group's committed lag per partition (asked from Kafka). */
  async status(): Promise<IngestStatus> {
    const lag: Record<string, number> = {};
    let lost = 0;
    try {
      const [ends, committed] = await Promise.all([
        this.admin.fetchTopicOffsets(this.options.topic),
        this.admin.fetchOffsets({ groupId: this.groupId, topics: [this.options.topic] }),
      ]);
      const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
      for (const e of ends) {
        const c = Math.max(0, done.get(e.partition) ?? 0);
        lag[e.partition] = Math.max(0, Number(e.high) - Math.max(c, Number(e.low)));
        lost += Math.max(0, Number(e.low) - c);
      }
    } catch {
      for (const [p, n] of this.partitionLag) lag[p] = n;
    }
    const now = Date.now();
    const rate = ((this.counters.consumed - this.lastReport.consumed) * 1000) / Math.max(1, now - this.lastReport.at);
    this.lastReport = { at: now, consumed: this.counters.consumed };
    return { ...this.counters, lag, total_lag: Object.values(lag).reduce((a, b) => a + b, 0), lost_to_retention: lost, records_per_second: Math.round(rate) };
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      if (this.timer !== null) clearInterval(this.timer);
      await this.consumer.disconnect().catch(() => undefined);
      await this.dlq.close();
      await this.admin.disconnect().catch(() => undefined);
    })();
    return this.stopped;
  }
}
