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
