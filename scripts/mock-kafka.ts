/**
 * `npm run mock-kafka`: a Kafka to try the cluster path on, without a
 * broker. It runs librdkafka's mock cluster (three brokers speaking the
 * Kafka protocol on 127.0.0.1, the one the tests use: docs/testing.md),
 * serves the topic provisioner the nodes need (the mock refuses
 * CreateTopics), creates the pass-record topic, and prints the commands to
 * start nodes, produce and ingest against it. Ctrl-C stops it.
 *
 * The mock keeps its log in memory: once stopped, the log is gone, so
 * start the nodes on fresh data directories each time.
 */
import { startMockKafka } from '../test/helpers/mock-kafka.ts';
import { provisionerServer } from '../test/helpers/cluster.ts';

const BROKERS = 3;
const PASSINFO_PARTITIONS = 6;

process.stderr.write('mock-kafka: starting 3 mock brokers (the first run builds them: 1-3 minutes) ...\n');
const kafka = await startMockKafka(BROKERS);
const { server, url } = await provisionerServer(kafka, BROKERS);
await kafka.createTopic('passinfo', PASSINFO_PARTITIONS, BROKERS);
const brokers = kafka.bootstrap.join(',');
const node = (i: number) =>
  `npx logsearch start --log kafka --brokers ${brokers} --kafka.topic_provisioner ${url} --cluster.name trial ` +
  `--node.name node-${i} --path.data ./trial-data/node-${i} --http.port ${9199 + i} --transport.port ${9299 + i}`;
process.stdout.write(`mock Kafka: brokers ${brokers}, topic provisioner ${url}, topic passinfo (${PASSINFO_PARTITIONS} partitions)

Nodes (each in its own terminal; one is enough, three make a cluster):
  ${node(1)}
  ${node(2)}
  ${node(3)}

Pass records through Kafka into the cluster:
  npx logsearch passinfo ingest --brokers ${brokers} --es http://127.0.0.1:9200 --entry-checkpoints L0001,L0002
  npx logsearch passinfo produce --brokers ${brokers} --count 100000 --rate 5000

Then: curl 'localhost:9200/_cat/shards/passinfo*?v'   (Ctrl-C here stops the mock; its log goes with it)
`);

const stop = async () => {
  server.close();
  await kafka.stop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
