/**
 * Topics of the Kafka log: creation (CreateTopics, or a provisioner where the
 * brokers refuse it), partition counts, high watermarks and deletion, through
 * one kafkajs admin client.
 *
 * kafkajs remembers every topic whose offsets it was asked for and puts them
 * all in its later metadata requests; once one of them is deleted, those
 * requests fail with UNKNOWN_TOPIC_OR_PARTITION whatever topic they are for
 * (kafkajs issues #651, #1622). So the admin client is replaced when a topic
 * it knew is deleted, and when a request fails that way for a topic that
 * exists.
 */
import type { Admin, ITopicConfig, Kafka, RetryOptions } from 'kafkajs';
import type { TopicProvisioner } from './client.ts';
import { hasCause, where, withContext } from './errors.ts';

/** Elasticsearch caps an index at 1024 shards (`index.number_of_shards`), and a partition is a shard. */
const MAX_PARTITIONS = 1024;
/** Kafka's rule for topic names (org.apache.kafka.common.internals.Topic). */
const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
/** Broker answers to CreateTopics that mean "not through this API": a provisioner may create the topic instead. */
const CREATE_REFUSED = [
  'KafkaJSServerDoesNotSupportApiKey',
  'UNSUPPORTED_VERSION',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TOPIC_AUTHORIZATION_FAILED',
  'POLICY_VIOLATION',
  'INVALID_REQUEST',
];
const TOPIC_MISSING = ['UNKNOWN_TOPIC_OR_PARTITION'];
/** Broker answers to DeleteTopics that mean the topic stays; followers stop all the same. */
const DELETE_REFUSED = ['KafkaJSServerDoesNotSupportApiKey', 'UNSUPPORTED_VERSION', 'TOPIC_DELETION_DISABLED'];
/**
 * The commit log is the source of truth: Kafka must never expire it (DESIGN.md,
 * replay-based rebuild), nor compact it (an update is a partial document; only
 * every op in order rebuilds a copy). Batches stay as the producer compressed them.
 */
const TOPIC_CONFIG = [
  { name: 'retention.ms', value: '-1' },
  { name: 'retention.bytes', value: '-1' },
  { name: 'cleanup.policy', value: 'delete' },
  { name: 'compression.type', value: 'producer' },
];
const CREATE_TIMEOUT_MS = 10_000;
const DELETE_TIMEOUT_MS = 10_000;
const METADATA_POLL_MS = 50;

export interface TopicAdminOptions {
  readonly retry: RetryOptions;
  readonly provisioner?: TopicProvisioner;
  /** -1: the brokers' default. */
  readonly replicationFactor: number;
  readonly topicReadyTimeoutMs: number;
  readonly warn: (message: string) => void;
}

interface TopicShape {
  /** 0 when the topic does not exist. */
  readonly partitions: number;
  /** Every partition has a leader. */
  readonly ready: boolean;
}

/**
 * kafkajs's fetchTopicOffsets destructures its broker answers without a check:
 * when its metadata lacks the leaders of a topic that was just created (other
 * brokers do not know it yet), one of the answers is empty and it throws a
 * TypeError instead of retrying. The topic is there; asking again works.
 */
function isMetadataGap(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof TypeError && /\bpop\(\.\.\.\)/.test(e.message)) return true;
  }
  return false;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface AdminClient {
  readonly admin: Admin;
  readonly connected: Promise<void>;
  /** Topics kafkajs now includes in this client's metadata requests. */
  readonly targets: Set<string>;
}

export class TopicAdmin {
  /** Partition counts seen, so that appends and reads need no metadata round trip. */
  private readonly known = new Map<string, number>();
  /** ensureTopic calls of this process run one at a time per topic. */
  private readonly ensuring = new Map<string, Promise<void>>();
  private client: AdminClient;
  private readonly retired = new Set<Promise<void>>();

  constructor(
    private readonly kafka: Kafka,
    private readonly options: TopicAdminOptions,
  ) {
    this.client = this.newClient();
  }

  private newClient(): AdminClient {
    const admin = this.kafka.admin({ retry: this.options.retry });
    const connected = admin.connect();
    connected.catch(() => undefined);
    return { admin, connected, targets: new Set() };
  }

  /** Resolves once the admin client is connected; rejects if the brokers cannot be reached. */
  async connect(): Promise<void> {
    await this.client.connected;
  }

