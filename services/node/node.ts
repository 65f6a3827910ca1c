/**
 * A search node: wires the commit log, the cluster-state machine, the
 * indexer (shard copies), the coordinators and the REST API together.
 *
 * On one machine (`log: embedded`) the node hosts every shard. In a cluster
 * (`log: kafka`) it also joins the membership group, hosts the copies the
 * master's allocation table gives it, serves them to the other nodes over
 * the transport, and coordinates requests over every node's copies.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { CommitLog } from '../../shared/log/commit-log.ts';
import { EmbeddedLog } from '../../shared/log/embedded-log.ts';
import { KafkaLog, type KafkaLogEntry, type TopicProvisioner } from '../../shared/log/kafka-log.ts';
import { ConfigError, type NodeConfig } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { MetaService } from './cluster/meta-service.ts';
import type { ClusterState } from './cluster/cluster-state.ts';
import type { IndexMetadata } from './cluster/index-metadata.ts';
import { Membership, type NodeInfo } from './cluster/membership.ts';
import { EMPTY_TABLE } from './cluster/allocation.ts';
import { ShardDirectory, type CopyRoute } from './copies/shard-directory.ts';
import { SlowLog } from './search/slow-log.ts';
import { CopyAccess } from './copies/copy-access.ts';
import { IndicesService } from './indexer/indices-service.ts';
import { IndexAdmin } from './coordinator/index-admin.ts';
import { WriteCoordinator } from './coordinator/write-coordinator.ts';
import { DocReader } from './coordinator/doc-reader.ts';
import { SearchCoordinator } from './coordinator/search-coordinator.ts';
import { SearchContexts } from './search/search-contexts.ts';
import { RequestIds } from './request-ids.ts';
import { resolveIndices } from './cluster/index-resolver.ts';
import { createHttpServer } from './rest/http-server.ts';
import { routeTable } from './rest/route-table.ts';
import type { NodeContext } from './rest/node-context.ts';
import { defaultConsoleDir } from './rest/console-static.ts';
import { ALLOCATION_ENABLE, EffectiveSettings, MAX_OPEN_SCROLL_CONTEXT } from './cluster/cluster-settings.ts';
import { allocationEnableFor, allocationIndexInfo, allocationSignature } from './cluster/allocation-settings.ts';
import { enableDecision } from './cluster/allocation.ts';
import { TransportServer } from './transport/transport-server.ts';
import { TransportClient } from './transport/transport-client.ts';
import { ShardService } from './transport/shard-service.ts';
import { ShardWorkers } from './shard-worker/shard-workers.ts';
import { buildCharacterTables } from '../../shared/engine/analysis/character-tables.ts';
import { startTracing, type Tracing } from '../../shared/telemetry/tracing.ts';
import { TaskRegistry } from './tasks/task-registry.ts';
import { Rebuilds } from './coordinator/rebuild.ts';
import { NodeAdmin } from './stats/node-admin.ts';
import { buildNodeStats, type NodeStatsRequest } from './stats/node-stats.ts';
import { observeGc, stopObservingGc } from './stats/process-figures.ts';
import { NODE_ADMIN } from './transport/rpc-messages.ts';
import { NodeSecurity } from './security/request-security.ts';
import { loadTlsMaterial, type TlsMaterial } from './security/tls-files.ts';
import type { TransportTls } from './transport/transport-tls.ts';
import { kafkaConnection } from './security/kafka-connection.ts';
import { bootstrapElasticPassword, ensureSecuritySecret } from './security/bootstrap.ts';

interface NodeIdentity {
  readonly nodeId: string;
  readonly clusterUuid: string;
}

/** The node id and cluster uuid are created once and kept in the data directory. */
async function loadIdentity(dataDir: string): Promise<NodeIdentity> {
  const file = join(dataDir, 'node.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as NodeIdentity;
  } catch {
    const id: NodeIdentity = { nodeId: randomBytes(16).toString('base64url').slice(0, 22), clusterUuid: randomBytes(16).toString('base64url').slice(0, 22) };
    await writeFile(file, JSON.stringify(id));
    return id;
  }
}

/** `kafka.topic_provisioner`: creates topics through a URL where the brokers refuse CreateTopics. */
function urlProvisioner(url: string): TopicProvisioner {
  return async (topic, partitions) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ topic, partitions }) });
    if (!res.ok) throw new Error(`topic provisioner [${url}] answered ${res.status}: ${await res.text()}`);
  };
}

/** The parts of a cluster node that a single node does without. */
interface ClusterParts {
  readonly transportServer: TransportServer;
  readonly transportClient: TransportClient;
  membership: Membership | null;
}

