/**
 * The commit log: the source of truth of the cluster (DESIGN.md section 1).
 *
 * Topics have a fixed number of partitions; each partition is an append-only
 * sequence of opaque records (Avro-encoded by the layers above; the log never
 * looks inside). Offsets start at 0 and are dense within a partition.
 *
 * Two implementations share this interface: the embedded on-disk log (one
 * machine) and Kafka (a cluster). Nothing above this interface may depend on
 * which one it talks to.
 */

export interface LogRecord {
  /** Offset of this record in its partition. */
  readonly offset: number;
  /** The payload, exactly as appended. */
  readonly value: Buffer;
  /** Optional record key (Kafka message key; the embedded log stores it too). */
  readonly key: Buffer | null;
  /** Small string headers (trace context, ...). Empty object when none. */
  readonly headers: Readonly<Record<string, string>>;
  /** Append time in epoch milliseconds, as the log stamped it. Informational only: never feed it into apply. */
  readonly timestamp: number;
}

export interface AppendRecord {
  readonly value: Buffer;
  readonly key?: Buffer | null;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface AppendResult {
  /** Offset given to the first record of the batch; the batch occupies [baseOffset, baseOffset + n). */
  readonly baseOffset: number;
}

/** What `follow` calls for each batch of new records, in offset order. */
export type RecordBatchHandler = (records: readonly LogRecord[]) => Promise<void>;

export interface Subscription {
  /** Stops delivery. Resolves once no handler call is running any more. */
  close(): Promise<void>;
}

export interface FollowOptions {
  /** Largest number of records handed to one handler call. Default 1000. */
  readonly maxBatch?: number;
  /** Called when reading or the handler fails; following stops after it. Default: log and stop. */
  readonly onError?: (err: Error) => void;
}

export interface CommitLog {
  /**
   * Creates the topic with `partitions` partitions if it does not exist.
   * Resolves when it exists with exactly that many partitions; rejects with a
   * clear error if it exists with another count.
   */
  ensureTopic(topic: string, partitions: number): Promise<void>;

  /** Removes the topic and its data. Missing topics are not an error. */
  deleteTopic(topic: string): Promise<void>;

  /** Number of partitions of the topic, or 0 if it does not exist. */
  partitionCount(topic: string): Promise<number>;

  /**
   * Appends a batch to one partition. Resolves only once the batch is durable
   * (embedded: written to the OS, survives kill -9 of the process; Kafka:
   * acknowledged by all in-sync replicas). Batches to one partition are
   * assigned offsets in call order.
   */
  append(topic: string, partition: number, records: readonly AppendRecord[]): Promise<AppendResult>;

  /**
   * Reads up to `maxRecords` records starting at `fromOffset` (inclusive).
   * Returns fewer (possibly none) at the end of the partition.
   */
  read(topic: string, partition: number, fromOffset: number, maxRecords: number): Promise<LogRecord[]>;

  /**
   * Delivers every record from `fromOffset` on, then every new record as it is
   * appended, in offset order, one handler call at a time (the next batch is
   * read only after the handler's promise resolved).
   */
  follow(
    topic: string,
    partition: number,
    fromOffset: number,
    handler: RecordBatchHandler,
    options?: FollowOptions,
  ): Subscription;

  /** Offset the next appended record will get (= number of records in the partition). */
  highWatermark(topic: string, partition: number): Promise<number>;

  /** Flushes and releases files, connections and timers. */
  close(): Promise<void>;
}
