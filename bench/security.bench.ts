/**
 * bench:security — what security costs a request: the same small search
 * against a node with security off (the default), with basic authentication
 * (superuser, and a user limited to `passinfo-*` whose wildcard is narrowed),
 * and with HTTPS on top. Keep-alive connections throughout, as clients keep
 * them (a TLS handshake per request would measure the client).
 *
 *   npx tsx bench/security.bench.ts [--requests 3000] [--concurrency 4]
 *
 * Prints median and p99 latency, requests/s and the process RSS after each.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { rm } from 'node:fs/promises';
import { startServer, tempDir, type TestServer } from '../test/helpers/server.ts';
import { basic, makeCertificates } from '../test/helpers/tls.ts';
import { argNumber } from './dataset.ts';
import { percentile, printTable } from './report.ts';

const requests = argNumber('requests', 3000);
const concurrency = argNumber('concurrency', 4);
const PASSWORD = 'bench-password';

function client(base: string, ca: Buffer | null, headers: Record<string, string>): (path: string) => Promise<number> {
  const url = new URL(base);
  const agent = ca ? new HttpsAgent({ keepAlive: true, maxSockets: concurrency, ca }) : new HttpAgent({ keepAlive: true, maxSockets: concurrency });
  const send = ca ? httpsRequest : httpRequest;
  return (path) =>
    new Promise((resolve, reject) => {
      const req = send({ host: url.hostname, port: url.port, path, method: 'GET', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
}

async function measure(get: (path: string) => Promise<number>, path: string): Promise<{ ms: number[]; rps: number }> {
  for (let i = 0; i < 200; i++) if ((await get(path)) !== 200) throw new Error(`${path} did not answer 200`);
  const ms: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) {
        const s = performance.now();
        await get(path);
        ms.push(performance.now() - s);
      }
    }),
  );
  return { ms, rps: (requests / (performance.now() - t0)) * 1000 };
}

async function seed(server: TestServer, headers: Record<string, string>, ca: Buffer | null): Promise<void> {
  const post = async (method: string, path: string, body: string, type = 'application/json') => {
    const res = await fetchLike(server.url, ca, method, path, body, { ...headers, 'content-type': type });
    if (res >= 300) throw new Error(`${method} ${path}: ${res}`);
  };
  await post('PUT', '/passinfo-2024', '{"settings":{"number_of_shards":2}}');
  await post('PUT', '/other', '{"settings":{"number_of_shards":1}}');
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) lines.push(JSON.stringify({ index: { _index: i % 4 === 0 ? 'other' : 'passinfo-2024', _type: '_doc', _id: String(i) } }), JSON.stringify({ plate: `P${i}`, n: i }));
  await post('POST', '/_bulk?refresh=true', lines.join('\n') + '\n', 'application/x-ndjson');
  await post('PUT', '/_xpack/security/role/reader', '{"indices":[{"names":["passinfo-*"],"privileges":["read"]}]}').catch(() => undefined);
  await post('PUT', '/_xpack/security/user/reader', `{"password":"${PASSWORD}","roles":["reader"]}`).catch(() => undefined);
}

function fetchLike(base: string, ca: Buffer | null, method: string, path: string, body: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(path, base);
  const send = ca ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method, headers, ...(ca ? { ca } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const rssMb = () => (process.memoryUsage().rss / 1024 / 1024).toFixed(0);
const rows: string[][] = [['setup', 'request', 'median ms', 'p99 ms', 'req/s', 'RSS MB']];
const certDir = await tempDir('bench-certs-');
const certs = makeCertificates(certDir);
const setups: { name: string; flags: string[]; https: boolean }[] = [
  { name: 'security off', flags: [], https: false },
  { name: 'security on, HTTP', flags: ['--xpack.security.enabled', 'true'], https: false },
  {
    name: 'security on, HTTPS',
    flags: ['--xpack.security.enabled', 'true', '--xpack.security.http.ssl.enabled', 'true', '--xpack.security.http.ssl.key', certs.nodeKey, '--xpack.security.http.ssl.certificate', certs.nodeCert],
    https: true,
  },
];
for (const setup of setups) {
  const server = await startServer(setup.flags, undefined, { ELASTIC_PASSWORD: PASSWORD });
  const ca = setup.https ? certs.ca : null;
  const secured = setup.flags.length > 0;
  try {
    await seed(server, secured ? basic('elastic', PASSWORD) : {}, ca);
    const users: [string, Record<string, string>][] = secured ? [['elastic', basic('elastic', PASSWORD)], ['reader (passinfo-*)', basic('reader', PASSWORD)]] : [['-', {}]];
    for (const [who, headers] of users) {
      for (const path of ['/_search?size=1', '/passinfo-2024/_doc/1']) {
        const r = await measure(client(server.url, ca, headers), path);
        rows.push([`${setup.name}, ${who}`, path, percentile(r.ms, 50).toFixed(2), percentile(r.ms, 99).toFixed(2), r.rps.toFixed(0), rssMb()]);
      }
    }
  } finally {
    await server.stop();
  }
}
await rm(certDir, { recursive: true, force: true });
printTable(`bench:security — ${requests} requests per row, ${concurrency} at a time, keep-alive (node in this process)`, rows);
