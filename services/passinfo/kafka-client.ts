/**
 * The kafkajs client of the producer and the ingest service, with kafkajs's
 * log lines as JSON on stderr at the chosen level.
 */
import { Kafka, logLevel } from 'kafkajs';
import type { LogEntry } from 'kafkajs';

export type KafkaLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

const LEVELS: Record<KafkaLogLevel, logLevel> = {
  nothing: logLevel.NOTHING,
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

export interface KafkaClientOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logLevel?: KafkaLogLevel;
}

export function createKafka(options: KafkaClientOptions): Kafka {
  if (options.brokers.length === 0) throw new Error('Kafka brokers are required (--brokers host:9092,...)');
  return new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: LEVELS[options.logLevel ?? 'error'],
    // Brokers restart; a client gives up only after about half a minute.
    retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 2000 },
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, timestamp: _timestamp, ...extra } = log;
        process.stderr.write(`${JSON.stringify({ level: logLevel[level]?.toLowerCase(), logger: `kafkajs.${namespace}`, msg: message, ...extra })}\n`);
      },
  });
}
