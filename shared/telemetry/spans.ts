/**
 * The instrumentation's side of tracing (DESIGN.md section 7): spans around
 * a request, a shard phase, a log append or an applied batch, and the trace
 * context that travels with log records and transport requests as W3C
 * `traceparent` / `tracestate` headers.
 *
 * Every function here first asks whether tracing was started in this
 * process (tracing.ts). When it was not, it calls straight through: no span,
 * no context switch, nothing allocated. (The OpenTelemetry API without a
 * registered provider would do nothing too, but it still makes a
 * non-recording span and switches the active context on every call.) Only
 * the small API package is loaded here; the SDK is loaded when tracing starts.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_MESSAGING_BATCH_MESSAGE_COUNT, ATTR_MESSAGING_OPERATION_TYPE, ATTR_OFFSET_FIRST, ATTR_OFFSET_LAST } from './attributes.ts';

export { SpanKind, SpanStatusCode } from '@opentelemetry/api';
export type { Attributes, Span } from '@opentelemetry/api';

/** Set while tracing runs in this process (tracing.ts); null = every helper calls straight through. */
let tracer: Tracer | null = null;

/** Headers that carry a trace context (`traceparent`, maybe `tracestate`). */
export type TraceCarrier = Readonly<Record<string, string>>;

/** For tracing.ts: the tracer spans are made with, or null when tracing stops. */
export function useTracer(t: Tracer | null): void {
  tracer = t;
}

export function tracingEnabled(): boolean {
  return tracer !== null;
}

/**
 * Runs `fn` in a child span of the active context; the span ends when `fn`
 * settles, failed if it rejects. `fn` gets the span (undefined when tracing
 * is off) to add what it learns, such as an offset.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span?: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  if (tracer === null) return fn();
  return tracer.startActiveSpan(name, { kind, attributes }, (span) => endAfter(span, () => fn(span)));
}

/** inSpan for synchronous work (a reduce). */
export function inSpanSync<T>(name: string, attributes: Attributes, fn: () => T): T {
  if (tracer === null) return fn();
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    try {
      return fn();
    } catch (err) {
      recordFailure(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

async function endAfter<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    recordFailure(span, err);
    throw err;
  } finally {
    span.end();
  }
}

export function recordFailure(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * The active trace context as headers, to travel with a log record or a
 * transport request; undefined when tracing is off or no span is active.
 */
export function currentTraceHeaders(): Record<string, string> | undefined {
  if (tracer === null) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/** The trace id of the active span (for a log entry that names its request's trace); null when tracing is off or none is active. */
export function currentTraceId(): string | null {
  if (tracer === null) return null;
  const active = trace.getSpanContext(context.active());
  return active !== undefined && isSpanContextValid(active) ? active.traceId : null;
}

/** A started span and the context that makes it the parent of what runs in it. */
export interface ScopedSpan {
  readonly span: Span;
  readonly context: Context;
}

/**
 * Starts a span whose parent is the context in `carrier` (an incoming HTTP
 * request's or transport request's headers), or a new trace when it holds
 * none. Never the ambient context: a server's socket callbacks run in the
 * context of whatever opened the socket.
 */
export function startSpanFrom(
  name: string,
  carrier: Readonly<Record<string, string | string[] | undefined>> | null | undefined,
  kind: SpanKind,
  attributes: Attributes,
): ScopedSpan | null {
  if (tracer === null) return null;
  const parent = carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
  const span = tracer.startSpan(name, { kind, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` with `scoped` as the active span (its async continuations included). */
export function runInSpan<T>(scoped: ScopedSpan, fn: () => T): T {
  return context.with(scoped.context, fn);
}

/**
 * A server span for work a remote caller asked for, child of the context it
 * sent; ends when `fn` settles. Work sent without a context runs untraced:
 * it is not part of a request (the nodes' twice-a-second status polling),
 * and a trace of its own each time would bury the requests' traces.
 */
export function inRemoteSpan<T>(name: string, carrier: TraceCarrier | null | undefined, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (tracer === null || carrier?.traceparent === undefined) return fn();
  const scoped = startSpanFrom(name, carrier, SpanKind.SERVER, attributes)!;
  return context.with(scoped.context, () => endAfter(scoped.span, fn));
}

/** A log record as the apply span needs it: its headers (and offset, when known). */
export interface TracedRecord {
  readonly headers: TraceCarrier;
  readonly offset?: number;
}

/** Most producing contexts one applied batch links to; a batch holds up to thousands of records. */
const MAX_APPLY_LINKS = 32;

/**
 * The span of one batch of log records applied to a shard copy. It needs
 * nothing but the records' headers, so it works wherever the copy runs (a
 * worker thread that started tracing itself included).
 *
 * When every traced record of the batch came from one append (the usual
 * case: one write request), the span is a child of that append's produce
 * span, so the write's trace shows each copy applying it. Records from
 * several appends make a new trace linked to each of them (as OpenTelemetry's
 * messaging conventions do for batch consumers). Never the ambient context:
 * a follower loop keeps the context of whatever started it.
 */
export function startApplySpan(records: readonly TracedRecord[], attributes: Attributes): Span | null {
  if (tracer === null || records.length === 0) return null;
  const seen: string[] = [];
  const carriers: TraceCarrier[] = [];
  for (let i = 0; i < records.length && carriers.length < MAX_APPLY_LINKS; i++) {
    const headers = records[i]!.headers;
    const tp = headers.traceparent;
    if (tp !== undefined && !seen.includes(tp)) {
      seen.push(tp);
      carriers.push(headers);
    }
  }
  const first = records[0]!.offset;
  const last = records[records.length - 1]!.offset;
  const attrs: Attributes = { ...attributes, [ATTR_MESSAGING_OPERATION_TYPE]: 'process', [ATTR_MESSAGING_BATCH_MESSAGE_COUNT]: records.length };
  if (first !== undefined) attrs[ATTR_OFFSET_FIRST] = first;
  if (last !== undefined) attrs[ATTR_OFFSET_LAST] = last;
  if (carriers.length === 1) {
    return tracer.startSpan('apply', { kind: SpanKind.CONSUMER, attributes: attrs }, propagation.extract(ROOT_CONTEXT, carriers[0]!));
  }
  const links: Link[] = [];
  for (const c of carriers) {
    const linked = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, c));
    if (linked !== undefined && isSpanContextValid(linked)) links.push({ context: linked });
  }
  return tracer.startSpan('apply', { kind: SpanKind.CONSUMER, attributes: attrs, links, root: true }, ROOT_CONTEXT);
}

/** Runs `fn` (the apply of `records`) in its apply span (startApplySpan). */
export function traceApply<T>(records: readonly TracedRecord[], attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  const span = startApplySpan(records, attributes);
  if (span === null) return fn();
  return context.with(trace.setSpan(ROOT_CONTEXT, span), () => endAfter(span, fn));
}
