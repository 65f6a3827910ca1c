/**
 * Node configuration as an Elasticsearch user knows it: dotted setting names
 * (`cluster.name`, `http.port`, ...) from, in rising precedence, built-in
 * defaults, a YAML file (`--config FILE`, else `config/logsearch.yml` when
 * present), environment variables and command-line flags.
 *
 * Environment: `LOGSEARCH_HTTP_PORT=9201` (prefix, dots as underscores) or the
 * setting's own name, as Elasticsearch's Docker image accepts (`http.port=9201`).
 * Flags: `--http.port 9201`, `--http.port=9201` or `-E http.port=9201`.
 * The settings themselves, with defaults, are in settings.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { parse as parseYaml } from 'yaml';
import { parseTimeValue } from '../../shared/engine/mapping/time-value.ts';
import { parseByteSizeValue } from '../../shared/engine/mapping/byte-size-value.ts';
import { DEFAULT_SERVICE_NAME, jaegerUiUrl, otlpTracesUrl } from '../../shared/telemetry/tracing.ts';
import { ConfigError } from './config-error.ts';
import { CONFIG_FLAG, SETTINGS_BY_NAME, type Setting } from './settings.ts';
import {
  CLUSTER_SETTING_KEYS,
  DISK_WATERMARK_FLOOD_STAGE,
  DISK_WATERMARK_HIGH,
  DISK_WATERMARK_LOW,
  flattenSettings,
  validateUpdate,
  validateWatermarks,
} from './cluster/cluster-settings.ts';
import type { CorsSettings } from './rest/cors.ts';
import type { KafkaClientSecurity, SecurityConfig, SslConfig } from './security/security-config.ts';

/** Read when present and no `--config` names another file. */
export const DEFAULT_CONFIG_FILE = 'config/logsearch.yml';

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
  /**
   * `http.read_timeout`: the longest a request may take to arrive, headers
   * and body (Elasticsearch's default is none; here 60s, so a client that
   * stalls mid-body cannot hold its bytes forever). 0 disables it.
   */
  readonly readTimeoutMs: number;
  /**
   * `network.breaker.inflight_requests.limit`: bytes of request bodies being
   * received or handled at once, beyond which a request is refused with 429
   * (Elasticsearch's in-flight requests breaker).
   */
  readonly inflightRequestsLimit: number;
  /** `embedded` (default, one machine) or `kafka`. */
  readonly log: 'embedded' | 'kafka';
  readonly brokers: readonly string[];
  readonly nodeData: boolean;
  readonly nodeMaster: boolean;
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
  /** `telemetry.traces.buffer_size`: spans kept in memory for the console's traces page; 0 = none. */
  readonly traceBufferSize: number;
  /**
   * Where the console's traces link to in Jaeger (its UI's base URL):
   * `telemetry.jaeger.ui_url`, else derived from the OTLP endpoint
   * (jaegerUiUrl); empty = no link.
   */
  readonly jaegerUiUrl: string;
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
  /** `xpack.security.*` (off by default; docs/security.md). */
  readonly security: SecurityConfig;
  /** `kafka.security.protocol`, `kafka.sasl.*`, `kafka.ssl.*`: how the Kafka clients reach the brokers. */
  readonly kafkaSecurity: KafkaClientSecurity;
  /**
   * `ELASTIC_PASSWORD` from the environment, as Elasticsearch's Docker image
   * takes it: the `elastic` user's password when the cluster has none yet
   * (security on only). Never logged; empty = none.
   */
  readonly elasticPassword: string;
}

export { ConfigError };

const ENV_PREFIX = 'LOGSEARCH_';

function flatten(obj: unknown, prefix: string, out: Map<string, string>): void {
  if (obj === null || obj === undefined) return;
  if (typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, Array.isArray(obj) ? obj.join(',') : String(obj));
  }
}

