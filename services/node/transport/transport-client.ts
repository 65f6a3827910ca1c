/**
 * The calling end of the node-to-node transport: a pool of connections per
 * remote node, reused by every request to that node (requests are
 * multiplexed, so one connection carries many at once). A connection that
 * fails is dropped and the next request to that node opens a new one, so a
 * restarted node is reached again without any bookkeeping by the caller.
 * Requests are never retried here: a query opens a search context, and only
 * the caller knows whether running it twice is harmless.
 */
import { EsError } from '../../../shared/errors/es-errors.ts';
import type { RpcMethod } from './envelope.ts';
import { TransportConnection, type NodeAddress } from './transport-connection.ts';
import { transportSerialization } from '../../../shared/errors/transport-errors.ts';
import type { TransportTls } from './transport-tls.ts';

export type { NodeAddress } from './transport-connection.ts';

/** Elasticsearch's `transport.connect_timeout` default. */
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export interface TransportClientOptions {
  readonly connectTimeoutMs?: number;
  /** Timeout of a request that does not give its own; null (default) = none, as Elasticsearch's searches have none. */
  readonly defaultTimeoutMs?: number | null;
  /** Connections per remote node, used round robin (default 1). */
  readonly connectionsPerNode?: number;
  /** `xpack.security.transport.ssl.*`: mutual TLS; absent = plain TCP. */
  readonly tls?: TransportTls | null;
}

export interface CallOptions {
  /** ms until receive_timeout_transport_exception; null = none. */
  readonly timeoutMs?: number | null;
}

interface NodePool {
  readonly slots: (Promise<TransportConnection> | null)[];
  next: number;
}

/** TransportService's answer to a request sent after it stopped. */
function transportClosed(): EsError {
  return new EsError('transport_exception', "TransportService is closed stopped can't send request", 500);
}

export class TransportClient {
  private readonly pools = new Map<string, NodePool>();
  private closed = false;
  private readonly connectTimeoutMs: number;
  private readonly defaultTimeoutMs: number | null;
  private readonly perNode: number;
  private readonly tls: TransportTls | null;

  constructor(opts: TransportClientOptions = {}) {
    this.tls = opts.tls ?? null;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? null;
    this.perNode = Math.max(1, opts.connectionsPerNode ?? 1);
  }

  /** Sends `request` to `node` and resolves with its response, or rejects with an EsError. */
  async call<Req, Res>(node: NodeAddress, method: RpcMethod<Req, Res>, request: Req, opts: CallOptions = {}): Promise<Res> {
    const payload = method.request.encode(request);
    const conn = await this.connection(node);
    const timeout = opts.timeoutMs === undefined ? this.defaultTimeoutMs : opts.timeoutMs;
    const response = await conn.request(method.name, payload, timeout);
    try {
      return method.response.decode(response);
    } catch (err) {
      throw transportSerialization(`response of [${method.name}] from [${node.name}]`, err);
    }
  }

  private connection(node: NodeAddress): Promise<TransportConnection> {
    if (this.closed) return Promise.reject(transportClosed());
    const key = `${node.host}:${node.port}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = { slots: new Array<Promise<TransportConnection> | null>(this.perNode).fill(null), next: 0 };
      this.pools.set(key, pool);
    }
    const slot = pool.next;
    pool.next = (pool.next + 1) % this.perNode;
    const existing = pool.slots[slot];
    if (!existing) return this.open(pool, slot, node);
    return existing.then((c) => (c.closed ? this.replace(pool, slot, existing, node) : c));
  }

  /** A fresh connection in place of a closed one (the node restarted, or the network failed). */
  private replace(pool: NodePool, slot: number, stale: Promise<TransportConnection>, node: NodeAddress): Promise<TransportConnection> {
    const now = pool.slots[slot];
    if (now && now !== stale) return now; // another caller reopened it already
    return this.open(pool, slot, node);
  }

  private open(pool: NodePool, slot: number, node: NodeAddress): Promise<TransportConnection> {
    const p = TransportConnection.open(node, this.connectTimeoutMs, this.tls);
    pool.slots[slot] = p;
    // A failed connect leaves the slot empty, so the next call tries again.
    p.catch(() => {
      if (pool.slots[slot] === p) pool.slots[slot] = null;
    });
    return p;
  }

  /** Closes every connection; requests still waiting fail as disconnected, later calls with transport_exception. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.pools.values()].flatMap((p) => p.slots.filter((s): s is Promise<TransportConnection> => s !== null));
    this.pools.clear();
    // A slot whose connect failed has nothing to close; that failure went to its caller.
    await Promise.all(all.map((p) => p.then((c) => c.close(), () => undefined)));
  }
}
