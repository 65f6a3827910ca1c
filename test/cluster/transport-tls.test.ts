/**
 * Three node processes on the mock Kafka whose transport is mutual TLS
 * (`xpack.security.transport.ssl.*`, each node its own certificate of one
 * CA): the cluster forms, copies spread over the nodes, every node's
 * searches reach the copies of the others over TLS, and a peer without a
 * certificate of the CA gets nothing from a node's transport port.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http, tempDir } from '../helpers/server.ts';
import { makeCertificates, signCertificate } from '../helpers/tls.ts';
import { TransportClient } from '../../services/node/transport/transport-client.ts';
import { NODE_STATUS } from '../../services/node/transport/rpc-messages.ts';
import { isEsError } from '../../shared/errors/es-errors.ts';
import type { TransportTls } from '../../services/node/transport/transport-tls.ts';
import { readFileSync } from 'node:fs';

const DOCS = 300;

describe('a cluster whose transport is mutual TLS', () => {
  let cluster: TestCluster;
  let certDir: string;
  let member: TransportTls;

  before(async () => {
    certDir = await tempDir('logsearch-cluster-certs-');
    const ca = makeCertificates(certDir, 'node-0');
    const certs = [{ nodeCert: ca.nodeCert, nodeKey: ca.nodeKey }, signCertificate(certDir, 'node-1'), signCertificate(certDir, 'node-2')];
    member = {
      material: { key: readFileSync(certs[1].nodeKey), cert: readFileSync(certs[1].nodeCert), ca: [ca.ca] },
      verificationMode: 'full',
    };
    cluster = await startCluster({
      nodes: 3,
      nodeFlags: (i) => [
        '--xpack.security.transport.ssl.enabled', 'true',
        '--xpack.security.transport.ssl.key', certs[i].nodeKey,
        '--xpack.security.transport.ssl.certificate', certs[i].nodeCert,
        '--xpack.security.transport.ssl.certificate_authorities', ca.caCert,
      ],
    });
  });

  after(async () => {
    await cluster?.stop();
    await rm(certDir, { recursive: true, force: true });
  });

  test('copies spread over three nodes and every node searches all of them', async () => {
    const created = await http(cluster.url(0), 'PUT', '/passes', { settings: { number_of_shards: 3, number_of_replicas: 1 } });
    assert.equal(created.status, 200, created.text);
    await cluster.waitForHealth('green', { nodes: 3, timeoutMs: 90_000 });
    const lines: string[] = [];
    for (let i = 0; i < DOCS; i++) lines.push(JSON.stringify({ index: { _index: 'passes', _type: '_doc', _id: String(i) } }), JSON.stringify({ plate: `P${i}` }));
    // Every copy counted (and so refreshed) before the answer: searches rotate over primaries and replicas.
    const bulk = await http(cluster.url(1), 'POST', '/_bulk?refresh=true&wait_for_active_shards=all', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
    assert.equal((bulk.body as { errors: boolean }).errors, false, bulk.text.slice(0, 500));
    const shards = (await http(cluster.url(0), 'GET', '/_cat/shards/passes?format=json')).body as { node: string; state: string }[];
    assert.equal(new Set(shards.map((s) => s.node)).size, 3, JSON.stringify(shards));
    for (let i = 0; i < 3; i++) {
      const r = await http(cluster.url(i), 'GET', '/passes/_search?size=0');
      assert.equal((r.body as { hits: { total: number }; _shards: { successful: number } }).hits.total, DOCS, `via node ${i}: ${r.text}`);
      assert.equal((r.body as { _shards: { successful: number } })._shards.successful, 3);
      const one = await http(cluster.url(i), 'GET', '/passes/_doc/17');
      assert.deepEqual((one.body as { _source: unknown })._source, { plate: 'P17' });
    }
  });

  test("a peer without the cluster's certificates gets nothing from a transport port", async () => {
    const nodes = (await http(cluster.url(0), 'GET', '/_nodes/transport')).body as { nodes: Record<string, { transport_address: string }> };
    const address = Object.values(nodes.nodes)[0]!.transport_address;
    const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
    const plain = new TransportClient({ connectTimeoutMs: 3000, defaultTimeoutMs: 3000 });
    const withCertificate = new TransportClient({ tls: member, connectTimeoutMs: 5000 });
    try {
      await assert.rejects(plain.call({ name: 'n', host, port }, NODE_STATUS, {}), (err: unknown) => isEsError(err));
      // The same address answers a peer that holds a certificate of the CA.
      assert.equal(typeof (await withCertificate.call({ name: 'n', host, port }, NODE_STATUS, {})).node_name, 'string');
    } finally {
      await plain.close();
      await withCertificate.close();
    }
  });
});
