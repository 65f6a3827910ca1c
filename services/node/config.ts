/**
 * Node configuration as an Elasticsearch user knows it: dotted setting names
 * (`cluster.name`, `http.port`, ...) from, in rising precedence, built-in
 * defaults, a YAML file (`--config FILE`, else `config/logsearch.yml` when
 * present), environment variables and command-line flags.
 *
 * Environment: `LOGSEARCH_HTTP_PORT=9201` (prefix, dots as underscores) or the
 * setting's own name, as Elasticsearch's Docker image accepts (`http.port=9201`).
 * Flags: `--http.port 9201`, `--http.port=9201` or `-E http.port=9201`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_SERVICE_NAME, otlpTracesUrl } from '../../shared/telemetry/tracing.ts';
import { CLUSTER_SETTING_KEYS, flattenSettings, validateUpdate } from './cluster/cluster-settings.ts';
import { CORS_DEFAULTS, type CorsSettings } from './rest/cors.ts';

export interface NodeConfig {
  readonly clusterName: string;
  readonly nodeName: string;
  readonly pathData: string;
  readonly pathLogs: string;
  readonly networkHost: string;
  /** `network.publish_host`: the address other nodes reach this one at (default: network.host). */
  readonly publishHost: string;
  readonly httpPort: number;
  /** `http.max_content_length` in bytes (Elasticsearch default 100mb). */
  readonly maxContentLength: number;
  /** `embedded` (default, one machine) or `kafka`. */
  readonly log: 'embedded' | 'kafka';
  readonly brokers: readonly string[];
  readonly nodeData: boolean;
  readonly nodeMaster: boolean;
  /** `search.max_open_scroll_context` (Elasticsearch default 500). */
  readonly maxOpenScrollContexts: number;
  /** fsync every log append (off: an acknowledged write survives a process crash, not a power loss). */
  readonly logFsync: boolean;
  readonly logLevel: string;
  /** `transport.port`: the node-to-node transport (cluster only; 0 = any free port). */
  readonly transportPort: number;
  /** How long a silent node stays a member (Kafka group session timeout). */
  readonly sessionTimeoutMs: number;
  /**
   * `kafka.topic_provisioner`: a URL that creates a topic on
   * `POST {"topic","partitions"}`, for brokers that refuse CreateTopics
   * (librdkafka's mock cluster in the tests). Empty = none.
   */
  readonly topicProvisioner: string;
  /**
   * Where spans go: the OTLP/HTTP traces URL from `telemetry.otlp.endpoint`
   * or the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT variables. Empty =
   * tracing off, nothing registered (shared/telemetry/tracing.ts).
   */
  readonly otlpTracesEndpoint: string;
  /** The traces' service.name: OTEL_SERVICE_NAME, else `logsearch`. */
  readonly serviceName: string;
  /**
   * `node.processors`: the cores the node may use (default: all the machine
   * has); one shard worker thread per core holds and searches the segments.
   */
  readonly processors: number;
  /**
   * Values of dynamic cluster settings (`action.destructive_requires_name`,
   * `search.max_buckets`, ...) given in this node's configuration; cluster
   * settings set through the API take precedence (cluster-settings.ts).
   */
  readonly clusterSettings: ReadonlyMap<string, string>;
  /** `http.cors.*` (off by default). */
  readonly cors: CorsSettings;
}

const DEFAULTS: Record<string, string> = {
  'cluster.name': 'logsearch',
  'node.name': hostname(),
  'path.data': './data',
  'path.logs': './logs',
  'network.host': '127.0.0.1',
  'network.publish_host': '',
  'http.port': '9200',
  'http.max_content_length': '100mb',
  log: 'embedded',
  brokers: '',
  'node.data': 'true',
  'node.master': 'true',
  'search.max_open_scroll_context': '500',
  'log.fsync': 'false',
  'logger.level': 'info',
  'transport.port': '9300',
  'cluster.session_timeout': '10s',
  'kafka.topic_provisioner': '',
  'telemetry.otlp.endpoint': '',
  'node.processors': String(availableParallelism()),
  ...CORS_DEFAULTS,
};

const KNOWN = new Set(Object.keys(DEFAULTS).concat(['config'], CLUSTER_SETTING_KEYS));
const ENV_PREFIX = 'LOGSEARCH_';

function flatten(obj: unknown, prefix: string, out: Record<string, string>): void {
  if (obj === null || obj === undefined) return;
  if (typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out[prefix] = Array.isArray(obj) ? obj.join(',') : String(obj);
  }
}

