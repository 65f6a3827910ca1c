/**
 * Cluster membership, master election and shard allocation through one Kafka
 * consumer group (DESIGN.md, "Membership, master, allocation, health";
 * docs/cluster-membership.md).
 *
 * Every node is a member of the group `<cluster>.members`, subscribed to the
 * single-partition topic of that name (it never reads it: the group needs a
 * topic, nothing is written there). Kafka's group protocol then gives:
 *  - failure detection: a member that stops heartbeating for the session
 *    timeout is dropped and the group rebalances;
 *  - master election: the group leader, which Kafka picks, computes every
 *    member's assignment; here it is the elected master;
 *  - the table: our assignor (`partitionAssigners`) reads each member's node
 *    from its metadata, the index list from the master's own callback and the
 *    previous table from the newest any member carries, runs `allocate`, and
 *    hands the whole view to every member in the assignment's userData.
 *
 * A rebalance happens on every join and leave. `requestRebalance` (the index
 * list or replica counts changed) makes one by joining a short-lived extra
 * member, which the assignor does not count as a node, and leaving at once:
 * kafkajs has no public way to make a running member rejoin, and any
 * JoinGroup (a new member's included) makes the coordinator rebalance.
 */
import { AssignerProtocol } from 'kafkajs';
import type { Assigner, Consumer, ConsumerCrashEvent, ConsumerGroupJoinEvent, GroupMember, GroupMemberAssignment, Kafka } from 'kafkajs';
import { createKafka, kafkaRetry, logSink } from '../../../shared/log/kafka/client.ts';
import type { KafkaConnectionSecurity, KafkaLogEntry, KafkaLogLevel, KafkaRetryOptions, TopicProvisioner } from '../../../shared/log/kafka/client.ts';
import { TopicAdmin } from '../../../shared/log/kafka/topic-admin.ts';
import { asError } from '../../../shared/log/kafka/errors.ts';
import { allocate, EMPTY_TABLE } from './allocation.ts';
import type { AllocationOptions, AllocationTable, IndexInfo } from './allocation.ts';
import { decodeMember, dropAssignments, encodeAssignment, encodeMember, takeAssignment, tapAssignments } from './membership-protocol.ts';
import type { MembershipView, NodeInfo } from './membership-protocol.ts';

export type { MembershipView, NodeInfo } from './membership-protocol.ts';
export type { AllocationTable, IndexInfo } from './allocation.ts';

export interface MembershipOptions {
  readonly brokers: readonly string[];
  readonly clusterName: string;
  readonly node: NodeInfo;
  /** The indices to allocate, as this node's cluster state has them now; read by the master at each rebalance. */
  readonly indices: () => readonly IndexInfo[];
  /** The cluster's allocation settings now (`cluster.routing.allocation.enable`); read by the master at each rebalance. */
  readonly allocation?: () => AllocationOptions;
  /** Creates `<cluster>.members` where the brokers refuse CreateTopics (see the Kafka log). */
  readonly provisioner?: TopicProvisioner;
  /** How long a silent member stays in the group. Default 10 s. */
  readonly sessionTimeoutMs?: number;
  /** Default a tenth of the session timeout. */
  readonly heartbeatIntervalMs?: number;
  /** How long `start` and `requestRebalance` wait for their view. Default 30 s. */
  readonly viewTimeoutMs?: number;
  readonly retry?: KafkaRetryOptions;
  /** Default `error`. */
  readonly logLevel?: KafkaLogLevel;
  readonly logger?: (entry: KafkaLogEntry) => void;
  /** TLS and SASL to the brokers (`kafka.security.protocol`, ...); default plaintext. */
  readonly connection?: KafkaConnectionSecurity;
}

export type MembershipEvents = {
  /** A new view with another master, other members or another table. */
  change: (view: MembershipView) => void;
  /** The membership stopped for good (kafkajs gave up restarting its consumer). */
  error: (err: Error) => void;
};

/** Kafka's default `session.timeout.ms` (2.x clients). */
const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
const DEFAULT_VIEW_TIMEOUT_MS = 30_000;
/**
 * How many times in a row a member's consumer is rejoined after kafkajs gave
 * up on it, without a join in between, before the membership stops for good.
 */
const MAX_REJOINS = 10;
const PROTOCOL = 'logsearch-members';
const PROTOCOL_VERSION = 1;

const byId = (a: NodeInfo, b: NodeInfo): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What an index list looks like from a table alone: used when the master's callback fails. */
function indicesOfTable(table: AllocationTable): IndexInfo[] {
  return Object.entries(table.indices).map(([uuid, shards]) => ({
    uuid,
    numberOfShards: shards.length,
    numberOfReplicas: Math.max(0, ...shards.map((c) => c.length - 1)),
  }));
}