  /** The admin client, replacing it if it failed to connect. */
  private async current(): Promise<AdminClient> {
    const client = this.client;
    try {
      await client.connected;
      return client;
    } catch {
      if (this.client === client) this.replaceClient();
      await this.client.connected;
      return this.client;
    }
  }

  /** Starts over with a new admin client, one that knows no topic. */
  private replaceClient(): void {
    const old = this.client;
    this.client = this.newClient();
    const done = old.connected.then(() => old.admin.disconnect()).catch(() => undefined);
    this.retired.add(done);
    void done.then(() => this.retired.delete(done));
  }

  /**
   * Runs a request that may fail for a deleted topic the client knew: then
   * once more with a new client, unless `topic` itself is missing.
   */
  private async request<T>(topic: string, fn: (client: AdminClient) => Promise<T>): Promise<T> {
    const client = await this.current();
    try {
      return await fn(client);
    } catch (err) {
      if (!hasCause(err, TOPIC_MISSING) || client.targets.size === 0) throw err;
      if (this.client === client) this.replaceClient();
      if ((await this.shape(topic)).partitions === 0) throw err;
      return fn(await this.current());
    }
  }

  async close(): Promise<void> {
    await this.client.connected.then(() => this.client.admin.disconnect()).catch(() => undefined);
    await Promise.all([...this.retired]);
  }

  async partitionCount(topic: string): Promise<number> {
    return (await this.shape(topic)).partitions;
  }

  /**
   * Checks that the partition exists (from what was seen before when it can)
   * and throws the error the embedded log would otherwise.
   */
  async checkPartition(topic: string, partition: number): Promise<void> {
    let count = this.known.get(topic);
    if (count === undefined || !(partition < count)) count = await this.partitionCount(topic);
    if (count === 0) throw new Error(`${where(topic)} does not exist`);
    if (!Number.isInteger(partition) || partition < 0 || partition >= count) {
      throw new Error(`${where(topic)} has no partition [${partition}] (it has ${count})`);
    }
  }