export interface NodeStartOptions {
  /** Log to this logger instead of stdout + path.logs (tests). */
  readonly logger?: Logger;
  /** How long the stop waits for one shard copy's close; default 30 s (tests shorten it). */
  readonly copyCloseLimitMs?: number;
}

export class Node implements NodeContext {
  httpPort = 0;
  transportPort = 0;
  private http: FastifyInstance | null = null;
  /** Span export, when an OTLP endpoint is configured; flushed and stopped by stop(). */
  private tracing: Tracing | null = null;
  /** What this node is running: by-query and reindex requests, searches, bulks (`GET /_tasks`, `_cat/tasks`). */
  readonly tasks: TaskRegistry;
  /** Replay-based rebuilds this node drives (`POST /{index}/_rebuild`). */
  readonly rebuilds: Rebuilds;
  /** HTTP connections open now and ever opened (`_nodes/stats` http). */
  private readonly httpConnections = { currentOpen: 0, totalOpened: 0 };
  /** Stats, segments, force merges and cache clears of copies on every node. */
  readonly nodeAdmin: NodeAdmin;
  /** Authentication and authorization of HTTP requests; null with `xpack.security.enabled: false`. */
  security: NodeSecurity | null = null;
  /** `xpack.security.http.ssl.*` PEMs, read at start. */
  private httpsMaterial: TlsMaterial | null = null;

  private constructor(
    readonly config: NodeConfig,
    readonly logger: Logger,
    readonly identity: NodeIdentity,
    readonly log: CommitLog,
    readonly meta: MetaService,
    readonly indices: IndicesService,
    readonly directory: ShardDirectory,
    readonly access: CopyAccess,
    readonly admin: IndexAdmin,
    readonly writes: WriteCoordinator,
    readonly reader: DocReader,
    readonly search: SearchCoordinator,
    /** Dynamic cluster settings in force on this node. */
    readonly settings: EffectiveSettings,
    private readonly workers: ShardWorkers,
    private readonly clusterParts: ClusterParts | null,
  ) {
    this.tasks = new TaskRegistry(identity.nodeId);
    this.rebuilds = new Rebuilds({ nodeId: () => this.info.id, meta, log, indices, directory, access, tasks: this.tasks, onError: (err, context) => logger.error({ err, context }, 'rebuild failed') });
    this.nodeAdmin = new NodeAdmin({
      self: () => this.info,
      indices,
      directory,
      transport: clusterParts?.transportClient ?? null,
      nodeStats: (body) => this.localNodeStats(body as NodeStatsRequest),
      tasks: (detailed) => this.tasks.list({}).map((t) => t.info(detailed)),
    });
  }

  /** This node's entry of `_nodes/stats`. */
  localNodeStats(req: NodeStatsRequest): Promise<Record<string, unknown>> {
    return buildNodeStats(
      {
        info: this.info,
        dataPath: this.config.pathData,
        workers: this.workers.size,
        workersInFlight: () => this.workers.inFlight,
        http: this.httpConnections,
        transport: { serverOpen: this.clusterParts?.transportServer.openConnections ?? 0 },
        mapped: () => {
          let bytes = 0;
          let count = 0;
          for (const h of this.indices.allHeld()) {
            for (const [ext, n] of Object.entries(h.copy.engine.stats.fileSizes)) {
              if (ext === 'liv') continue;
              bytes += n;
              count++;
            }
          }
          return { bytes, count };
        },
        copies: () => this.nodeAdmin.localCopyStats(null),
      },
      req,
    );
  }

  get cluster(): ClusterState {
    return this.meta.state;
  }

  get nodeId(): string {
    return this.identity.nodeId;
  }

  get clusterUuid(): string {
    return this.identity.clusterUuid;
  }

  /** This node as the membership group and `_nodes` describe it. */
  get info(): NodeInfo {
    const host = this.config.publishHost;
    return {
      id: this.nodeId,
      name: this.config.nodeName,
      httpAddress: `${host}:${this.httpPort}`,
      transportAddress: `${host}:${this.transportPort}`,
      data: this.config.nodeData,
    };
  }