function sameContent(a: MembershipView, b: MembershipView): boolean {
  return JSON.stringify([a.master, a.members, a.table]) === JSON.stringify([b.master, b.members, b.table]);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(asError(err));
      },
    );
  });
}

export class Membership {
  readonly node: NodeInfo;
  readonly clusterName: string;
  /** The consumer group and the topic it subscribes: `<cluster>.members`. */
  readonly group: string;
  private current: MembershipView = { epoch: 0, master: null, members: [], table: EMPTY_TABLE };
  private readonly listeners: { [E in keyof MembershipEvents]: Set<MembershipEvents[E]> } = { change: new Set(), error: new Set() };
  private readonly waiters = new Set<{ epoch: number; resolve: () => void }>();
  /** Kafka member ids this node's consumers had, to forget their undelivered assignments on stop. */
  private readonly memberIds = new Set<string>();
  private consumer: Consumer | null = null;
  private readonly pokes = new Set<Consumer>();
  private pokeQueued: Promise<void> | null = null;
  private pokeChain: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Crashes of each consumer since its last join (see `rejoin`). */
  private readonly crashes = new Map<Consumer, number>();
  private readonly rejoinTimers = new Set<NodeJS.Timeout>();
  /** Rejoins under way, with their consumer: `stop` waits for them (see `bury`). */
  private readonly rejoining = new Map<Promise<void>, Consumer>();
  private readonly sessionTimeoutMs: number;
  private readonly heartbeatIntervalMs: number;
  private readonly viewTimeoutMs: number;
  private readonly warn: (message: string) => void;

  private constructor(
    private readonly kafka: Kafka,
    private readonly options: MembershipOptions,
  ) {
    this.node = options.node;
    this.clusterName = options.clusterName;
    this.group = `${options.clusterName}.members`;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? Math.max(100, Math.floor(this.sessionTimeoutMs / 10));
    this.viewTimeoutMs = options.viewTimeoutMs ?? DEFAULT_VIEW_TIMEOUT_MS;
    const sink = logSink({ brokers: options.brokers, clientId: this.group, logLevel: options.logLevel, logger: options.logger });
    this.warn = (message) => sink({ level: 'warn', namespace: 'membership', message, extra: { group: this.group, node: this.node.id } });
  }

  /** Joins the cluster's group; resolves with the first view this node is part of. */
  static async start(options: MembershipOptions): Promise<Membership> {
    if (typeof options.clusterName !== 'string' || options.clusterName === '') throw new Error('membership: clusterName must be a non-empty string');
    if (typeof options.node?.id !== 'string' || options.node.id === '') throw new Error('membership: node.id must be a non-empty string');
    const session = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    const heartbeat = options.heartbeatIntervalMs ?? session / 10;
    if (!(heartbeat > 0 && heartbeat < session)) {
      throw new Error(`membership: heartbeatIntervalMs (${heartbeat}) must be positive and below sessionTimeoutMs (${session})`);
    }
    tapAssignments();
    const kafka = createKafka({
      brokers: options.brokers,
      clientId: `${options.clusterName}.${options.node.id}`,
      logLevel: options.logLevel,
      logger: options.logger,
      retry: options.retry,
      connection: options.connection,
    });
    const m = new Membership(kafka, options);
    const admin = new TopicAdmin(kafka, {
      retry: kafkaRetry(options.retry),
      provisioner: options.provisioner,
      replicationFactor: -1,
      topicReadyTimeoutMs: m.viewTimeoutMs,
      warn: m.warn,
    });
    try {
      await admin.ensureTopic(m.group, 1);
    } finally {
      await admin.close();
    }
    try {
      const consumer = m.newConsumer(false);
      m.consumer = consumer;
      await m.run(consumer);
      await withTimeout(m.untilEpoch(1), m.viewTimeoutMs, `membership: node [${options.node.name}] got no view of cluster [${options.clusterName}]`);
    } catch (err) {
      await m.stop();
      throw err;
    }
    return m;
  }

  /** The last view: master, members and table, with its epoch. */
  get view(): MembershipView {
    return this.current;
  }

  get master(): NodeInfo | null {
    return this.current.master;
  }

  get members(): readonly NodeInfo[] {
    return this.current.members;
  }

  get table(): AllocationTable {
    return this.current.table;
  }

  get isMaster(): boolean {
    return this.current.master?.id === this.node.id;
  }

  on<E extends keyof MembershipEvents>(event: E, listener: MembershipEvents[E]): this {
    this.listeners[event].add(listener);
    return this;
  }

  off<E extends keyof MembershipEvents>(event: E, listener: MembershipEvents[E]): this {
    this.listeners[event].delete(listener);
    return this;
  }

