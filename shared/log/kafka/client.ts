/**
 * The Kafka log's options and the kafkajs client made from them.
 */
import './zstd-codec.ts';
import { Kafka, logLevel } from 'kafkajs';
import type { KafkaConfig, LogEntry, RetryOptions } from 'kafkajs';

/** How verbose kafkajs is. Its retries of transient errors log at `error`. */
export type KafkaLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Creates a topic outside Kafka's CreateTopics API (an operator's tool, a
 * deployment's topic manager, the mock cluster's helper in tests). Called
 * when the brokers refuse CreateTopics; the log then waits for the topic to
 * show up in the metadata with exactly `partitions` partitions.
 */
export type TopicProvisioner = (topic: string, partitions: number) => Promise<void>;

export interface KafkaRetryOptions {
  /** Attempts after the first. */
  readonly retries?: number;
  readonly initialRetryTimeMs?: number;
  /** Cap of the exponentially growing wait between attempts. */
  readonly maxRetryTimeMs?: number;
}

/**
 * How the client reaches the brokers: TLS (`ssl`: true for the system's CAs,
 * or kafkajs's TLS options with a CA and client certificate) and SASL
 * (plain, scram-sha-256, scram-sha-512), passed to kafkajs as they are.
 * Absent: plaintext.
 */
export type KafkaConnectionSecurity = Pick<KafkaConfig, 'ssl' | 'sasl'>;

export interface KafkaLogOptions {
  /** Bootstrap brokers, `host:port`. */
  readonly brokers: readonly string[];
  /** Names this client to the brokers and prefixes its private consumer groups. */
  readonly clientId: string;
  readonly provisioner?: TopicProvisioner;
  /** Default `error`. */
  readonly logLevel?: KafkaLogLevel;
  /** Where kafkajs's log lines go. Default: one line on stderr each. */
  readonly logger?: (entry: KafkaLogEntry) => void;
  /**
   * Retries of one append (and of admin requests) before it is rejected.
   * Default 20 retries, 100 ms growing to 2 s apart: about half a minute.
   */
  readonly retry?: KafkaRetryOptions;
  /** Replication factor of topics the log creates. Default: the brokers' default. */
  readonly replicationFactor?: number;
  /** How long a follower's fetch waits on the broker for new records. Default 1000 ms. */
  readonly fetchMaxWaitMs?: number;
  /**
   * How old a consumer's cluster metadata may get before a fetch refreshes it.
   * A consumer only fetches from brokers its metadata lists, so this bounds
   * how long a follower stalls after its leader's broker comes back or the
   * leadership moves. Default 5 s (kafkajs: 5 min).
   */
  readonly metadataMaxAgeMs?: number;
  /** How long `read` waits for its records. Default 30 s. */
  readonly readTimeoutMs?: number;
  /** How long `ensureTopic` waits for a provisioned topic to appear in the metadata. Default 30 s. */
  readonly topicReadyTimeoutMs?: number;
  /** TLS and SASL to the brokers; default plaintext. */
  readonly connection?: KafkaConnectionSecurity;
}

export interface KafkaLogEntry {
  readonly level: Exclude<KafkaLogLevel, 'nothing'>;
  readonly namespace: string;
  readonly message: string;
  readonly extra: Readonly<Record<string, unknown>>;
}

export const DEFAULT_RETRY: Required<KafkaRetryOptions> = { retries: 20, initialRetryTimeMs: 100, maxRetryTimeMs: 2000 };
export const DEFAULT_FETCH_MAX_WAIT_MS = 1000;
export const DEFAULT_METADATA_MAX_AGE_MS = 5000;
export const DEFAULT_READ_TIMEOUT_MS = 30_000;
export const DEFAULT_TOPIC_READY_TIMEOUT_MS = 30_000;

const LEVELS: Record<KafkaLogLevel, logLevel> = {
  nothing: logLevel.NOTHING,
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

function levelName(level: number): Exclude<KafkaLogLevel, 'nothing'> {
  if (level <= logLevel.ERROR) return 'error';
  if (level === logLevel.WARN) return 'warn';
  if (level === logLevel.INFO) return 'info';
  return 'debug';
}

function stderrLogger(entry: KafkaLogEntry): void {
  process.stderr.write(`${JSON.stringify({ level: entry.level, logger: `kafkajs.${entry.namespace}`, msg: entry.message, ...entry.extra })}\n`);
}

const RANK: Record<KafkaLogLevel, number> = { nothing: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** Where the log's own lines and kafkajs's go: options.logger, or stderr; at options.logLevel and above. */
export function logSink(options: KafkaLogOptions): (entry: KafkaLogEntry) => void {
  const sink = options.logger ?? stderrLogger;
  const threshold = RANK[options.logLevel ?? 'error'];
  return (entry) => {
    if (RANK[entry.level] <= threshold) sink(entry);
  };
}

export function kafkaRetry(options: KafkaRetryOptions | undefined): RetryOptions {
  const r = { ...DEFAULT_RETRY, ...options };
  return { retries: r.retries, initialRetryTime: r.initialRetryTimeMs, maxRetryTime: r.maxRetryTimeMs };
}

export function createKafka(options: KafkaLogOptions): Kafka {
  if (!Array.isArray(options.brokers) || options.brokers.length === 0) {
    throw new Error('kafka log: brokers must be a non-empty list of host:port');
  }
  if (typeof options.clientId !== 'string' || options.clientId.length === 0) {
    throw new Error('kafka log: clientId must be a non-empty string');
  }
  const sink = logSink(options);
  return new Kafka({
    ...options.connection,
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: LEVELS[options.logLevel ?? 'error'],
    retry: kafkaRetry(options.retry),
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, timestamp: _timestamp, ...extra } = log;
        sink({ level: levelName(level), namespace, message, extra });
      },
  });
}
