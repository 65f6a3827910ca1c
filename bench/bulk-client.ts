/**
 * Sends prepared NDJSON bulk bodies over keep-alive node:http connections
 * and checks each answer for `"errors":false` in its first bytes, without
 * parsing the items: a load generator on the server's own cores must not
 * take their time (Rally's bulk runner does the same without detailed results).
 */
import { Agent, request } from 'node:http';

export class BulkClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private readonly host: string;
  private readonly port: number;

  constructor(baseUrl: string) {
    const u = new URL(baseUrl);
    this.host = u.hostname;
    this.port = Number(u.port);
  }

  /** Posts `body` to `path`; rejects on a status other than 200 or on any failed item. */
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
