/**
 * A search node: wires the commit log, the cluster-state machine, the
 * indexer (shard copies), the coordinators and the REST API together.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { CommitLog } from '../../shared/log/commit-log.ts';
import { EmbeddedLog } from '../../shared/log/embedded-log.ts';
import type { NodeConfig } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { MetaService } from './cluster/meta-service.ts';
import type { ClusterState } from './cluster/cluster-state.ts';
import { IndicesService } from './indexer/indices-service.ts';
import { IndexAdmin } from './coordinator/index-admin.ts';
import { WriteCoordinator } from './coordinator/write-coordinator.ts';
import { DocReader } from './coordinator/doc-reader.ts';
import { SearchCoordinator } from './coordinator/search-coordinator.ts';
import { RequestIds } from './request-ids.ts';
import { resolveIndices } from './coordinator/index-resolver.ts';
import { createHttpServer } from './rest/http-server.ts';
import { registerRoutes } from './rest/routes/index.ts';

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

export interface NodeStartOptions {
  /** Log to this logger instead of stdout + path.logs (tests). */
  readonly logger?: Logger;
}

export class Node {
  readonly numberOfNodes = 1;
  httpPort = 0;
  private http: FastifyInstance | null = null;

  private constructor(
    readonly config: NodeConfig,
    readonly logger: Logger,
    readonly identity: NodeIdentity,
    readonly log: CommitLog,
    readonly meta: MetaService,
    readonly indices: IndicesService,
    readonly admin: IndexAdmin,
    readonly writes: WriteCoordinator,
    readonly reader: DocReader,
    readonly search: SearchCoordinator,
  ) {}

  get cluster(): ClusterState {
    return this.meta.state;
  }

  get nodeId(): string {
    return this.identity.nodeId;
  }

  get clusterUuid(): string {
    return this.identity.clusterUuid;
  }

  static async start(config: NodeConfig, opts: NodeStartOptions = {}): Promise<Node> {
    const logger =
      opts.logger ?? createLogger({ level: config.logLevel, pathLogs: config.pathLogs, clusterName: config.clusterName, nodeName: config.nodeName });
    await mkdir(config.pathData, { recursive: true });
    const identity = await loadIdentity(config.pathData);
    if (config.log !== 'embedded') throw new Error('the kafka log is not available yet; start with --log embedded');
    const log = await EmbeddedLog.open(join(config.pathData, 'log'), { fsync: config.logFsync });
    const ids = new RequestIds(identity.nodeId);
    const meta = new MetaService(log, config.clusterName, ids);
    const indices = new IndicesService({
      log,
      state: meta.state,
      dataDir: config.pathData,
      clusterName: config.clusterName,
      onError: (err, context) => logger.error({ err, context }, 'indexer error'),
    });
    meta.state.onApplied(() => void indices.reconcile());
    await meta.start();
    await indices.reconcile();
    const admin = new IndexAdmin(meta, indices);
    const writes = new WriteCoordinator(log, meta, indices, admin, ids);
    const reader = new DocReader(meta.state, indices);
    const search = new SearchCoordinator(meta.state, indices, { maxOpenScrollContexts: config.maxOpenScrollContexts });
    const node = new Node(config, logger, identity, log, meta, indices, admin, writes, reader, search);
    await node.listen();
    return node;
  }

  private async listen(): Promise<void> {
    const app = createHttpServer({ maxContentLength: this.config.maxContentLength, logger: this.logger });
    registerRoutes(app, this);
    await app.listen({ host: this.config.networkHost, port: this.config.httpPort });
    const addr = app.server.address();
    this.httpPort = typeof addr === 'object' && addr ? addr.port : this.config.httpPort;
    this.http = app;
    this.logger.info({ host: this.config.networkHost, port: this.httpPort }, 'started');
  }

  /** Refreshes every shard copy of the indices an expression names (`refresh` on reads). */
  async refreshFor(expr: string): Promise<void> {
    for (const { meta } of resolveIndices(this.cluster, expr, { ignoreUnavailable: true })) {
      for (const c of await this.indices.copiesOf(meta)) c.refresh();
    }
  }

  async stop(): Promise<void> {
    await this.http?.close();
    this.search.close();
    await this.meta.stop();
    await this.indices.close();
    await this.log.close();
    this.logger.info('stopped');
  }
}