  static async start(config: NodeConfig, opts: NodeStartOptions = {}): Promise<Node> {
    const logger =
      opts.logger ?? createLogger({ level: config.logLevel, pathLogs: config.pathLogs, clusterName: config.clusterName, nodeName: config.nodeName });
    // Before anything that makes spans; the HTTP server adds its request hooks only when tracing runs.
    const tracing = await startTracing({
      endpoint: config.otlpTracesEndpoint || undefined,
      bufferSize: config.traceBufferSize,
      serviceName: config.serviceName,
      nodeName: config.nodeName,
      clusterName: config.clusterName,
      onDiagnostic: (level, message) => logger[level]({ component: 'opentelemetry' }, message),
    });
    if (tracing) logger.info({ endpoint: config.otlpTracesEndpoint || undefined, buffer: config.traceBufferSize || undefined }, 'tracing');
    // TLS files first: a bad one stops the node before it opens anything.
    const httpsMaterial = config.security.http.enabled ? loadTlsMaterial('xpack.security.http.ssl', config.security.http) : null;
    const transportTls = config.log === 'kafka' ? transportTlsOf(config) : null;
    observeGc();
    await mkdir(config.pathData, { recursive: true });
    const identity = await loadIdentity(config.pathData);
    const clustered = config.log === 'kafka';
    const provisioner = config.topicProvisioner ? urlProvisioner(config.topicProvisioner) : undefined;
    let log: CommitLog;
    if (clustered) {
      if (config.brokers.length === 0) throw new Error('log [kafka] needs --brokers host:port[,host:port...]');
      log = await KafkaLog.open({
        brokers: config.brokers,
        clientId: `${config.clusterName}.${config.nodeName}`,
        provisioner,
        logger: kafkaLogger(logger),
        connection: kafkaConnection(config.kafkaSecurity),
      });
    } else {
      log = await EmbeddedLog.open(join(config.pathData, 'log'), { fsync: config.logFsync });
    }
    const parts: ClusterParts | null = clustered
      ? {
          transportServer: new TransportServer({ onError: (err, context) => logger.warn({ err, context }, 'transport error'), tls: transportTls }),
          transportClient: new TransportClient({ tls: transportTls }),
          membership: null,
        }
      : null;
    const starting = ShardWorkers.start({
      count: config.processors,
      onExit: (index, why) => logger.error({ worker: index, why }, 'shard worker stopped: its copies no longer index or search'),
    });
    // While the workers boot: the analyzers' tables, which the first _analyze or text query would build on the HTTP thread.
    buildCharacterTables();
    const workers = await starting;
    const ids = new RequestIds(identity.nodeId);
    const meta = new MetaService(log, config.clusterName, ids);
    // The node is built last; the directory only asks for it once the node runs.
    const built: { node: Node | null } = { node: null };
    const self = (): NodeInfo => built.node!.info;
    const settings = new EffectiveSettings(() => meta.state.clusterSettings, config.clusterSettings);
    const indices = new IndicesService({
      log,
      state: meta.state,
      dataDir: config.pathData,
      clusterName: config.clusterName,
      onError: (err, context) => logger.error({ err, context }, 'indexer error'),
      onNotice: (message) => logger.warn(message),
      slowLog: new SlowLog(logger, config.nodeName),
      copyCloseLimitMs: opts.copyCloseLimitMs,
      workers,
      hosted: parts ? (m) => hostedShards(parts.membership, identity.nodeId, m) : undefined,
      // One node holds primaries only, and a shard it never held is a new one.
      mayOpenNew: parts ? undefined : (m) => {
        const { enable, fromIndexSetting } = allocationEnableFor(m, settings);
        return enableDecision(enable, true, true, fromIndexSetting) === null;
      },
    });
    const directory = new ShardDirectory({
      self,
      indices,
      view: parts ? () => parts.membership?.view ?? { members: [self()], master: null, table: EMPTY_TABLE } : undefined,
      transport: parts?.transportClient,
      onError: (err, context) => logger.warn({ err, context }, 'shard directory'),
    });
    const access = new CopyAccess(parts?.transportClient ?? null, (err) => logger.debug({ err }, 'releasing a remote search context failed'));
    meta.state.onApplied(() => void indices.reconcile());
    await meta.start();
    await indices.reconcile();
    const maxScrolls = () => settings.get(MAX_OPEN_SCROLL_CONTEXT);
    const contexts = new SearchContexts(maxScrolls);
    const admin = new IndexAdmin(meta, indices, directory, settings);
    const writes = new WriteCoordinator(log, meta, indices, admin, ids, directory, access);
    const reader = new DocReader(meta.state, directory, access);
    const search = new SearchCoordinator(meta.state, directory, access, {
      maxOpenScrollContexts: maxScrolls,
      contexts,
      rewrite: {
        getSource: async (index, type, id, routing) => {
          const r = await reader.get({ index, type, id, routing, version: null });
          return r.doc?.source ? (JSON.parse(r.doc.source.toString('utf8')) as Record<string, unknown>) : null;
        },
        storedScript: (id) => meta.state.storedScripts.get(id),
      },
    });
    const node = new Node(config, logger, identity, log, meta, indices, directory, access, admin, writes, reader, search, settings, workers, parts);
    built.node = node;
    node.httpsMaterial = httpsMaterial;
    if (config.security.enabled) {
      node.security = new NodeSecurity(meta.state, logger);
      await ensureSecuritySecret(meta);
      await bootstrapElasticPassword(meta, config.elasticPassword, logger);
    }
    node.tracing = tracing;
    if (parts) await node.joinCluster(parts, contexts);
    await node.listen();
    if (parts) await node.startMembership(parts, provisioner);
    // Rebuilds the cluster state shows running go on from their copies' commits: this node's own, and
    // on the master those whose driver is not in the cluster.
    const membership = parts?.membership;
    if (!membership) node.rebuilds.resume({ adopt: true, alive: () => false });
    else node.rebuilds.resume({ adopt: membership.isMaster, alive: (id) => membership.members.some((m) => m.id === id) });
    return node;
  }

