/**
 * Every node setting, once: its name (Elasticsearch's where Elasticsearch has
 * one), default, kind of value and meaning. config.ts reads settings through
 * this table, `logsearch start --help` prints it, and config/logsearch.yml
 * and README.md list the same names (a test compares them).
 */
import { availableParallelism, hostname } from 'node:os';
import { CORS_DEFAULTS } from './rest/cors.ts';
import { CLUSTER_SETTING_KEYS, clusterSettingDefault } from './cluster/cluster-settings.ts';

/** What a setting's value is; config.ts parses each kind with one parser. */
export type SettingKind =
  | { readonly type: 'string' }
  | { readonly type: 'port' }
  | { readonly type: 'bool' }
  | { readonly type: 'int'; readonly min: number }
  /** Elasticsearch's time value: `500ms`, `10s`, `1h` (shared/engine/mapping/time-value.ts). */
  | { readonly type: 'duration' }
  /** Elasticsearch's byte size: `100mb`, `1gb` (shared/engine/mapping/byte-size-value.ts). */
  | { readonly type: 'bytes' }
  /** A size in bytes, or a percentage of the heap limit (Elasticsearch's memory sizes: a percentage of the JVM heap). */
  | { readonly type: 'memory' }
  | { readonly type: 'enum'; readonly values: readonly string[] }
  /** A comma-separated list. */
  | { readonly type: 'list' }
  /** A dynamic cluster setting, checked as `PUT /_cluster/settings` checks it (cluster/cluster-settings.ts). */
  | { readonly type: 'cluster'; readonly shown: string };

export interface Setting {
  readonly name: string;
  /** The value when nothing sets it, as text (what `--help` prints); '' = none. */
  readonly default: string;
  /** Printed instead of the default when it depends on the machine. */
  readonly defaultShown?: string;
  readonly kind: SettingKind;
  /** One line for `--help`. */
  readonly help: string;
}

/** What `--help` says of the dynamic cluster settings a node's configuration may set (PUT /_cluster/settings overrides them). */
const CLUSTER_HELP = {
  'action.destructive_requires_name': { kind: 'bool', help: 'true: deleting, closing or opening indices needs their names, not wildcards or _all (cluster setting)' },
  'search.max_buckets': { kind: 'number', help: 'buckets one aggregation response may hold (cluster setting)' },
  'cluster.routing.allocation.enable': {
    kind: 'all|primaries|new_primaries|none',
    help: 'which copies that are not yet assigned may be placed; placed copies stay (cluster setting)',
  },
  'cluster.routing.allocation.disk.threshold_enabled': { kind: 'bool', help: 'accepted for Elasticsearch configurations; disk use does not steer allocation (cluster setting)' },
  'cluster.routing.allocation.disk.watermark.low': { kind: 'percent|size', help: 'validated as Elasticsearch does, not acted on (cluster setting)' },
  'cluster.routing.allocation.disk.watermark.high': { kind: 'percent|size', help: 'validated as Elasticsearch does, not acted on (cluster setting)' },
  'cluster.routing.allocation.disk.watermark.flood_stage': { kind: 'percent|size', help: 'validated as Elasticsearch does, not acted on (cluster setting)' },
  'search.max_keep_alive': { kind: 'time', help: 'the longest scroll keep-alive a request may ask for (cluster setting)' },
  'search.max_open_scroll_context': { kind: 'number', help: 'open scroll contexts per node (cluster setting)' },
} as const;