export function parseFlags(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    if (arg === '-E') arg = `--${argv[++i] ?? ''}`;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument [${arg}]; settings are given as --name value or -E name=value`);
    const body = arg.slice(2);
    const eq = body.indexOf('=');
    if (eq >= 0) out[body.slice(0, eq)] = body.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('-')) out[body] = argv[++i];
    else out[body] = 'true';
  }
  return out;
}

function fromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of KNOWN) {
    const direct = env[key];
    const prefixed = env[ENV_PREFIX + key.toUpperCase().replace(/[.-]/g, '_')];
    const v = prefixed ?? direct;
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** Parses `100mb`, `1gb`, `512kb`, `1024` (bytes) as Elasticsearch byte-size settings. */
export function parseByteSize(value: string, setting: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|pb)?\s*$/i.exec(value);
  if (!m) throw new Error(`failed to parse setting [${setting}] with value [${value}] as a size in bytes`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 }[unit] ?? 1;
  return Math.round(Number(m[1]) * mult);
}

function parsePort(value: string, setting: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid ${setting} [${value}]`);
  return port;
}

/** `500ms`, `10s`, `1m` or a number of milliseconds. */
function parseDuration(value: string, setting: string): number {
  const m = /^\s*(\d+)\s*(ms|s|m)?\s*$/.exec(value);
  if (!m) throw new Error(`failed to parse setting [${setting}] with value [${value}] as a time value`);
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000 }[m[2] ?? 'ms'] ?? 1);
}

function parseBool(value: string, setting: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`Failed to parse value [${value}] as only [true] or [false] are allowed for setting [${setting}]`);
}

function parseNonNegativeInt(value: string, setting: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Failed to parse value [${value}] for setting [${setting}] must be >= 0`);
  return n;
}

function parseProcessors(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`Failed to parse value [${value}] for setting [node.processors] must be >= 1`);
  return n;
}

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const flags = parseFlags(argv);
  const envs = fromEnv(env);
  const file = flags.config ?? envs.config ?? (existsSync('config/logsearch.yml') ? 'config/logsearch.yml' : null);
  const fromFile: Record<string, string> = {};
  if (file) flatten(parseYaml(readFileSync(file, 'utf8')) as unknown, '', fromFile);
  const s: Record<string, string> = { ...DEFAULTS, ...fromFile, ...envs, ...flags };
  for (const key of Object.keys(s)) {
    if (!KNOWN.has(key)) throw new Error(`unknown setting [${key}]`);
  }
  const port = parsePort(s['http.port'], 'http.port');
  const log = s.log;
  if (log !== 'embedded' && log !== 'kafka') throw new Error(`log must be [embedded] or [kafka], got [${log}]`);
  return {
    clusterName: s['cluster.name'],
    nodeName: s['node.name'],
    pathData: s['path.data'],
    pathLogs: s['path.logs'],
    networkHost: s['network.host'],
    publishHost: s['network.publish_host'] || s['network.host'],
    httpPort: port,
    maxContentLength: parseByteSize(s['http.max_content_length'], 'http.max_content_length'),
    log,
    brokers: s.brokers ? s.brokers.split(',').map((b) => b.trim()).filter(Boolean) : [],
    nodeData: parseBool(s['node.data'], 'node.data'),
    nodeMaster: parseBool(s['node.master'], 'node.master'),
    maxOpenScrollContexts: Number(s['search.max_open_scroll_context']),
    logFsync: parseBool(s['log.fsync'], 'log.fsync'),
    logLevel: s['logger.level'],
    transportPort: parsePort(s['transport.port'], 'transport.port'),
    sessionTimeoutMs: parseDuration(s['cluster.session_timeout'], 'cluster.session_timeout'),
    topicProvisioner: s['kafka.topic_provisioner'],
    otlpTracesEndpoint: otlpTracesUrl(s['telemetry.otlp.endpoint'], env),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME,
    processors: parseProcessors(s['node.processors']),
    clusterSettings: configuredClusterSettings(s),
    cors: {
      enabled: parseBool(s['http.cors.enabled'], 'http.cors.enabled'),
      allowOrigin: s['http.cors.allow-origin'],
      maxAgeSeconds: parseNonNegativeInt(s['http.cors.max-age'], 'http.cors.max-age'),
      allowMethods: s['http.cors.allow-methods'],
      allowHeaders: s['http.cors.allow-headers'],
      allowCredentials: parseBool(s['http.cors.allow-credentials'], 'http.cors.allow-credentials'),
    },
  };
}

/** The dynamic cluster settings the configuration sets, checked as `PUT /_cluster/settings` checks them. */
function configuredClusterSettings(s: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const key of CLUSTER_SETTING_KEYS) if (s[key] !== undefined) out.set(key, s[key]);
  try {
    validateUpdate('persistent', flattenSettings(Object.fromEntries(out), 'persistent'));
  } catch (err) {
    throw new Error(`invalid node setting: ${(err as Error).message}`, { cause: err });
  }
  return out;
}
