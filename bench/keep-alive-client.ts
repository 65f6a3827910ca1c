/**
 * A JSON-over-HTTP client on node:http with keep-alive connections, the way
 * Elasticsearch's official JavaScript client talks to a node (an http.Agent
 * with keepAlive). Latency benchmarks use it so that they measure the server
 * and the response parsing every client does, not the per-request machinery
 * of `fetch` (WHATWG streams, Headers and Response objects), which on this
 * machine adds about a millisecond to a small request.
 */
import { Agent, request } from 'node:http';

export interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
}

/** A request failed on a reused keep-alive socket before any answer: safe to send again. */
class StaleSocket extends Error {}

export class KeepAliveClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private readonly host: string;
  private readonly port: number;

  constructor(baseUrl: string) {
    const u = new URL(baseUrl);
    this.host = u.hostname;
    this.port = Number(u.port);
  }

  /** Sends `body` as JSON (when given) and parses the answer as JSON when it is JSON. */
  request(method: string, path: string, body?: unknown): Promise<JsonResponse> {
    return this.send(method, path, body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8'), 'application/json');
  }

  /** Sends prepared bytes (an NDJSON body) and parses the answer as `request` does. */
  async send(method: string, path: string, payload: Buffer | undefined, contentType: string): Promise<JsonResponse> {
    try {
      return await this.sendOnce(method, path, payload, contentType);
    } catch (err) {
      // A kept-alive socket the server closed while this process was busy (an in-process peer's
      // synchronous load outlasting the server's keep-alive timeout) fails on reuse: send it again
      // on a new one, as Node's documentation advises (`request.reusedSocket`).
      if (!(err instanceof StaleSocket)) throw err;
      return this.sendOnce(method, path, payload, contentType);
    }
  }

  private sendOnce(method: string, path: string, payload: Buffer | undefined, contentType: string): Promise<JsonResponse> {
    const headers: Record<string, string | number> = payload ? { 'content-type': contentType, 'content-length': payload.length } : {};
    return new Promise((resolve, reject) => {
      const req = request({ host: this.host, port: this.port, method, path, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          if (String(res.headers['content-type'] ?? '').startsWith('application/json') && text.length > 0) {
            try {
              parsed = JSON.parse(text);
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
              return;
            }
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => reject(req.reusedSocket && err.code === 'ECONNRESET' ? new StaleSocket(err.message) : err));
      req.end(payload);
    });
  }

  /**
   * Sends prepared bytes and reads the answer's status and, when it is an
   * error, its `error.type`, without decoding a large body: a benchmark's
   * load generator that parses a 10 MB answer (or serialises a 10 MB
   * request) on the thread that times the probes delays the probes itself.
   */
  status(method: string, path: string, payload: Buffer | undefined, contentType: string): Promise<{ status: number; errorType: string | undefined }> {
    const headers: Record<string, string | number> = payload ? { 'content-type': contentType, 'content-length': payload.length } : {};
    return new Promise((resolve, reject) => {
      const req = request({ host: this.host, port: this.port, method, path, agent: this.agent, headers }, (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (status >= 400) chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          let errorType: string | undefined;
          if (status >= 400) {
            try {
              errorType = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { type?: string } }).error?.type;
            } catch {
              // not JSON: the status alone
            }
          }
          resolve({ status, errorType });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * Posts a prepared NDJSON bulk body; rejects on a status other than 200 or
   * a failed item. The answer is checked for `"errors":false` in its first
   * bytes without parsing the items: a load generator on the server's own
   * cores must not take their time (Rally's bulk runner does the same without
   * detailed results).
   */
  bulk(path: string, body: Buffer): Promise<void> {
    const headers = { 'content-type': 'application/x-ndjson', 'content-length': body.length };
    return new Promise((resolve, reject) => {
      const req = request({ host: this.host, port: this.port, method: 'POST', path, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const head = Buffer.concat(chunks).subarray(0, 64).toString('utf8');
          if (res.statusCode !== 200 || !/"errors":false/.test(head)) {
            reject(new Error(`bulk failed: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}`));
          } else resolve();
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