  /**
   * Makes the group rebalance, so that the master allocates the index list
   * its callback gives now; resolves with the view of that rebalance. Calls
   * made while one waits to start share it. The master reads its own index
   * list: call this on the master once it applied the change (or on every
   * node; they coalesce per node only, so prefer the master).
   */
  requestRebalance(): Promise<void> {
    if (this.stopped) return Promise.reject(new Error(`membership of node [${this.node.name}] is stopped`));
    if (this.pokeQueued !== null) return this.pokeQueued;
    const next = this.pokeChain
      .catch(() => undefined)
      .then(() => {
        this.pokeQueued = null;
        return this.poke();
      });
    this.pokeQueued = next;
    this.pokeChain = next;
    return next;
  }

  /** Leaves the group (the others rebalance at once, without waiting for the session timeout). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const consumers = [...this.pokes, ...(this.consumer === null ? [] : [this.consumer])];
    this.pokes.clear();
    this.consumer = null;
    for (const t of this.rejoinTimers) clearTimeout(t);
    this.rejoinTimers.clear();
    this.crashes.clear();
    await Promise.all(consumers.map((c) => c.disconnect().catch(() => undefined)));
    // A consumer that was joining again is still joining: disconnect it once it is done.
    const rejoining = [...this.rejoining];
    this.rejoining.clear();
    await Promise.all(rejoining.map(([run, c]) => run.then(() => c.disconnect().catch(() => undefined))));
    dropAssignments(this.group, this.memberIds);
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
  }

  private newConsumer(poke: boolean): Consumer {
    const consumer = this.kafka.consumer({
      groupId: this.group,
      partitionAssigners: [() => this.assigner(poke)],
      sessionTimeout: this.sessionTimeoutMs,
      // How long the coordinator waits for members to rejoin; a dead one is gone after the session timeout anyway.
      rebalanceTimeout: this.sessionTimeoutMs,
      heartbeatInterval: this.heartbeatIntervalMs,
      // kafkajs heartbeats between fetches: an idle fetch must not outlast the heartbeat interval.
      maxWaitTimeInMs: this.heartbeatIntervalMs,
      allowAutoTopicCreation: false,
      retry: kafkaRetry(this.options.retry),
    });
    consumer.on(consumer.events.GROUP_JOIN, (event: ConsumerGroupJoinEvent) => {
      if (!this.isLive(consumer, poke)) {
        this.bury(consumer);
        return;
      }
      this.crashes.delete(consumer);
      this.memberIds.add(event.payload.memberId);
      const view = takeAssignment(this.group, event.payload.memberId);
      if (view !== null) this.accept(view);
    });
    consumer.on(consumer.events.CRASH, (event: ConsumerCrashEvent) => {
      if (!this.isLive(consumer, poke)) this.bury(consumer);
      else if (!event.payload.restart) this.rejoin(consumer, poke, event.payload.error);
    });
    return consumer;
  }

  private isLive(consumer: Consumer, poke: boolean): boolean {
    return !this.stopped && (poke ? this.pokes.has(consumer) : this.consumer === consumer);
  }

  /**
   * Disconnects a consumer this membership let go of that still joins or
   * restarts: kafkajs's disconnect does not stop a consumer that is still
   * joining the group (it joins and runs anyway), nor a restart it schedules
   * right after a CRASH event, so such a consumer would heartbeat, or retry,
   * forever. Deferred past the event, so that the restart timer is set and
   * gets cleared.
   */
  private bury(consumer: Consumer): void {
    setImmediate(() => void consumer.disconnect().catch(() => undefined));
  }

  /**
   * kafkajs does not restart a consumer after an error it deems permanent,
   * and a group member must not die of one rebalance that went wrong (the
   * unpatched librdkafka mock, for one, answers a SyncGroup that comes after
   * the leader's with INVALID_REQUEST; docs/cluster-membership.md). So the
   * member joins again, as a new member, after the retry backoff; a node
   * that keeps failing stops with an `error` event.
   */
  private rejoin(consumer: Consumer, poke: boolean, error: Error): void {
    const live = (): boolean => this.isLive(consumer, poke);
    if (!live()) return;
    const crashes = (this.crashes.get(consumer) ?? 0) + 1;
    this.crashes.set(consumer, crashes);
    if (crashes > MAX_REJOINS) {
      // A poke gives up through its own timeout in `poke`.
      if (poke) return;
      const err = new Error(`membership of node [${this.node.name}] in group [${this.group}] stopped after ${MAX_REJOINS} failed rejoins: ${error.message}`, {
        cause: error,
      });
      for (const l of this.listeners.error) l(err);
      return;
    }
    const type = (error as { type?: unknown }).type;
    this.warn(`node [${this.node.name}] dropped out of group [${this.group}] and joins again: ${typeof type === 'string' ? `${type}: ` : ''}${error.message}`);
    const timer = setTimeout(() => {
      this.rejoinTimers.delete(timer);
      if (!live()) return;
      const run: Promise<void> = this.run(consumer).then(
        () => {
          this.rejoining.delete(run);
        },
        (err: unknown) => {
          this.rejoining.delete(run);
          if (live()) this.rejoin(consumer, poke, asError(err));
        },
      );
      this.rejoining.set(run, consumer);
    }, kafkaRetry(this.options.retry).initialRetryTime);
    this.rejoinTimers.add(timer);
  }

