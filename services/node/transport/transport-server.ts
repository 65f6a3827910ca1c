/**
 * The receiving end of the node-to-node transport: a TCP server on the
 * node's `network.host` and `transport.port` that reads Envelope frames,
 * runs the handler registered for each request's method, and answers under
 * the request's id. Requests on one connection run concurrently and may be
 * answered out of order. A handler's EsError goes back as data (type, reason,
 * status, extra, causes), so the caller rethrows the same error.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { serverTlsOptions, type TransportTls } from './transport-tls.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { envelopeCodec, type Envelope, type RpcMethod } from './envelope.ts';
import { FramedSocket } from './framed-socket.ts';
import { errorToWire, transportSerialization } from '../../../shared/errors/transport-errors.ts';
import { inRemoteSpan } from '../../../shared/telemetry/spans.ts';
import { ATTR_RPC_METHOD, ATTR_RPC_SYSTEM } from '../../../shared/telemetry/attributes.ts';

/** Elasticsearch's default `transport.port` (first of its 9300-9400 range). */
export const DEFAULT_TRANSPORT_PORT = 9300;

export type RpcHandler<Req, Res> = (request: Req) => Promise<Res> | Res;

export interface TransportServerOptions {
  /** Failures that no caller sees (a connection reset, a response to a vanished peer), for the node's log. */
  readonly onError?: (err: Error, context: string) => void;
  /** How long close() lets requests in flight finish before cutting their connections (default 5 s). */
  readonly closeGraceMs?: number;
  /** `xpack.security.transport.ssl.*`: mutual TLS; absent = plain TCP. */
  readonly tls?: TransportTls | null;
}

/** ActionNotFoundTransportException. */
function actionNotFound(method: string): EsError {
  return new EsError('action_not_found_transport_exception', `No handler for action [${method}]`, 500);
}

/** NodeClosedException: the node is shutting down. */
function nodeClosed(): EsError {
  return new EsError('node_closed_exception', 'node closed', 500);
}

interface Registered {
  readonly method: RpcMethod<unknown, unknown>;
  readonly handler: RpcHandler<unknown, unknown>;
}

interface Connection {
  readonly framed: FramedSocket;
  inFlight: number;
}

export class TransportServer {
  private readonly handlers = new Map<string, Registered>();
  private readonly connections = new Set<Connection>();
  private server: Server | null = null;
  private closing = false;
  private boundPort = -1;
  private boundHost = '';

  constructor(private readonly opts: TransportServerOptions = {}) {}

  handle<Req, Res>(method: RpcMethod<Req, Res>, handler: RpcHandler<Req, Res>): this {
    if (this.handlers.has(method.name)) throw new Error(`transport handler for [${method.name}] is already registered`);
    this.handlers.set(method.name, {
      method: method as unknown as RpcMethod<unknown, unknown>,
      handler: handler as RpcHandler<unknown, unknown>,
    });
    return this;
  }

  /** Binds `host:port` (port 0 = a free port); resolves with the bound port. */
  async listen(host: string, port: number): Promise<number> {
    if (this.server) throw new Error('transport server already listening');
    // With TLS, a connection is accepted only once its handshake (and the peer's certificate) passed.
    const tls = this.opts.tls;
    const server = tls ? createTlsServer(serverTlsOptions(tls), (socket) => this.accept(socket)) : createServer((socket) => this.accept(socket));
    if (tls) server.on('tlsClientError', (err, socket) => this.report(err, `transport TLS handshake from ${socket.remoteAddress}:${socket.remotePort}`));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.report(err, 'transport server'));
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
    this.boundHost = host;
    return this.boundPort;
  }

  get port(): number {
    return this.boundPort;
  }

  /** `host:port` as other nodes reach it. */
  get publishAddress(): string {
    return `${this.boundHost}:${this.boundPort}`;
  }

  get openConnections(): number {
    return this.connections.size;
  }

  private accept(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    const conn: Connection = {
      inFlight: 0,
      framed: new FramedSocket(socket, {
        onFrame: (frame) => this.onFrame(conn, frame),
        onClose: (err) => {
          this.connections.delete(conn);
          if (err && !isReset(err)) this.report(err, `transport connection from ${socket.remoteAddress}:${socket.remotePort}`);
        },
      }),
    };
    this.connections.add(conn);
  }

  private onFrame(conn: Connection, frame: Buffer): void {
    let env: Envelope;
    try {
      env = envelopeCodec.decode(frame);
    } catch (err) {
      // Without an envelope there is no request id to answer under: the peer speaks another protocol.
      conn.framed.destroy(transportSerialization('transport envelope', err));
      return;
    }
    if (env.kind !== 'REQUEST') {
      conn.framed.destroy(new Error(`unexpected ${env.kind} frame on a server connection`));
      return;
    }
    conn.inFlight++;
    void this.dispatch(env).then((response) => this.reply(conn, response));
  }

  private async dispatch(env: Envelope): Promise<Envelope> {
    const answer = (payload: Buffer, error: unknown): Envelope => ({
      id: env.id,
      kind: 'RESPONSE',
      method: '',
      payload,
      error: error === null ? null : errorToWire(error),
    });
    const reg = this.handlers.get(env.method);
    if (this.closing) return answer(Buffer.alloc(0), nodeClosed());
    if (!reg) return answer(Buffer.alloc(0), actionNotFound(env.method));
    let request: unknown;
    try {
      request = reg.method.request.decode(env.payload);
    } catch (err) {
      return answer(Buffer.alloc(0), transportSerialization(`request of [${env.method}]`, err));
    }
    try {
      // A server span in the caller's trace when the request carries its context (envelope version 2).
      const response = await inRemoteSpan(env.method, env.trace_context, { [ATTR_RPC_SYSTEM]: 'logsearch', [ATTR_RPC_METHOD]: env.method }, async () => reg.handler(request));
      return answer(reg.method.response.encode(response), null);
    } catch (err) {
      if (!(err instanceof EsError)) this.report(err instanceof Error ? err : new Error(String(err)), `transport handler [${env.method}]`);
      return answer(Buffer.alloc(0), err);
    }
  }

  private async reply(conn: Connection, response: Envelope): Promise<void> {
    try {
      await conn.framed.send(envelopeCodec.encode(response));
    } catch (err) {
      // The caller went away; its request already failed on its side as disconnected.
      if (!conn.framed.closed) this.report(err as Error, `transport response ${response.id}`);
    } finally {
      conn.inFlight--;
      if (this.closing && conn.inFlight === 0) void conn.framed.end();
    }
  }

  /**
   * Stops accepting connections, lets requests in flight answer, then closes
   * every connection (callers see node_disconnected_exception for anything
   * sent after that, and reconnect to the next server on that address).
   */
  async close(): Promise<void> {
    this.closing = true;
    const server = this.server;
    this.server = null;
    const stopped = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    const grace = setTimeout(() => {
      for (const c of this.connections) c.framed.destroy();
    }, this.opts.closeGraceMs ?? 5000);
    grace.unref();
    await Promise.all([...this.connections].map((c) => (c.inFlight === 0 ? c.framed.end() : c.framed.whenClosed())));
    clearTimeout(grace);
    await stopped;
  }

  private report(err: Error, context: string): void {
    this.opts.onError?.(err, context);
  }
}

function isReset(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}