/** `--name value`, `--name=value`, `-E name=value`; a bare `--name` is `true`. */
export function parseFlags(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    if (arg === '-E') arg = `--${argv[++i] ?? ''}`;
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument [${arg}]; settings are given as --name value or -E name=value`);
    const body = arg.slice(2);
    const eq = body.indexOf('=');
    if (eq >= 0) out.set(body.slice(0, eq), body.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('-')) out.set(body, argv[++i]);
    else out.set(body, 'true');
  }
  return out;
}

function fromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  for (const key of [...SETTINGS_BY_NAME.keys(), CONFIG_FLAG]) {
    const direct = env[key];
    const prefixed = env[ENV_PREFIX + key.toUpperCase().replace(/[.-]/g, '_')];
    const v = prefixed ?? direct;
    if (v !== undefined) out.set(key, v);
  }
  return out;
}

/** Levenshtein distance, for "did you mean" (setting names are short). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

function unknownSetting(name: string, from: string): ConfigError {
  const near = [...SETTINGS_BY_NAME.keys()].filter((k) => distance(k, name) <= 2);
  const hint = near.length > 0 ? `; did you mean [${near.join('], [')}]?` : '';
  return new ConfigError(`unknown setting [${name}] ${from}${hint} (logsearch start --help lists them)`);
}

/** The reason of a parser's error (an EsError from the engine's parsers, or ours). */
const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A setting's value, checked against its kind. */
function parseSetting<T>(setting: Setting, value: string): T;
function parseSetting(setting: Setting, value: string): string | number | boolean | string[] {
  const bad = (what: string) => new ConfigError(`invalid value [${value}] for setting [${setting.name}]: ${what}`);
  const kind = setting.kind;
  switch (kind.type) {
    case 'string':
    case 'cluster':
      return value;
    case 'list':
      return value.split(',').map((b) => b.trim()).filter(Boolean);
    case 'port': {
      const port = Number(value);
      if (!/^\d+$/.test(value.trim()) || port > 65535) throw bad('a port is a number from 0 to 65535');
      return port;
    }
    case 'int': {
      const n = Number(value);
      if (!/^\d+$/.test(value.trim()) || n < kind.min) throw bad(`a whole number of at least ${kind.min}`);
      return n;
    }
    case 'bool':
      if (value === 'true') return true;
      if (value === 'false') return false;
      throw bad('only [true] or [false] are allowed');
    case 'enum':
      if (!kind.values.includes(value)) throw bad(`one of [${kind.values.join(', ')}]`);
      return value;
    case 'duration':
      try {
        return parseTimeValue(value, setting.name);
      } catch (err) {
        throw new ConfigError(`${reasonOf(err)} (a time value such as 500ms, 10s, 5m, 1h, 1d)`);
      }
    case 'bytes':
      try {
        return parseByteSizeValue(value, setting.name);
      } catch (err) {
        throw new ConfigError(`${reasonOf(err)} (a size such as 512kb, 100mb, 1gb)`);
      }
    case 'memory': {
      const pct = /^\s*(\d{1,3}(?:\.\d{1,3})?)\s*%\s*$/.exec(value);
      if (pct) return Math.floor((getHeapStatistics().heap_size_limit * Number(pct[1])) / 100);
      try {
        return parseByteSizeValue(value, setting.name);
      } catch (err) {
        throw new ConfigError(`${reasonOf(err)} (a size such as 512mb, or a percentage of the heap such as 50%)`);
      }
    }
  }
}

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const flags = parseFlags(argv);
  const envs = fromEnv(env);
  const file = flags.get(CONFIG_FLAG) ?? envs.get(CONFIG_FLAG) ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : null);
  const fromFile = new Map<string, string>();
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`cannot read the configuration file [${file}]: ${reasonOf(err)}`);
    }
    try {
      flatten(parseYaml(text) as unknown, '', fromFile);
    } catch (err) {
      throw new ConfigError(`[${file}] is not valid YAML: ${reasonOf(err).split('\n')[0]}`);
    }
  }
  for (const key of fromFile.keys()) if (!SETTINGS_BY_NAME.has(key)) throw unknownSetting(key, `in ${file}`);
  for (const key of flags.keys()) if (key !== CONFIG_FLAG && !SETTINGS_BY_NAME.has(key)) throw unknownSetting(key, 'on the command line');
  const raw = (name: string): string => flags.get(name) ?? envs.get(name) ?? fromFile.get(name) ?? SETTINGS_BY_NAME.get(name)!.default;
  const get = <T>(name: string): T => parseSetting<T>(SETTINGS_BY_NAME.get(name)!, raw(name));
  return {
    clusterName: get('cluster.name'),
    nodeName: get('node.name'),
    pathData: get('path.data'),
    pathLogs: get('path.logs'),
    networkHost: get('network.host'),
    publishHost: get<string>('network.publish_host') || get('network.host'),
    httpPort: get('http.port'),
    maxContentLength: get('http.max_content_length'),
    readTimeoutMs: get('http.read_timeout'),
    inflightRequestsLimit: get('network.breaker.inflight_requests.limit'),
    log: get('log'),
    brokers: get('brokers'),
    nodeData: get('node.data'),
    nodeMaster: get('node.master'),
    logFsync: get('log.fsync'),
    logLevel: get('logger.level'),
    transportPort: get('transport.port'),
    sessionTimeoutMs: get('cluster.session_timeout'),
    topicProvisioner: get('kafka.topic_provisioner'),
    otlpTracesEndpoint: otlpTracesUrl(get('telemetry.otlp.endpoint'), env),
    traceBufferSize: get('telemetry.traces.buffer_size'),
    jaegerUiUrl: jaegerUiUrl(get('telemetry.jaeger.ui_url'), otlpTracesUrl(get('telemetry.otlp.endpoint'), env)),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME,
    processors: get('node.processors'),
    clusterSettings: configuredClusterSettings((name) => flags.get(name) ?? envs.get(name) ?? fromFile.get(name)),
    cors: {
      enabled: get('http.cors.enabled'),
      allowOrigin: get('http.cors.allow-origin'),
      maxAgeSeconds: get('http.cors.max-age'),
      allowMethods: get('http.cors.allow-methods'),
      allowHeaders: get('http.cors.allow-headers'),
      allowCredentials: get('http.cors.allow-credentials'),
    },
    security: securityConfig(get),
    kafkaSecurity: kafkaSecurity(get),
    elasticPassword: env.ELASTIC_PASSWORD ?? '',
  };
}

/** An `xpack.security.*.ssl` group: enabled needs a key and a certificate. */
function sslConfig(get: <T>(name: string) => T, prefix: string): SslConfig {
  const ssl = {
    enabled: get<boolean>(`${prefix}.enabled`),
    key: get<string>(`${prefix}.key`),
    certificate: get<string>(`${prefix}.certificate`),
    certificateAuthorities: get<string[]>(`${prefix}.certificate_authorities`),
  };
  if (ssl.enabled) {
    for (const part of ['key', 'certificate'] as const) {
      if (ssl[part] === '') throw new ConfigError(`[${prefix}.enabled] is true but [${prefix}.${part}] is not set (a PEM file)`);
    }
  }
  return ssl;
}

function securityConfig(get: <T>(name: string) => T): SecurityConfig {
  return {
    enabled: get('xpack.security.enabled'),
    http: { ...sslConfig(get, 'xpack.security.http.ssl'), clientAuthentication: get('xpack.security.http.ssl.client_authentication') },
    transport: { ...sslConfig(get, 'xpack.security.transport.ssl'), verificationMode: get('xpack.security.transport.ssl.verification_mode') },
  };
}

function kafkaSecurity(get: <T>(name: string) => T): KafkaClientSecurity {
  const k: KafkaClientSecurity = {
    protocol: get('kafka.security.protocol'),
    saslMechanism: get('kafka.sasl.mechanism'),
    saslUsername: get('kafka.sasl.username'),
    saslPassword: get('kafka.sasl.password'),
    sslCaLocation: get('kafka.ssl.ca.location'),
    sslCertificateLocation: get('kafka.ssl.certificate.location'),
    sslKeyLocation: get('kafka.ssl.key.location'),
  };
  if (k.protocol.startsWith('sasl_') && k.saslUsername === '') {
    throw new ConfigError(`[kafka.security.protocol] is [${k.protocol}] but [kafka.sasl.username] is not set`);
  }
  if (k.protocol.endsWith('ssl') && (k.sslCertificateLocation === '') !== (k.sslKeyLocation === '')) {
    throw new ConfigError('[kafka.ssl.certificate.location] and [kafka.ssl.key.location] go together: set both or neither');
  }
  return k;
}

/** The dynamic cluster settings the configuration sets (not their defaults), checked as `PUT /_cluster/settings` checks them. */
function configuredClusterSettings(given: (name: string) => string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const key of CLUSTER_SETTING_KEYS) {
    const v = given(key);
    if (v !== undefined) out.set(key, v);
  }
  try {
    validateUpdate('persistent', flattenSettings(Object.fromEntries(out), 'persistent'));
    const watermark = (d: { key: string; dflt: string }) => out.get(d.key) ?? d.dflt;
    validateWatermarks(watermark(DISK_WATERMARK_LOW), watermark(DISK_WATERMARK_HIGH), watermark(DISK_WATERMARK_FLOOD_STAGE));
  } catch (err) {
    throw new ConfigError(`invalid node setting: ${reasonOf(err)}`);
  }
  return out;
}
