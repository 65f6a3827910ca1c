/**
 * Mutual TLS on the transport: nodes with certificates of the cluster's CA
 * talk; a plain TCP peer, a peer without a certificate and one with a
 * certificate of another CA get nothing; `full` checks the server names the
 * address dialled. Certificates are made by openssl for the test.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransportServer } from '../../../services/node/transport/transport-server.ts';
import { TransportClient, type NodeAddress } from '../../../services/node/transport/transport-client.ts';
import type { TransportTls } from '../../../services/node/transport/transport-tls.ts';
import { NODE_STATUS } from '../../../services/node/transport/rpc-messages.ts';
import { makeCertificates, signCertificate } from '../../helpers/tls.ts';
import { isEsError } from '../../../shared/errors/es-errors.ts';

let dir: string;
let otherDir: string;
let tlsOf: (name: string, caDir?: string, mode?: TransportTls['verificationMode']) => TransportTls;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'transport-tls-'));
  otherDir = await mkdtemp(join(tmpdir(), 'transport-tls-other-'));
  makeCertificates(dir, 'node-1');
  signCertificate(dir, 'node-2');
  signCertificate(dir, 'elsewhere', 'DNS:elsewhere.example');
  makeCertificates(otherDir, 'intruder');
  tlsOf = (name, caDir = dir, mode = 'full') => ({
    material: { key: readFileSync(join(caDir, `${name}.key`)), cert: readFileSync(join(caDir, `${name}.crt`)), ca: [readFileSync(join(caDir, 'ca.crt'))] },
    verificationMode: mode,
  });
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(otherDir, { recursive: true, force: true });
});

async function serve(tls: TransportTls): Promise<{ server: TransportServer; node: NodeAddress; errors: string[] }> {
  const errors: string[] = [];
  const server = new TransportServer({ tls, onError: (err) => errors.push(err.message) });
  server.handle(NODE_STATUS, () => ({ node_name: 'node-1', copies: [] }));
  const port = await server.listen('127.0.0.1', 0);
  return { server, node: { name: 'node-1', host: '127.0.0.1', port }, errors };
}

test('two nodes with certificates of the cluster CA call each other over TLS', async () => {
  const { server, node } = await serve(tlsOf('node-1'));
  const client = new TransportClient({ tls: tlsOf('node-2') });
  try {
    assert.equal((await client.call(node, NODE_STATUS, {})).node_name, 'node-1');
  } finally {
    await client.close();
    await server.close();
  }
});

test('a client with a certificate of another CA, or none, is refused; so is a server of another CA', async () => {
  const { server, node } = await serve(tlsOf('node-1'));
  const intruder = new TransportClient({ tls: tlsOf('intruder', otherDir), connectTimeoutMs: 5000 });
  const plain = new TransportClient({ connectTimeoutMs: 3000, defaultTimeoutMs: 3000 });
  try {
    await assert.rejects(intruder.call(node, NODE_STATUS, {}), (err: unknown) => isEsError(err));
    await assert.rejects(plain.call(node, NODE_STATUS, {}), (err: unknown) => isEsError(err));
  } finally {
    await intruder.close();
    await plain.close();
    await server.close();
  }
  const rogue = await serve(tlsOf('intruder', otherDir));
  const honest = new TransportClient({ tls: tlsOf('node-2'), connectTimeoutMs: 5000 });
  try {
    await assert.rejects(honest.call(rogue.node, NODE_STATUS, {}), (err: unknown) => isEsError(err) && /certificate/i.test(err.message));
  } finally {
    await honest.close();
    await rogue.server.close();
  }
});

test('bytes in the clear get no transport frame back', async () => {
  const { server, node } = await serve(tlsOf('node-1'));
  try {
    const got = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      const s = connect(node.port, '127.0.0.1', () => s.write(Buffer.from('ES\u0000\u0000\u0000\u0010plain request...')));
      s.on('data', (c: Buffer) => chunks.push(c));
      s.on('error', () => undefined);
      s.on('close', () => resolve(Buffer.concat(chunks)));
      setTimeout(() => s.destroy(), 2000).unref();
    });
    // At most a TLS alert record (content type 21), never an answer.
    assert.ok(got.length === 0 || got[0] === 21, `unexpected answer ${got.toString('hex')}`);
  } finally {
    await server.close();
  }
});

test('full verification refuses a server whose certificate does not name the address dialled', async () => {
  const { server, node } = await serve(tlsOf('elsewhere'));
  const byName = new TransportClient({ tls: tlsOf('node-2'), connectTimeoutMs: 5000 });
  const certificateOnly = new TransportClient({ tls: tlsOf('node-2', dir, 'certificate'), connectTimeoutMs: 5000 });
  try {
    // The server's certificate names elsewhere.example, not 127.0.0.1.
    await assert.rejects(byName.call(node, NODE_STATUS, {}), (err: unknown) => isEsError(err) && /127\.0\.0\.1/.test(err.message) && /altnames|IP/i.test(err.message));
    assert.equal((await certificateOnly.call(node, NODE_STATUS, {})).node_name, 'node-1');
  } finally {
    await byName.close();
    await certificateOnly.close();
    await server.close();
  }
});
