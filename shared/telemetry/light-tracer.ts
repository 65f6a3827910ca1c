/**
 * The tracer a node uses when its spans only go to the console's span buffer
 * (no OTLP endpoint: the default). The OpenTelemetry SDK's spans are made
 * for export: each start samples, copies and checks every attribute, reads
 * the clock as a high-resolution tuple and counts itself in a meter. Spans
 * that only wait in a ring need none of that, so here a span keeps the
 * attribute object it is given (every caller passes a fresh one), its times
 * as two numbers, and goes into the ring as it ends (span-buffer.ts).
 *
 * It is an OpenTelemetry API Tracer: context (AsyncLocalStorage), W3C
 * propagation and the helpers of spans.ts work with it as with the SDK's.
 * Every span is kept (no sampler: the buffer is bounded anyway); events are
 * not kept, an exception becomes the `exception.type`/`exception.message`
 * attributes.
 */
import { randomFillSync } from 'node:crypto';
import {
  TraceFlags,
  context,
  isSpanContextValid,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
} from '@opentelemetry/api';
import type { BufferedSpan, SpanBuffer } from './span-buffer.ts';

/** Random bytes for ids, drawn a page at a time. */
const pool = Buffer.allocUnsafe(4096);
let poolPos = pool.length;

function randomHex(bytes: number): string {
  if (poolPos + bytes > pool.length) {
    randomFillSync(pool);
    poolPos = 0;
  }
  const s = pool.toString('hex', poolPos, poolPos + bytes);
  poolPos += bytes;
  return s;
}

const toHr = (ms: number): HrTime => {
  const s = Math.floor(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
};

class LightSpan implements Span, BufferedSpan {
  status: SpanStatus = { code: 0 };
  readonly startTime: HrTime;
  duration: HrTime = [0, 0];
  private readonly startedAt = performance.now();
  private ended = false;

  constructor(
    private readonly buffer: SpanBuffer,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly attributes: Attributes,
    readonly links: Link[],
    readonly resource: { readonly attributes: Attributes },
  ) {
    this.startTime = toHr(performance.timeOrigin + this.startedAt);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (!this.ended) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    if (!this.ended) for (const k of Object.keys(attributes)) this.attributes[k] = attributes[k];
    return this;
  }

  addEvent(): this {
    return this;
  }

  addLink(link: Link): this {
    this.links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    this.links.push(...links);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (!this.ended) this.status = status;
    return this;
  }

  updateName(name: string): this {
    this.name = name;
    return this;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.duration = toHr(performance.now() - this.startedAt);
    this.buffer.keep(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(exception: Exception): void {
    if (typeof exception === 'string') {
      this.setAttribute('exception.message', exception);
      return;
    }
    if (exception.name) this.setAttribute('exception.type', exception.name);
    if (exception.message) this.setAttribute('exception.message', exception.message);
  }
}

export class LightTracer implements Tracer {
  private readonly resource: { readonly attributes: Attributes };

  constructor(
    private readonly buffer: SpanBuffer,
    resourceAttributes: Attributes,
  ) {
    this.resource = { attributes: resourceAttributes };
  }

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    const valid = parent !== undefined && isSpanContextValid(parent) ? parent : undefined;
    const spanContext: SpanContext = {
      traceId: valid?.traceId ?? randomHex(16),
      spanId: randomHex(8),
      traceFlags: TraceFlags.SAMPLED,
      traceState: valid?.traceState,
    };
    return new LightSpan(this.buffer, name, options.kind ?? 0, spanContext, valid, options.attributes ?? {}, options.links ? [...options.links] : [], this.resource);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, ctx: Context, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, a: SpanOptions | F, b?: Context | F, c?: F): ReturnType<F> {
    let options: SpanOptions = {};
    let ctx = context.active();
    let fn: F;
    if (typeof a === 'function') fn = a;
    else if (typeof b === 'function') {
      options = a;
      fn = b;
    } else {
      options = a;
      ctx = b ?? ctx;
      fn = c!;
    }
    const span = this.startSpan(name, options, ctx);
    return context.with(trace.setSpan(ctx, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}
