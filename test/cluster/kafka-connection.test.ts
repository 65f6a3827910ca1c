/**
 * Kafka's SSL and SASL client settings reach kafkajs. librdkafka's mock
 * cluster speaks neither, so what is tested against it is that they are
 * used: a client told to speak TLS, or to authenticate with SASL, to the
 * plaintext mock fails to connect (with plaintext the same mock works);
 * the mapping of the settings to kafkajs's options is checked directly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { KafkaLog } from '../../shared/log/kafka-log.ts';
import { kafkaConnection } from '../../services/node/security/kafka-connection.ts';
import { KAFKA_PLAINTEXT } from '../../services/node/security/security-config.ts';
import { startMockKafka, type MockKafka } from '../helpers/mock-kafka.ts';
import { tempDir } from '../helpers/server.ts';
import { makeCertificates, type TestCertificates } from '../helpers/tls.ts';

let kafka: MockKafka;
let certs: TestCertificates;
let certDir: string;

before(async () => {
  kafka = await startMockKafka(1);
  certDir = await tempDir('kafka-certs-');
  certs = makeCertificates(certDir, 'client');
});

after(async () => {
  await kafka.stop();
  await rm(certDir, { recursive: true, force: true });
});

const open = (connection: ReturnType<typeof kafkaConnection>) =>
  KafkaLog.open({ brokers: kafka.bootstrap, clientId: 'kafka-connection-test', connection, retry: { retries: 1, initialRetryTimeMs: 50, maxRetryTimeMs: 100 }, logger: () => undefined });

test('the settings map to kafkajs ssl and sasl options, with the PEM files read', () => {
  assert.deepEqual(kafkaConnection(KAFKA_PLAINTEXT), {});
  assert.deepEqual(kafkaConnection({ ...KAFKA_PLAINTEXT, protocol: 'ssl' }), { ssl: true });
  const ssl = kafkaConnection({ ...KAFKA_PLAINTEXT, protocol: 'ssl', sslCaLocation: certs.caCert, sslCertificateLocation: certs.nodeCert, sslKeyLocation: certs.nodeKey });
  const opts = ssl.ssl as { ca: Buffer[]; cert: Buffer; key: Buffer };
  assert.deepEqual(opts.ca, [certs.ca]);
  assert.match(opts.cert.toString(), /BEGIN CERTIFICATE/);
  assert.match(opts.key.toString(), /PRIVATE KEY/);
  assert.deepEqual(kafkaConnection({ ...KAFKA_PLAINTEXT, protocol: 'sasl_ssl', saslMechanism: 'scram-sha-512', saslUsername: 'u', saslPassword: 'p' }), {
    ssl: true,
    sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
  });
  assert.throws(() => kafkaConnection({ ...KAFKA_PLAINTEXT, protocol: 'ssl', sslCaLocation: '/nonexistent/ca.crt' }), /kafka\.ssl\.ca\.location/);
});

test('plaintext reaches the mock; TLS and SASL settings are used, so the plaintext mock refuses them', async () => {
  const plain = await open(kafkaConnection(KAFKA_PLAINTEXT));
  await plain.close();
  await assert.rejects(open(kafkaConnection({ ...KAFKA_PLAINTEXT, protocol: 'ssl', sslCaLocation: certs.caCert })), /cannot connect to Kafka/);
  await assert.rejects(open(kafkaConnection({ ...KAFKA_PLAINTEXT, protocol: 'sasl_plaintext', saslUsername: 'u', saslPassword: 'p' })), /cannot connect to Kafka/);
});
