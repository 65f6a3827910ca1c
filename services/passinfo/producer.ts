/**
 * The producer command: streams pass records to a Kafka topic as Avro
 * (pass-record-codec.ts), keyed by plate so that one plate's passes stay in
 * one partition, in order (first-entry.ts relies on it). Idempotent producer,
 * acks=all. Rate-limited when asked, stops after a count or a duration,
 * reports progress.
 */
import type { Kafka } from 'kafkajs';
import { generatePassRecords, type GeneratorOptions } from './pass-record-generator.ts';
import { passRecordCodec } from './pass-record-codec.ts';
import type { PassRecord } from './pass-record.ts';

export interface ProduceOptions {
  /** Records per second; 0 or absent: as fast as the brokers take them. */
  readonly rate?: number;
  /** Stop after this long even if records remain. */
  readonly durationMs?: number;
  /** Records per produce request. Default 500. */
  readonly batchSize?: number;
  /** Called about once a second and at the end. */
  readonly progress?: (p: ProduceProgress) => void;
  readonly signal?: AbortSignal;
}

export interface ProduceProgress {
  readonly produced: number;
  readonly seconds: number;
  readonly rate: number;
  readonly done: boolean;
}

const ACKS_ALL = -1;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sends the records in order; resolves with how many were acknowledged. */
export async function produce(kafka: Kafka, topic: string, records: Iterable<PassRecord>, options: ProduceOptions = {}): Promise<ProduceProgress> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const rate = options.rate ?? 0;
  const started = performance.now();
  const deadline = options.durationMs !== undefined ? started + options.durationMs : Infinity;
  let produced = 0;
  let lastProgress = started;
  const progress = (done: boolean): ProduceProgress => {
    const seconds = (performance.now() - started) / 1000;
    const p = { produced, seconds, rate: seconds > 0 ? produced / seconds : 0, done };
    options.progress?.(p);
    return p;
  };
  try {
    let batch: PassRecord[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const messages = batch.map((r) => ({ key: r.plate, value: passRecordCodec.encode(r) }));
      batch = [];
      await producer.send({ topic, acks: ACKS_ALL, messages });
      produced += messages.length;
      if (rate > 0) {
        const due = started + (produced / rate) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
      }
      if (performance.now() - lastProgress >= 1000) {
        lastProgress = performance.now();
        progress(false);
      }
    };
    const perRequest = rate > 0 ? Math.max(1, Math.min(batchSize, Math.ceil(rate / 10))) : batchSize;
    for (const r of records) {
      if (options.signal?.aborted || performance.now() >= deadline) break;
      batch.push(r);
      if (batch.length >= perRequest) await flush();
    }
    if (!(options.signal?.aborted ?? false) && performance.now() < deadline) await flush();
    return progress(true);
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
}

export interface GeneratedStream extends Omit<GeneratorOptions, 'ordered'> {
  readonly count: number;
}

/** Realistic records for the producer: the bench generator's data, in time order. */
export function realisticRecords(opts: GeneratedStream): Iterable<PassRecord> {
  return generatePassRecords({ ...opts, ordered: true });
}