/** pino's levels, which `logger.level` takes. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const STRING = { type: 'string' } as const;

export const SETTINGS: readonly Setting[] = [
  { name: 'cluster.name', default: 'logsearch', kind: STRING, help: 'names the cluster; its topics and groups are prefixed with it' },
  { name: 'node.name', default: hostname(), defaultShown: 'the host name', kind: STRING, help: "this node's name" },
  { name: 'path.data', default: './data', kind: STRING, help: 'the embedded log and the shard copies' },
  { name: 'path.logs', default: './logs', kind: STRING, help: 'JSON logs (<cluster.name>.log), also written to stdout' },
  { name: 'network.host', default: '127.0.0.1', kind: STRING, help: 'address to bind; 0.0.0.0 for every interface' },
  { name: 'network.publish_host', default: '', defaultShown: 'network.host', kind: STRING, help: 'the address other nodes reach this one at' },
  { name: 'http.port', default: '9200', kind: { type: 'port' }, help: 'HTTP port (0 picks a free one)' },
  { name: 'http.max_content_length', default: '100mb', kind: { type: 'bytes' }, help: 'larger request bodies are refused with 413' },
  { name: 'http.read_timeout', default: '60s', kind: { type: 'duration' }, help: 'a request (headers and body) that takes longer to arrive is answered 408; 0 = none' },
  {
    name: 'network.breaker.inflight_requests.limit',
    default: '100%',
    kind: { type: 'memory' },
    help: 'bytes of request bodies in flight at once (a percentage is of the heap limit); beyond it 429',
  },
  { name: 'transport.port', default: '9300', kind: { type: 'port' }, help: 'node-to-node transport, on Kafka only (0 picks a free one)' },
  { name: 'node.data', default: 'true', kind: { type: 'bool' }, help: 'false: a coordinating-only node that holds no shard copies' },
  { name: 'node.master', default: 'true', kind: { type: 'bool' }, help: 'accepted for Elasticsearch configurations; every node may be master' },
  {
    name: 'node.processors',
    default: String(availableParallelism()),
    defaultShown: "the machine's cores",
    kind: { type: 'int', min: 1 },
    help: 'shard worker threads that index and search the copies',
  },
  { name: 'log', default: 'embedded', kind: { type: 'enum', values: ['embedded', 'kafka'] }, help: 'the commit log: embedded (one machine) or kafka' },
  { name: 'log.fsync', default: 'false', kind: { type: 'bool' }, help: 'fsync every append (without it a write survives a crash, not a power cut)' },
  { name: 'brokers', default: '', kind: { type: 'list' }, help: 'Kafka bootstrap brokers host:port,... (log: kafka)' },
  { name: 'cluster.session_timeout', default: '10s', kind: { type: 'duration' }, help: "how long a silent node stays a member before its copies move" },
  { name: 'kafka.topic_provisioner', default: '', kind: STRING, help: 'URL that creates topics, for brokers that refuse CreateTopics (the mock)' },
  { name: 'http.cors.enabled', default: CORS_DEFAULTS['http.cors.enabled']!, kind: { type: 'bool' }, help: 'answer cross-origin requests from a browser (http.cors.*)' },
  {
    name: 'http.cors.allow-origin',
    default: CORS_DEFAULTS['http.cors.allow-origin']!,
    kind: STRING,
    help: 'origins allowed: *, a comma-separated list, or /regex/; empty allows none',
  },
  { name: 'http.cors.max-age', default: CORS_DEFAULTS['http.cors.max-age']!, kind: { type: 'int', min: 0 }, help: 'seconds a browser may cache a preflight answer' },
  { name: 'http.cors.allow-methods', default: CORS_DEFAULTS['http.cors.allow-methods']!, kind: STRING, help: 'methods allowed across origins, comma-separated' },
  { name: 'http.cors.allow-headers', default: CORS_DEFAULTS['http.cors.allow-headers']!, kind: STRING, help: 'request headers allowed across origins, comma-separated' },
  { name: 'http.cors.allow-credentials', default: CORS_DEFAULTS['http.cors.allow-credentials']!, kind: { type: 'bool' }, help: 'send Access-Control-Allow-Credentials' },
  ...CLUSTER_SETTING_KEYS.map((name): Setting => {
    const about = (CLUSTER_HELP as Readonly<Record<string, { kind: string; help: string }>>)[name] ?? { kind: 'value', help: 'a dynamic cluster setting' };
    // No default of its own here: the cluster's (cluster-settings.ts) applies unless the configuration sets one.
    return { name, default: '', defaultShown: clusterSettingDefault(name), kind: { type: 'cluster', shown: about.kind }, help: about.help };
  }),
  // ---- security (docs/security.md); Elasticsearch's names, off by default as in 6.8 ----
  { name: 'xpack.security.enabled', default: 'false', kind: { type: 'bool' }, help: 'true: every HTTP request needs a user (basic auth) with the privileges for it' },
  { name: 'xpack.security.http.ssl.enabled', default: 'false', kind: { type: 'bool' }, help: 'serve HTTPS instead of HTTP' },
  { name: 'xpack.security.http.ssl.key', default: '', kind: STRING, help: "the HTTP server's private key (PEM file)" },
  { name: 'xpack.security.http.ssl.certificate', default: '', kind: STRING, help: "the HTTP server's certificate (PEM file, may hold its chain)" },
  { name: 'xpack.security.http.ssl.certificate_authorities', default: '', kind: { type: 'list' }, help: 'CA certificates (PEM files) trusted for client certificates' },
  {
    name: 'xpack.security.http.ssl.client_authentication',
    default: 'none',
    kind: { type: 'enum', values: ['none', 'optional', 'required'] },
    help: 'whether HTTPS clients must present a certificate the CAs signed',
  },
  { name: 'xpack.security.transport.ssl.enabled', default: 'false', kind: { type: 'bool' }, help: 'node-to-node transport over mutual TLS (needed with security on a cluster)' },
  { name: 'xpack.security.transport.ssl.key', default: '', kind: STRING, help: "this node's transport private key (PEM file)" },
  { name: 'xpack.security.transport.ssl.certificate', default: '', kind: STRING, help: "this node's transport certificate (PEM file)" },
  { name: 'xpack.security.transport.ssl.certificate_authorities', default: '', kind: { type: 'list' }, help: "CA certificates (PEM files) that signed the nodes' certificates" },
  {
    name: 'xpack.security.transport.ssl.verification_mode',
    default: 'full',
    kind: { type: 'enum', values: ['full', 'certificate', 'none'] },
    help: "full: a peer's certificate must be signed by the CAs and name its host; certificate: signed only",
  },
  {
    name: 'kafka.security.protocol',
    default: 'plaintext',
    kind: { type: 'enum', values: ['plaintext', 'ssl', 'sasl_plaintext', 'sasl_ssl'] },
    help: "how the Kafka clients reach the brokers (librdkafka's security.protocol)",
  },
  { name: 'kafka.sasl.mechanism', default: 'plain', kind: { type: 'enum', values: ['plain', 'scram-sha-256', 'scram-sha-512'] }, help: 'SASL mechanism (sasl_*)' },
  { name: 'kafka.sasl.username', default: '', kind: STRING, help: 'SASL user (sasl_*)' },
  { name: 'kafka.sasl.password', default: '', kind: STRING, help: 'SASL password (sasl_*); prefer the environment to a file' },
  { name: 'kafka.ssl.ca.location', default: '', kind: STRING, help: "CA certificates (PEM file) for the brokers' certificates; empty: the system's" },
  { name: 'kafka.ssl.certificate.location', default: '', kind: STRING, help: 'client certificate (PEM file), for brokers that ask for one' },
  { name: 'kafka.ssl.key.location', default: '', kind: STRING, help: "the client certificate's private key (PEM file)" },
  { name: 'logger.level', default: 'info', kind: { type: 'enum', values: LOG_LEVELS }, help: 'log level' },
  { name: 'telemetry.otlp.endpoint', default: '', kind: STRING, help: 'OTLP/HTTP base URL to export traces to; empty: no tracing' },
  {
    name: 'telemetry.traces.buffer_size',
    default: '10000',
    kind: { type: 'int', min: 0 },
    help: "spans the node keeps in memory for the console's traces page (about 1 kB each); 0: none, and no tracing without an OTLP endpoint",
  },
  {
    name: 'telemetry.jaeger.ui_url',
    default: '',
    kind: STRING,
    help: "Jaeger UI base URL the console's traces link to when spans are exported; empty: derived from the OTLP endpoint when it is Jaeger's (port 4318), else no link",
  },
];

/** `--config FILE`: the YAML file to read; not a setting of its own. */
export const CONFIG_FLAG = 'config';

export const SETTINGS_BY_NAME: ReadonlyMap<string, Setting> = new Map(SETTINGS.map((s) => [s.name, s]));

/** How a setting's kind reads in `--help`. */
function kindText(kind: SettingKind): string {
  switch (kind.type) {
    case 'enum':
      return kind.values.filter((v) => v !== 'silent').join('|');
    case 'duration':
      return 'time';
    case 'bytes':
      return 'size';
    case 'int':
      return 'number';
    case 'cluster':
      return kind.shown;
    default:
      return kind.type;
  }
}

/** The settings as `logsearch start --help` lists them: the flag with its kind of value and default, then the meaning. */
export function settingsHelp(): string {
  return SETTINGS.map((s) => {
    const def = s.defaultShown ?? (s.default === '' ? 'none' : s.default);
    return `  --${s.name} <${kindText(s.kind)}>  (default: ${def})\n        ${s.help}`;
  }).join('\n');
}