  private async run(consumer: Consumer): Promise<void> {
    await consumer.connect();
    await consumer.subscribe({ topics: [this.group] });
    // Nothing is ever assigned, so nothing is fetched: the loop only heartbeats.
    await consumer.run({ autoCommit: false, eachBatch: async () => undefined });
  }

  private assigner(poke: boolean): Assigner {
    return {
      name: PROTOCOL,
      version: PROTOCOL_VERSION,
      protocol: () => ({
        name: PROTOCOL,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: PROTOCOL_VERSION,
          topics: [this.group],
          userData: encodeMember({ node: this.node, poke, last: this.current.epoch > 0 ? this.current : null }),
        }),
      }),
      assign: async ({ members }) => this.assign(members),
    };
  }

  /** The master's side of a rebalance: one view for every member. */
  private assign(members: readonly GroupMember[]): GroupMemberAssignment[] {
    const nodes = new Map<string, NodeInfo>();
    let last: MembershipView | null = this.current.epoch > 0 ? this.current : null;
    for (const member of members) {
      const payload = decodeMember(AssignerProtocol.MemberMetadata.decode(member.memberMetadata)?.userData);
      if (payload === null) {
        this.warn(`member [${member.memberId}] of group [${this.group}] speaks another protocol; it gets no copies`);
        continue;
      }
      if (payload.last !== null && (last === null || payload.last.epoch > last.epoch)) last = payload.last;
      if (payload.poke) continue;
      // One member per node: a node restarted before its old member timed out is its newest member (joins are in order).
      nodes.delete(payload.node.id);
      nodes.set(payload.node.id, payload.node);
    }
    const memberNodes = [...nodes.values()].sort(byId);
    let indices: readonly IndexInfo[];
    try {
      indices = this.options.indices();
    } catch (err) {
      this.warn(`the index list callback failed, keeping the previous indices: ${asError(err).message}`);
      indices = indicesOfTable(last?.table ?? EMPTY_TABLE);
    }
    let options: AllocationOptions;
    try {
      options = this.options.allocation?.() ?? {};
    } catch (err) {
      // Nothing is placed or moved then: a setting that cannot be read must not let copies go where it forbids.
      options = { enable: 'none', rebalance: false };
      this.warn(`the allocation settings callback failed, keeping copies where they are: ${asError(err).message}`);
    }
    const table = allocate(
      memberNodes.filter((n) => n.data),
      indices,
      last?.table ?? null,
      options,
    );
    const view: MembershipView = { epoch: (last?.epoch ?? 0) + 1, master: this.node, members: memberNodes, table };
    return members.map((m) => ({
      memberId: m.memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: PROTOCOL_VERSION,
        assignment: {},
        userData: encodeAssignment({ group: this.group, to: m.memberId, view }),
      }),
    }));
  }

  private accept(view: MembershipView): void {
    if (this.stopped || view.epoch <= this.current.epoch) return;
    const previous = this.current;
    this.current = view;
    for (const w of [...this.waiters]) {
      if (view.epoch >= w.epoch) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
    if (!sameContent(previous, view)) for (const l of this.listeners.change) l(view);
  }

  private untilEpoch(epoch: number): Promise<void> {
    if (this.current.epoch >= epoch || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add({ epoch, resolve }));
  }

  /** Joins an extra member until the group rebalanced with it, then leaves. */
  private async poke(): Promise<void> {
    if (this.stopped) return;
    const consumer = this.newConsumer(true);
    this.pokes.add(consumer);
    const joined = new Promise<void>((resolve) => {
      consumer.on(consumer.events.GROUP_JOIN, () => resolve());
    });
    try {
      await this.run(consumer);
      await withTimeout(joined, this.viewTimeoutMs, `membership: the rebalance node [${this.node.name}] asked for did not happen`);
    } finally {
      if (this.pokes.delete(consumer)) await consumer.disconnect().catch(() => undefined);
    }
  }
}
