/**
 * Starting and stopping OpenTelemetry tracing in a process (DESIGN.md
 * section 7). Spans are exported over OTLP/HTTP (JSON) when an endpoint is
 * configured, and kept in memory for the console when a buffer is (the
 * default: `telemetry.traces.buffer_size`). Without either nothing is started at all: the SDK is not even
 * loaded, no tracer provider is registered, and the helpers of spans.ts
 * call straight through.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { tracingEnabled } from './spans.ts';

/** OTEL_SERVICE_NAME's stand-in when it is not set. */
export const DEFAULT_SERVICE_NAME = 'logsearch';

export interface TracingOptions {
  readonly serviceName: string;
  readonly nodeName: string;
  readonly clusterName: string;
  /** Full OTLP/HTTP traces URL (`.../v1/traces`); spans are batched and sent there. */
  readonly endpoint?: string;
  /** Instead of an endpoint: spans go to this exporter as each ends (tests, with an in-memory exporter). */
  readonly exporter?: SpanExporter;
  /** Keep the most recent this many spans in memory for the console (span-buffer.ts); 0 or absent: none. */
  readonly bufferSize?: number;
  /** Batch the spans for `exporter` as they are for an endpoint, instead (benchmarks). */
  readonly batch?: boolean;
  /** The SDK's own warnings and errors (an unreachable collector), for the node's log. */
  readonly onDiagnostic?: (level: 'warn' | 'error', message: string) => void;
}

export interface Tracing {
  /** Sends the spans still buffered. */
  forceFlush(): Promise<void>;
  /** Flushes, then unregisters everything startTracing registered. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * The OTLP traces URL from, in falling precedence: the node setting
 * `telemetry.otlp.endpoint` (a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT),
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL, used as is) and
 * OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: `/v1/traces` is appended).
 * Empty when none is set or OTEL_SDK_DISABLED is `true`: tracing stays off.
 */
export function otlpTracesUrl(setting: string, env: Readonly<Record<string, string | undefined>>): string {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return '';
  const base = setting.trim();
  if (base) return withTracesPath(base);
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return general ? withTracesPath(general) : '';
}

/** Jaeger all-in-one's OTLP/HTTP receiver port, and its UI's port beside it. */
const JAEGER_OTLP_PORT = '4318';
const JAEGER_UI_PORT = '16686';

/**
 * The Jaeger UI's base URL for links to a trace (`{base}/trace/{id}`), when
 * spans are exported (a Jaeger only has them through an OTLP endpoint): the
 * setting `telemetry.jaeger.ui_url` when given, else derived from the OTLP
 * traces URL when it is Jaeger's port (4318): the same host, port 16686.
 * Empty (no link) otherwise.
 */
export function jaegerUiUrl(setting: string, tracesUrl: string): string {
  if (!tracesUrl) return '';
  const given = setting.trim();
  if (given) return given.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(tracesUrl);
  } catch {
    return '';
  }
  return url.port === JAEGER_OTLP_PORT ? `${url.protocol}//${url.hostname}:${JAEGER_UI_PORT}` : '';
}

function withTracesPath(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Starts tracing for this process (tracer-provider.ts). Resolves with null,
 * having loaded and registered nothing, when neither an endpoint, an
 * exporter nor a span buffer is asked for, or when tracing already runs in this process (several
 * nodes in one process share the first one's).
 */
export async function startTracing(opts: TracingOptions): Promise<Tracing | null> {
  if ((!opts.endpoint && !opts.exporter && !(opts.bufferSize && opts.bufferSize > 0)) || tracingEnabled()) return null;
  const { registerTracerProvider } = await import('./tracer-provider.ts');
  if (tracingEnabled()) return null; // started by another caller while the SDK loaded
  return registerTracerProvider(opts);
}