  /** Serves this node's copies to the others (before joining, so it answers as soon as it gets copies). */
  private async joinCluster(parts: ClusterParts, contexts: SearchContexts): Promise<void> {
    const copies = {
      copy: (uuid: string, shard: number) => this.indices.held(uuid, shard)?.copy,
      meta: (uuid: string) => this.cluster.indexByUuid(uuid),
      held: () => this.indices.allHeld().map((h) => ({ uuid: h.meta.uuid, shard: h.shard, copy: h.copy, state: h.state, recovery: h.recovery })),
    };
    new ShardService(copies, contexts, this.config.nodeName).register(parts.transportServer);
    parts.transportServer.handle(NODE_ADMIN, async (r) => ({ body_json: JSON.stringify(await this.nodeAdmin.handle(r.action, JSON.parse(r.body_json))) }));
    this.transportPort = await parts.transportServer.listen(this.config.networkHost, this.config.transportPort);
  }

  /**
   * Joins the membership group. The master rebalances whenever the index
   * list changes (an index created or deleted, replicas changed), so the
   * table always covers every index; every node reconciles its copies with
   * each new table.
   */
  private async startMembership(parts: ClusterParts, provisioner: TopicProvisioner | undefined): Promise<void> {
    const membership = await Membership.start({
      brokers: this.config.brokers,
      clusterName: this.config.clusterName,
      node: this.info,
      indices: () => this.cluster.indices().map(allocationIndexInfo),
      allocation: () => ({ enable: this.settings.get(ALLOCATION_ENABLE) }),
      provisioner,
      sessionTimeoutMs: this.config.sessionTimeoutMs,
      logger: kafkaLogger(this.logger),
      connection: kafkaConnection(this.config.kafkaSecurity),
    });
    parts.membership = membership;
    membership.on('change', (view) => {
      void this.indices.reconcile();
      void this.directory.poll();
      // A rebuild whose driving node left goes on, driven by the master.
      if (membership.isMaster) this.rebuilds.resume({ adopt: true, alive: (id) => view.members.some((m) => m.id === id) });
    });
    membership.on('error', (err) => this.logger.error({ err }, 'membership stopped'));
    let signature = allocationSignature(this.cluster.indices(), this.settings);
    this.cluster.onApplied(() => {
      const next = allocationSignature(this.cluster.indices(), this.settings);
      if (next === signature) return;
      signature = next;
      if (membership.isMaster) membership.requestRebalance().catch((err: Error) => this.logger.warn({ err }, 'rebalance request failed'));
    });
    // Indices created before this node became master (or while no master ran) get allocated now.
    if (membership.isMaster) await membership.requestRebalance().catch((err: Error) => this.logger.warn({ err }, 'rebalance request failed'));
    await this.indices.reconcile();
    this.directory.start();
  }

  private async listen(): Promise<void> {
    const app = createHttpServer({
      maxContentLength: this.config.maxContentLength,
      readTimeoutMs: this.config.readTimeoutMs,
      inflightRequestsLimit: this.config.inflightRequestsLimit,
      logger: this.logger,
      routes: routeTable(this),
      cors: this.config.cors,
      security: this.security,
      https: this.httpsMaterial ? { material: this.httpsMaterial, clientAuthentication: this.config.security.http.clientAuthentication } : null,
      consoleDir: defaultConsoleDir(),
    });
    app.server.on('connection', (socket) => {
      this.httpConnections.currentOpen++;
      this.httpConnections.totalOpened++;
      socket.once('close', () => this.httpConnections.currentOpen--);
    });
    await app.listen({ host: this.config.networkHost, port: this.config.httpPort });
    const addr = app.server.address();
    this.httpPort = typeof addr === 'object' && addr ? addr.port : this.config.httpPort;
    this.http = app;
    this.logger.info(
      {
        host: this.config.networkHost,
        port: this.httpPort,
        transportPort: this.transportPort || undefined,
        // Said only when on, so the line of a node without security stays as it was.
        security: this.security ? { https: this.config.security.http.enabled, transportTls: this.config.security.transport.enabled } : undefined,
      },
      'started',
    );
  }

