/**
 * Test fixture: a librdkafka mock Kafka cluster in a child process
 * (test/helpers/mock-kafka/mock-cluster.c, DESIGN.md section 6). It speaks
 * the Kafka wire protocol on 127.0.0.1 and takes fault-injection commands.
 *
 *   const kafka = await startMockKafka(3);
 *   await kafka.createTopic('t', 3, 3);
 *   await kafka.brokerDown(2);
 *   await kafka.stop();
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HELPER_DIR = join(dirname(fileURLToPath(import.meta.url)), 'mock-kafka');
const BUILD_SCRIPT = join(HELPER_DIR, 'build.sh');
const PATCH = join(HELPER_DIR, 'librdkafka-mock.patch');
const BINARY = join(HELPER_DIR, 'build', 'mock-cluster');
const BUILD_HINT = 'run `bash test/helpers/mock-kafka/build.sh`';
/** librdkafka's build takes one to three minutes on two cores. */
const BUILD_TIMEOUT_MS = 10 * 60_000;
const START_TIMEOUT_MS = 10_000;
const COMMAND_TIMEOUT_MS = 10_000;

export interface MockKafka {
  /** `host:port` of every broker, in broker id order (ids start at 1). */
  readonly bootstrap: string[];
  /** Sends one command line; resolves on `ok`, rejects on `error <text>`. */
  command(line: string): Promise<void>;
  createTopic(name: string, partitions: number, replicationFactor: number): Promise<void>;
  deleteTopic(name: string): Promise<void>;
  /** Drops the broker's connections and refuses new ones; leadership stays where it was. */
  brokerDown(id: number): Promise<void>;
  brokerUp(id: number): Promise<void>;
  setLeader(topic: string, partition: number, broker: number): Promise<void>;
  /** The next `count` Produce requests fail with the Kafka error `code`, before anything is appended. */
  produceErrors(count: number, code: number): Promise<void>;
  /** Added round-trip time of the broker's responses. */
  rtt(broker: number, ms: number): Promise<void>;
  stop(): Promise<void>;
}

function mtime(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function helperIsBuilt(): boolean {
  const built = mtime(BINARY);
  const sources = [mtime(join(HELPER_DIR, 'mock-cluster.c')), mtime(BUILD_SCRIPT), mtime(PATCH)];
  return built !== null && sources.every((m) => m !== null && m < built);
}

/**
 * Builds the helper if it is missing or older than its sources. Returns
 * null when it is ready, or the reason it cannot be built.
 */
export function ensureMockKafkaBuilt(): string | null {
  if (helperIsBuilt()) return null;
  const run = spawnSync('bash', [BUILD_SCRIPT], { encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  if (run.error === undefined && run.status === 0 && helperIsBuilt()) return null;
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
  const why = run.error?.message ?? `exit status ${run.status ?? run.signal}`;
  return `the mock Kafka helper could not be built (${why}); ${BUILD_HINT}\n${output}`;
}

export async function startMockKafka(brokers = 3): Promise<MockKafka> {
  const problem = ensureMockKafkaBuilt();
  if (problem !== null) throw new Error(problem);
  const child = spawn(BINARY, [String(brokers)], { stdio: ['pipe', 'pipe', 'pipe'] });
  return connect(child);
}

async function connect(child: ChildProcessWithoutNullStreams): Promise<MockKafka> {
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });

  const lines = createInterface({ input: child.stdout });
  // Answers arrive in command order; each waiting command takes the next line.
  const waiting: { resolve: (line: string) => void; reject: (err: Error) => void }[] = [];
  let exited: Error | null = null;
  lines.on('line', (line) => waiting.shift()?.resolve(line));
  const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    exited = new Error(`mock Kafka helper exited (${code ?? signal})${stderr ? `: ${stderr.trim()}` : ''}`);
    for (const w of waiting.splice(0)) w.reject(exited);
  };
  child.on('exit', onExit);
  child.on('error', (err) => {
    exited = new Error(`mock Kafka helper failed: ${err.message}`, { cause: err });
    for (const w of waiting.splice(0)) w.reject(exited);
  });

  const nextLine = (what: string, timeoutMs: number): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      if (exited !== null) {
        reject(exited);
        return;
      }
      const timer = setTimeout(() => {
        const i = waiting.indexOf(entry);
        if (i >= 0) waiting.splice(i, 1);
        reject(new Error(`mock Kafka helper did not answer ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const entry = {
        resolve: (line: string) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      waiting.push(entry);
    });

  let bootstrap: string[];
  try {
    bootstrap = (await nextLine('with its bootstrap list', START_TIMEOUT_MS)).split(',').filter((s) => s.length > 0);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }

  let stopping: Promise<void> | null = null;

  const command = async (line: string): Promise<void> => {
    if (line.includes('\n')) throw new Error(`mock Kafka command must be one line: ${JSON.stringify(line)}`);
    if (stopping !== null) throw new Error(`mock Kafka helper is stopped; cannot run "${line}"`);
    const answer = nextLine(`"${line}"`, COMMAND_TIMEOUT_MS);
    child.stdin.write(`${line}\n`);
    const text = await answer;
    if (text === 'ok') return;
    throw new Error(`mock Kafka "${line}": ${text.replace(/^error /, '')}`);
  };

  return {
    bootstrap,
    command,
    createTopic: (name, partitions, rf) => command(`create_topic ${name} ${partitions} ${rf}`),
    deleteTopic: (name) => command(`delete_topic ${name}`),
    brokerDown: (id) => command(`broker_down ${id}`),
    brokerUp: (id) => command(`broker_up ${id}`),
    setLeader: (topic, partition, broker) => command(`leader ${topic} ${partition} ${broker}`),
    produceErrors: (count, code) => command(`produce_errors ${count} ${code}`),
    rtt: (broker, ms) => command(`rtt ${broker} ${ms}`),
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.stdin.end();
      });
      return stopping;
    },
  };
}