  ensureTopic(topic: string, partitions: number): Promise<void> {
    if (typeof topic !== 'string' || topic.length === 0) {
      return Promise.reject(new Error('topic name must be a non-empty string'));
    }
    if (!LEGAL_TOPIC_NAME.test(topic) || topic === '.' || topic === '..') {
      return Promise.reject(
        new Error(`${where(topic)}: Kafka topic names are 1 to 249 of the characters a-z A-Z 0-9 . _ - (and not "." or "..")`),
      );
    }
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
      return Promise.reject(
        new Error(`${where(topic)}: partition count must be an integer in [1, ${MAX_PARTITIONS}], got ${partitions}`),
      );
    }
    const previous = this.ensuring.get(topic) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.createIfMissing(topic, partitions));
    const tail = run.catch(() => undefined);
    this.ensuring.set(topic, tail);
    void tail.then(() => {
      if (this.ensuring.get(topic) === tail) this.ensuring.delete(topic);
    });
    return run;
  }

  private async createIfMissing(topic: string, partitions: number): Promise<void> {
    const existing = await this.shape(topic);
    if (existing.partitions > 0) {
      this.checkCount(topic, existing.partitions, partitions);
      if (existing.ready) return;
    } else {
      await this.create(topic, partitions);
    }
    await this.waitUntilReady(topic, partitions);
  }

  private async create(topic: string, partitions: number): Promise<void> {
    const config: ITopicConfig = {
      topic,
      numPartitions: partitions,
      replicationFactor: this.options.replicationFactor,
      configEntries: TOPIC_CONFIG,
    };
    try {
      // false: it already exists, created by someone else meanwhile; waitUntilReady checks its count.
      await this.request(topic, ({ admin }) =>
        admin.createTopics({ topics: [config], timeout: CREATE_TIMEOUT_MS, waitForLeaders: false }),
      );
      return;
    } catch (err) {
      if (!hasCause(err, CREATE_REFUSED)) throw withContext(err, `cannot create ${where(topic)}`);
      const provisioner = this.options.provisioner;
      if (provisioner === undefined) {
        throw withContext(err, `cannot create ${where(topic)}: the brokers refuse CreateTopics and no provisioner is configured`);
      }
      try {
        await provisioner(topic, partitions);
      } catch (provisionError) {
        throw withContext(provisionError, `cannot create ${where(topic)}: the provisioner failed`);
      }
    }
  }

  /** Waits until the metadata shows the topic with exactly `partitions` partitions, each with a leader. */
  private async waitUntilReady(topic: string, partitions: number): Promise<void> {
    const deadline = Date.now() + this.options.topicReadyTimeoutMs;
    let last: TopicShape = { partitions: 0, ready: false };
    for (;;) {
      let lastError: unknown = null;
      try {
        last = await this.shape(topic);
      } catch (err) {
        lastError = err;
      }
      if (last.partitions > 0) {
        this.checkCount(topic, last.partitions, partitions);
        if (last.ready) return;
      }
      if (Date.now() >= deadline) {
        const seen = last.partitions === 0 ? 'it does not exist' : 'not every partition has a leader';
        const error = new Error(
          `${where(topic)} is not ready after ${this.options.topicReadyTimeoutMs} ms: ${seen}` +
            (lastError === null ? '' : ` (last metadata error: ${String(lastError)})`),
        );
        throw error;
      }
      await sleep(METADATA_POLL_MS);
    }
  }

  private checkCount(topic: string, actual: number, wanted: number): void {
    if (actual !== wanted) throw new Error(`${where(topic)} already exists with ${actual} partitions, not ${wanted}`);
  }

  /** The topic as the cluster's metadata shows it now. */
  private async shape(topic: string): Promise<TopicShape> {
    let partitionsMeta;
    try {
      // Asks for this topic only: unaffected by the deleted topics kafkajs may remember.
      const { admin } = await this.current();
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      partitionsMeta = topics.find((t) => t.name === topic)?.partitions ?? [];
    } catch (err) {
      if (hasCause(err, TOPIC_MISSING)) {
        this.known.delete(topic);
        return { partitions: 0, ready: false };
      }
      throw withContext(err, `cannot read the metadata of ${where(topic)}`);
    }
    const partitions = partitionsMeta.length;
    if (partitions === 0) this.known.delete(topic);
    else this.known.set(topic, partitions);
    const ready = partitions > 0 && partitionsMeta.every((p) => p.partitionErrorCode === 0 && p.leader >= 0);
    return { partitions, ready };
  }

  /** Offset the next appended record of the partition will get. */
  async highWatermark(topic: string, partition: number): Promise<number> {
    await this.checkPartition(topic, partition);
    const deadline = Date.now() + this.options.topicReadyTimeoutMs;
    let high: string | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const offsets = await this.request(topic, (client) => {
          client.targets.add(topic);
          return client.admin.fetchTopicOffsets(topic);
        });
        high = offsets.find((o) => o.partition === partition)?.high;
        if (high !== undefined) break;
      } catch (err) {
        if (hasCause(err, TOPIC_MISSING) && (await this.partitionCount(topic)) === 0) {
          throw new Error(`${where(topic)} does not exist`, { cause: err });
        }
        if (!isMetadataGap(err) || Date.now() >= deadline) {
          throw withContext(err, `cannot read the high watermark of ${where(topic, partition)}`);
        }
      }
      if (Date.now() >= deadline) break;
      // The client's metadata lacked the topic's leaders for a moment (a topic just created): ask again.
      await sleep(Math.min(1000, METADATA_POLL_MS * 2 ** attempt));
    }
    const hw = Number(high);
    if (high === undefined || !Number.isSafeInteger(hw) || hw < 0) {
      throw new Error(`${where(topic, partition)}: the brokers answered high watermark ${high}`);
    }
    return hw;
  }

  /**
   * Deletes the topic; a missing topic is not an error, nor are brokers that
   * do not delete topics (it stays then). Every node should call this when an
   * index goes, deleted by it or not, so that no client of it keeps asking
   * the brokers about the topic.
   */
  async deleteTopic(topic: string): Promise<void> {
    this.known.delete(topic);
    try {
      if ((await this.partitionCount(topic)) === 0) return;
      await this.request(topic, ({ admin }) => admin.deleteTopics({ topics: [topic], timeout: DELETE_TIMEOUT_MS }));
    } catch (err) {
      if (hasCause(err, TOPIC_MISSING)) return;
      if (!hasCause(err, DELETE_REFUSED)) throw withContext(err, `cannot delete ${where(topic)}`);
      this.options.warn(`the brokers refuse to delete ${where(topic)}; it stays, with its records (${String(err)})`);
    } finally {
      this.known.delete(topic);
      if (this.client.targets.has(topic)) this.replaceClient();
    }
  }
}
