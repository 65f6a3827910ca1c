/**
 * The node's most recent spans, kept in memory for the console's traces
 * page (services/node/rest/routes/console-traces.ts): a ring of fixed size
 * the ended spans go into, the oldest overwritten, fed as a span processor
 * of the SDK (spans also exported) or by light-tracer.ts (spans only kept
 * here, the default). It keeps the span object as it is (no copy, no
 * conversion while the request runs); the page's queries walk the ring when
 * someone asks.
 *
 * Bounded: `telemetry.traces.buffer_size` spans at most (a span is about a
 * kilobyte with its attributes, so the default 10,000 is some 10 MB).
 */
import type { Attributes, Context, HrTime, Link, SpanContext, SpanStatus } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * What the ring keeps of a span: the SDK's ReadableSpan (when spans are also
 * exported) or a light-tracer.ts span (when they only come here) have it.
 */
export interface BufferedSpan {
  spanContext(): SpanContext;
  readonly parentSpanContext?: SpanContext;
  readonly name: string;
  readonly kind: number;
  readonly startTime: HrTime;
  readonly duration: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links: readonly Link[];
  readonly resource: { readonly attributes: Attributes };
}

/** A span as the console shows it: times in ms since the epoch, attributes as JSON values. */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly kind: number;
  readonly startMs: number;
  readonly durationMs: number;
  /** 0 unset, 1 ok, 2 error (OpenTelemetry's SpanStatusCode). */
  readonly status: number;
  readonly statusMessage: string | null;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly { traceId: string; spanId: string }[];
  readonly service: string;
  readonly node: string;
}

/** One trace in a list: its root (or earliest) span and what it holds. */
export interface TraceSummary {
  readonly traceId: string;
  readonly name: string;
  readonly startMs: number;
  readonly durationMs: number;
  readonly spans: number;
  readonly error: boolean;
  readonly path: string | null;
  readonly status: number | null;
  readonly indices: readonly string[];
}

export interface TraceFilter {
  /** A substring of the request path or the root span's name. */
  readonly path?: string;
  /** An HTTP status (200), or a class (`4xx`, `5xx`). */
  readonly status?: string;
  readonly minDurationMs?: number;
  /** Traces with a span about this index. */
  readonly index?: string;
  readonly limit?: number;
}

const toMs = (t: readonly [number, number]): number => t[0] * 1000 + t[1] / 1e6;

function record(s: BufferedSpan): SpanRecord {
  const ctx = s.spanContext();
  const res = s.resource.attributes;
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? null,
    name: s.name,
    kind: s.kind,
    startMs: toMs(s.startTime),
    durationMs: toMs(s.duration),
    status: s.status.code,
    statusMessage: s.status.message ?? null,
    attributes: { ...s.attributes },
    links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    service: String(res['service.name'] ?? ''),
    node: String(res['node.name'] ?? ''),
  };
}

export class SpanBuffer implements SpanProcessor {
  private readonly ring: (BufferedSpan | undefined)[];
  private next = 0;
  /** Spans ever put in the ring (so `dropped` = total - capacity once it turned over). */
  total = 0;

  constructor(readonly capacity: number) {
    this.ring = new Array<BufferedSpan | undefined>(capacity);
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    this.keep(span);
  }

  /** Puts an ended span in the ring, over the oldest once it is full. */
  keep(span: BufferedSpan): void {
    this.ring[this.next] = span;
    this.next = this.next + 1 === this.capacity ? 0 : this.next + 1;
    this.total++;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    this.ring.fill(undefined);
    return Promise.resolve();
  }

  /** The spans held, oldest first. */
  private *spans(): Generator<BufferedSpan> {
    for (let i = 0; i < this.capacity; i++) {
      const s = this.ring[(this.next + i) % this.capacity];
      if (s !== undefined) yield s;
    }
  }

  /** Every span of one trace held here, by start time. */
  trace(traceId: string): SpanRecord[] {
    const out: SpanRecord[] = [];
    for (const s of this.spans()) if (s.spanContext().traceId === traceId) out.push(record(s));
    return out.sort((a, b) => a.startMs - b.startMs);
  }

  /** The traces held that pass the filter, newest first. */
  traces(filter: TraceFilter = {}): TraceSummary[] {
    const byTrace = new Map<string, BufferedSpan[]>();
    for (const s of this.spans()) {
      const id = s.spanContext().traceId;
      const list = byTrace.get(id);
      if (list) list.push(s);
      else byTrace.set(id, [s]);
    }
    const out: TraceSummary[] = [];
    for (const [traceId, spans] of byTrace) {
      const ids = new Set(spans.map((s) => s.spanContext().spanId));
      // The root: a span without a parent, else the earliest whose parent is not here (an incomplete trace).
      const roots = spans.filter((s) => s.parentSpanContext === undefined || !ids.has(s.parentSpanContext.spanId));
      const root = roots.find((s) => s.parentSpanContext === undefined) ?? roots.sort((a, b) => toMs(a.startTime) - toMs(b.startTime))[0] ?? spans[0];
      const start = Math.min(...spans.map((s) => toMs(s.startTime)));
      const end = Math.max(...spans.map((s) => toMs(s.startTime) + toMs(s.duration)));
      const indices = new Set<string>();
      for (const s of spans) {
        const idx = s.attributes['logsearch.index'];
        if (typeof idx === 'string') indices.add(idx);
      }
      const statusAttr = root.attributes['http.response.status_code'];
      const pathAttr = root.attributes['url.path'];
      out.push({
        traceId,
        name: root.name,
        startMs: start,
        durationMs: end - start,
        spans: spans.length,
        error: spans.some((s) => s.status.code === 2),
        path: typeof pathAttr === 'string' ? pathAttr : null,
        status: typeof statusAttr === 'number' ? statusAttr : null,
        indices: [...indices].sort(),
      });
    }
    const f = filter;
    const statusMatch = (st: number | null): boolean => {
      if (!f.status) return true;
      if (st === null) return false;
      const m = /^([1-5])xx$/i.exec(f.status);
      return m ? Math.floor(st / 100) === Number(m[1]) : String(st) === f.status;
    };
    return out
      .filter(
        (t) =>
          (!f.path || (t.path ?? '').includes(f.path) || t.name.includes(f.path)) &&
          statusMatch(t.status) &&
          (f.minDurationMs === undefined || t.durationMs >= f.minDurationMs) &&
          (!f.index || t.indices.includes(f.index)),
      )
      .sort((a, b) => b.startMs - a.startMs)
      .slice(0, f.limit ?? 100);
  }
}

/** The process's buffer while tracing runs with one (tracer-provider.ts), else null. */
let current: SpanBuffer | null = null;

export function useSpanBuffer(b: SpanBuffer | null): void {
  current = b;
}

export function spanBuffer(): SpanBuffer | null {
  return current;
}
