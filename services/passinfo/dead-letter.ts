/**
 * The dead-letter topic: where records that cannot be indexed go, with the
 * reason, so nothing is dropped silently. The value is the original bytes as
 * they were consumed (so a fixed consumer can replay them); headers say why
 * and where from:
 *
 *   dlq.reason     what was wrong ("[pass_time] [...] is not a date ...")
 *   dlq.stage      decode | validate | index
 *   dlq.topic, dlq.partition, dlq.offset   the record's origin
 *
 * Dead letters are produced with acks=all and awaited before the consumer
 * commits the offsets of the batch they came from.
 */
import type { IHeaders, Kafka, Producer } from 'kafkajs';

export type DeadLetterStage = 'decode' | 'validate' | 'index';

export interface DeadLetter {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly reason: string;
  readonly stage: DeadLetterStage;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

const ACKS_ALL = -1;

export function deadLetterTopicOf(topic: string): string {
  return `${topic}.dead-letter`;
}

export class DeadLetterQueue {
  private readonly producer: Producer;
  private connected: Promise<void> | null = null;
  sent = 0;

  constructor(
    kafka: Kafka,
    readonly topic: string,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  }

  async send(letters: readonly DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    this.connected ??= this.producer.connect();
    await this.connected;
    await this.producer.send({
      topic: this.topic,
      acks: ACKS_ALL,
      messages: letters.map((l) => ({ key: l.key, value: l.value, headers: headersOf(l) })),
    });
    this.sent += letters.length;
  }

  async close(): Promise<void> {
    if (this.connected !== null) await this.producer.disconnect().catch(() => undefined);
  }
}

function headersOf(l: DeadLetter): IHeaders {
  return {
    'dlq.reason': l.reason,
    'dlq.stage': l.stage,
    'dlq.topic': l.topic,
    'dlq.partition': String(l.partition),
    'dlq.offset': l.offset,
  };
}
