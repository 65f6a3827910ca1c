/**
 * The OpenTelemetry SDK wiring behind startTracing (tracing.ts), in a module
 * of its own so that a process without tracing never loads the SDK.
 */
import { DiagLogLevel, context, diag, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { useTracer } from './spans.ts';
import { SpanBuffer, useSpanBuffer } from './span-buffer.ts';
import { LightTracer } from './light-tracer.ts';
import type { Tracing, TracingOptions } from './tracing.ts';

/** Name of the instrumentation scope every span of ours is made by. */
const TRACER_NAME = 'logsearch';

/** How long stopping waits for the last spans to reach the collector. */
const SHUTDOWN_TIMEOUT_MS = 5000;

/**
 * Registers a tracer provider as OpenTelemetry's global one, with the
 * context manager (AsyncLocalStorage, so a span stays active across awaits)
 * and propagator (W3C trace context) it needs, and points spans.ts at it.
 */
export function registerTracerProvider(opts: TracingOptions): Tracing {
  if (!opts.exporter && !opts.endpoint && opts.bufferSize && opts.bufferSize > 0) return registerLightTracer(opts, new SpanBuffer(opts.bufferSize));
  const processors: SpanProcessor[] = [];
  if (opts.exporter || opts.endpoint) {
    const exporter = opts.exporter ?? new OTLPTraceExporter({ url: opts.endpoint });
    processors.push(opts.exporter && !opts.batch ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter));
  }
  const buffer = opts.bufferSize && opts.bufferSize > 0 ? new SpanBuffer(opts.bufferSize) : null;
  if (buffer) processors.push(buffer);
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName, 'node.name': opts.nodeName, 'cluster.name': opts.clusterName }));
  // Sampler and span limits come from the standard OTEL_* variables (OTEL_TRACES_SAMPLER, ...).
  const provider = new BasicTracerProvider({ resource, spanProcessors: processors });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const report = opts.onDiagnostic;
  if (report) {
    const ignore = (): void => {};
    diag.setLogger(
      { error: (m) => report('error', m), warn: (m) => report('warn', m), info: ignore, debug: ignore, verbose: ignore },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }
  useTracer(provider.getTracer(TRACER_NAME));
  useSpanBuffer(buffer);

  let stopped: Promise<void> | null = null;
  return {
    forceFlush: () => provider.forceFlush(),
    shutdown() {
      stopped ??= (async () => {
        useTracer(null);
        useSpanBuffer(null);
        try {
          await provider.forceFlush({ timeoutMillis: SHUTDOWN_TIMEOUT_MS });
          await provider.shutdown();
        } finally {
          trace.disable();
          propagation.disable();
          context.disable();
          if (report) diag.disable();
        }
      })();
      return stopped;
    },
  };
}

/**
 * Spans that only go to the console's buffer: the light tracer
 * (light-tracer.ts) instead of the SDK's, with the same context manager and
 * propagator, registered as the global tracer provider too.
 */
function registerLightTracer(opts: TracingOptions, buffer: SpanBuffer): Tracing {
  const tracer = new LightTracer(buffer, { [ATTR_SERVICE_NAME]: opts.serviceName, 'node.name': opts.nodeName, 'cluster.name': opts.clusterName });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  useTracer(tracer);
  useSpanBuffer(buffer);
  let stopped: Promise<void> | null = null;
  return {
    forceFlush: () => Promise.resolve(),
    shutdown() {
      stopped ??= (async () => {
        useTracer(null);
        useSpanBuffer(null);
        trace.disable();
        propagation.disable();
        context.disable();
      })();
      return stopped;
    },
  };
}