  /** Refreshes every started copy of the indices; `_shards` as Elasticsearch counts them. */
  refresh(metas: readonly IndexMetadata[]): Promise<{ total: number; successful: number }> {
    return this.everyCopy(metas, (route, meta, s) => this.access.refresh(route, meta, s));
  }

  /** Refreshes and commits every started copy of the indices (`_flush`). */
  flush(metas: readonly IndexMetadata[]): Promise<{ total: number; successful: number }> {
    return this.everyCopy(metas, (route, meta, s) => this.access.flush(route, meta, s));
  }

  private async everyCopy(
    metas: readonly IndexMetadata[],
    action: (route: CopyRoute, meta: IndexMetadata, shard: number) => Promise<boolean>,
  ): Promise<{ total: number; successful: number }> {
    let total = 0;
    const pending: Promise<boolean>[] = [];
    for (const meta of metas) {
      await this.directory.ready(meta);
      total += meta.settings.numberOfShards * (meta.settings.numberOfReplicas + 1);
      for (let s = 0; s < meta.settings.numberOfShards; s++) {
        for (const route of this.directory.started(meta, s)) pending.push(action(route, meta, s).catch(() => false));
      }
    }
    const done = await Promise.all(pending);
    return { total, successful: done.filter(Boolean).length };
  }

  /** Refreshes every shard copy of the indices an expression names (`refresh` on reads). */
  async refreshFor(expr: string): Promise<void> {
    await this.refresh(resolveIndices(this.cluster, expr, { ignoreUnavailable: true }).map((r) => r.meta));
  }

  /**
   * Stops taking requests and waits for those in flight. A keep-alive
   * connection whose request ends after close() began would then sit idle
   * until its timeout (72 s), holding the port: such connections are closed
   * as soon as they go idle.
   */
  private async closeHttp(): Promise<void> {
    const app = this.http;
    if (app === null) return;
    const closed = app.close();
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    try {
      await closed;
    } finally {
      clearInterval(sweep);
    }
  }

  async stop(): Promise<void> {
    await this.closeHttp();
    this.directory.stop();
    // Leave the group first, so the others take over this node's copies without waiting for the session timeout.
    await this.clusterParts?.membership?.stop();
    this.search.close();
    await this.clusterParts?.transportServer.close();
    await this.clusterParts?.transportClient.close();
    await this.meta.stop();
    await this.indices.close();
    await this.workers.close();
    await this.log.close();
    await this.tracing?.shutdown();
    stopObservingGc();
    this.logger.info('stopped');
  }
}

/**
 * kafkajs's own log lines, at debug: it reports routine group rebalances
 * and retried requests as errors; what matters reaches our log through the
 * failures the log and the membership raise.
 */
function kafkaLogger(logger: Logger): (entry: KafkaLogEntry) => void {
  return (entry) => logger.debug({ kafka: entry }, 'kafkajs');
}

/**
 * `xpack.security.transport.ssl.*` of a cluster node. With security on the
 * transport must be TLS, as Elasticsearch's bootstrap check demands on a basic
 * license: a plain transport would let anyone who reaches the port read
 * every shard without a user.
 */
function transportTlsOf(config: NodeConfig): TransportTls | null {
  const ssl = config.security.transport;
  if (config.security.enabled && !ssl.enabled) {
    throw new ConfigError(
      'Transport SSL must be enabled if security is enabled on a [basic] license. Please set [xpack.security.transport.ssl.enabled] to [true] or disable security by setting [xpack.security.enabled] to [false]',
    );
  }
  return ssl.enabled ? { material: loadTlsMaterial('xpack.security.transport.ssl', ssl), verificationMode: ssl.verificationMode } : null;
}

/** The shards of an index the current allocation table gives this node. */
function hostedShards(membership: Membership | null, nodeId: string, meta: IndexMetadata): number[] {
  const shards = membership?.table.indices[meta.uuid] ?? [];
  const out: number[] = [];
  shards.forEach((copies, s) => {
    if (copies.some((c) => c.nodeId === nodeId)) out.push(s);
  });
  return out;
}

