/**
 * Ingest from Kafka (librdkafka's mock cluster, DESIGN.md section 6) into a
 * search node: records produced as Avro are consumed and indexed exactly
 * once, even when the ingest process is killed (SIGKILL) mid-stream and
 * started again; bad records land in the dead-letter topic with the reason.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Kafka } from 'kafkajs';
import { startServer, type TestServer } from '../helpers/server.ts';
import { ensureMockKafkaBuilt, startMockKafka, type MockKafka } from '../helpers/mock-kafka.ts';
import { createKafka } from '../../services/passinfo/kafka-client.ts';
import { produce, realisticRecords } from '../../services/passinfo/producer.ts';
import { passRecordCodec } from '../../services/passinfo/pass-record-codec.ts';
import { SearchClient } from '../../services/passinfo/search-client.ts';
import { IngestService } from '../../services/passinfo/ingest.ts';
import type { PassRecord } from '../../services/passinfo/pass-record.ts';

const unavailable = process.env.CI ? null : ensureMockKafkaBuilt();
const CLI = fileURLToPath(new URL('../../services/passinfo/cli.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SESSION_TIMEOUT_MS = 6000;

let kafkaMock: MockKafka;
let server: TestServer;
let client: SearchClient;
let kafka: Kafka;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await sleep(200);
  }
}

async function indexedCount(): Promise<number> {
  await client.refresh('passinfo');
  return client.count('passinfo', { match_all: {} });
}

function startIngestProcess(topic: string, group: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CLI,
      'ingest',
      '--es',
      server.url,
      '--brokers',
      kafkaMock.bootstrap.join(','),
      '--topic',
      topic,
      '--group',
      group,
      '--session-timeout',
      `${SESSION_TIMEOUT_MS}ms`,
      '--bulk-size',
      '100',
      '--entry-checkpoints',
      'L0001,L0002',
      '--kafka-log',
      'nothing',
      '--replicas',
      '0',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.setEncoding('utf8');
  let tail = '';
  child.stderr!.on('data', (c: string) => (tail = (tail + c).slice(-2000)));
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGKILL' && signal !== 'SIGTERM') process.stderr.write(`ingest exited ${code}: ${tail}\n`);
  });
  return child;
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));

describe('ingest from Kafka', { skip: unavailable ?? false }, () => {
  before(async () => {
    kafkaMock = await startMockKafka(1);
    server = await startServer();
    client = new SearchClient(server.url);
    kafka = createKafka({ brokers: kafkaMock.bootstrap, clientId: 'passinfo-test', logLevel: 'nothing' });
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    await kafkaMock?.stop();
  });

  test('every record is indexed exactly once across a SIGKILL of the ingest process, and bad records go to the dead-letter topic', async () => {
    const topic = 'passes.kill';
    await kafkaMock.createTopic(topic, 3, 1);
    await kafkaMock.createTopic(`${topic}.dead-letter`, 1, 1);
    const COUNT = 3000;
    const records = [...realisticRecords({ count: COUNT, seed: 5, plates: 400 })] as PassRecord[];
    await produce(kafka, topic, records);
    // Two bad records: bytes that are not Avro, and a well-formed record with an impossible time.
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        { key: 'junk', value: Buffer.from('{"plate":"not avro"}') },
        { key: 'bad-time', value: passRecordCodec.encode({ ...records[0]!, event_id: 'BAD-TIME', pass_time: '2026-02-30 25:00:00' }) },
      ],
    });
    await producer.disconnect();

    const first = startIngestProcess(topic, 'kill-group');
    const partial = await eventually('some records indexed', async () => {
      const n = await indexedCount();
      return n >= 300 ? n : undefined;
    });
    first.kill('SIGKILL');
    await exited(first);
    assert.ok(partial < COUNT, `killed mid-stream (${partial} of ${COUNT} indexed)`);

    const second = startIngestProcess(topic, 'kill-group');
    try {
      await eventually('all records indexed', async () => ((await indexedCount()) === COUNT ? true : undefined), 90_000);
      // Redelivered records were refused as duplicates: every pass is at its first version.
      const ids = new Set<string>();
      for await (const batch of client.scroll<{ event_id: string }>('passinfo', { query: { match_all: {} }, _source: ['event_id'], version: true })) {
        for (const h of batch) {
          assert.equal(h._version, 1, `${h._id} was written more than once`);
          ids.add(h._source.event_id);
        }
      }
      assert.deepEqual(ids, new Set(records.map((r) => r.event_id)));
    } finally {
      second.kill('SIGTERM');
      await exited(second);
    }

    const letters = await readTopic(topic + '.dead-letter', 2);
    assert.deepEqual(letters.map((l) => l.stage).sort(), ['decode', 'validate']);
    assert.match(letters.find((l) => l.stage === 'validate')!.reason, /\[pass_time\] \[2026-02-30 25:00:00\] is not a date/);
    assert.match(letters.find((l) => l.stage === 'decode')!.reason, /not a pass record/);
    assert.equal(letters.find((l) => l.stage === 'decode')!.value, '{"plate":"not avro"}');
  });

  test('an in-process ingest service reports zero lag once it has caught up, and records first entries', async () => {
    const topic = 'passes.lag';
    await kafkaMock.createTopic(topic, 2, 1);
    await kafkaMock.createTopic(`${topic}.dead-letter`, 1, 1);
    const names = { passes: 'lag-passes', firstEntries: 'lag-first-entry', config: 'lag-config' };
    const records = [...realisticRecords({ count: 1000, seed: 9, plates: 100 })];
    await produce(kafka, topic, records);
    const service = await IngestService.start({
      kafka,
      client,
      names,
      topic,
      groupId: 'lag-group',
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      designation: { entry_checkpoints: ['L0001', 'L0002', 'L0003'], look_back_days: 30 },
      index: { shards: 1, replicas: 0 },
    });
    try {
      const status = await eventually('caught up', async () => {
        const s = await service.status();
        return s.indexed === records.length && s.total_lag === 0 ? s : undefined;
      });
      assert.equal(status.dead_lettered, 0);
      assert.equal(status.lost_to_retention, 0);
      assert.ok(status.first_entries > 0);
      await client.refresh(names.firstEntries);
      assert.equal(await client.count(names.firstEntries, { match_all: {} }), status.first_entries);
    } finally {
      await service.stop();
    }
  });
});

async function readTopic(topic: string, expected: number): Promise<{ stage: string; reason: string; value: string }[]> {
  const consumer = kafka.consumer({ groupId: `reader-${topic}-${Date.now()}`, sessionTimeout: SESSION_TIMEOUT_MS });
  const out: { stage: string; reason: string; value: string }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      out.push({
        stage: String(message.headers?.['dlq.stage']),
        reason: String(message.headers?.['dlq.reason']),
        value: message.value?.toString() ?? '',
      });
    },
  });
  await eventually(`${expected} records on ${topic}`, async () => (out.length >= expected ? true : undefined), 30_000);
  await consumer.disconnect();
  return out;
}
