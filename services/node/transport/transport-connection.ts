/**
 * One outgoing transport connection to a remote node: many requests in
 * flight at once, told apart by request id, each with its own timeout. A
 * response that arrives after its request timed out is dropped (as
 * Elasticsearch's TransportService drops it). When the socket closes, every
 * request still waiting fails with node_disconnected_exception.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { clientTlsOptions, type TransportTls } from './transport-tls.ts';
import type { EsError } from '../../../shared/errors/es-errors.ts';
import { envelopeCodec, type Envelope } from './envelope.ts';
import { FramedSocket } from './framed-socket.ts';
import { currentTraceHeaders } from '../../../shared/telemetry/spans.ts';
import { connectTransport, errorFromWire, nodeDisconnected, receiveTimeout, transportSerialization } from '../../../shared/errors/transport-errors.ts';

/** Where a node's transport listens; `name` is for error messages. */
export interface NodeAddress {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

interface Pending {
  readonly method: string;
  readonly resolve: (payload: Buffer) => void;
  readonly reject: (err: EsError) => void;
  readonly timer: NodeJS.Timeout | null;
}

export class TransportConnection {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  readonly address: string;

  private readonly framed: FramedSocket;

  private constructor(
    readonly node: NodeAddress,
    socket: Socket,
  ) {
    this.address = `${node.host}:${node.port}`;
    this.framed = new FramedSocket(socket, {
      onFrame: (frame) => this.onFrame(frame),
      onClose: () => this.failAll(),
    });
  }

  /** Opens a connection; rejects with connect_transport_exception after `timeoutMs` or on refusal. */
  static open(node: NodeAddress, timeoutMs: number, tls: TransportTls | null = null): Promise<TransportConnection> {
    const address = `${node.host}:${node.port}`;
    return new Promise((resolve, reject) => {
      const socket = tls ? tlsConnect(clientTlsOptions(tls, node.host, node.port)) : netConnect({ host: node.host, port: node.port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(connectTransport(node.name, address, `connect timed out after [${timeoutMs}ms]`));
      }, timeoutMs);
      const onError = (err: Error) => {
        clearTimeout(timer);
        reject(connectTransport(node.name, address, err.message));
      };
      socket.once('error', onError);
      // With TLS the connection is usable once the handshake checked the server's certificate.
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(new TransportConnection(node, socket));
      });
    });
  }

  get closed(): boolean {
    return this.framed.closed;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends one request and resolves with the response payload, or rejects with
   * the remote EsError, receive_timeout_transport_exception after `timeoutMs`
   * (null = no timeout) or node_disconnected_exception.
   */
  request(method: string, payload: Buffer, timeoutMs: number | null): Promise<Buffer> {
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      if (this.closed) {
        reject(nodeDisconnected(this.node.name, this.address, method));
        return;
      }
      const sentAt = Date.now();
      const timer =
        timeoutMs === null
          ? null
          : setTimeout(() => {
              this.pending.delete(id);
              reject(receiveTimeout(this.node.name, this.address, method, id, Date.now() - sentAt));
            }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      const env: Envelope = { id, kind: 'REQUEST', method, payload, error: null, trace_context: currentTraceHeaders() };
      this.framed.send(envelopeCodec.encode(env)).catch(() => this.settle(id, (p) => p.reject(nodeDisconnected(this.node.name, this.address, p.method))));
    });
  }

  private settle(id: number, how: (p: Pending) => void): void {
    const p = this.pending.get(id);
    if (!p) return; // timed out already
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    how(p);
  }

  private onFrame(frame: Buffer): void {
    let env: Envelope;
    try {
      env = envelopeCodec.decode(frame);
    } catch (err) {
      const failure = transportSerialization('transport envelope', err);
      for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(failure));
      this.framed.destroy(failure);
      return;
    }
    if (env.kind !== 'RESPONSE') {
      this.framed.destroy(new Error(`unexpected ${env.kind} frame on a client connection`));
      return;
    }
    const error = env.error;
    this.settle(env.id, (p) => (error ? p.reject(errorFromWire(error)) : p.resolve(env.payload)));
  }

  private failAll(): void {
    for (const id of [...this.pending.keys()]) {
      this.settle(id, (p) => p.reject(nodeDisconnected(this.node.name, this.address, p.method)));
    }
  }

  /** Closes the connection; requests still waiting fail as disconnected. */
  async close(): Promise<void> {
    await this.framed.end();
    this.failAll();
  }
}
