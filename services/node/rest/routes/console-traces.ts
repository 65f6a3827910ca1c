/**
 * The console's traces API (console/src/traces.ts), over the spans this
 * node keeps in memory (shared/telemetry/span-buffer.ts):
 *
 * - `GET /_console/api/traces?path=&status=&min_duration=&index=&size=`:
 *   the traces held, newest first, as summaries;
 * - `GET /_console/api/traces/{trace_id}`: every span of one trace, from
 *   this node and every other node of the cluster (each asked over the
 *   transport, NODE_ADMIN `trace_spans`, waiting TRACE_GATHER_TIMEOUT_MS at
 *   most): a write applies on every copy, wherever it is. A node that does not
 *   answer in time is named in `failed_nodes`, not an error.
 *
 * Not an Elasticsearch API: it goes through the route table like one, so
 * whatever guards the REST API (authentication) guards it too. When the node
 * keeps no spans (`telemetry.traces.buffer_size: 0`, or tracing started by
 * someone else) it says so with `enabled: false`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import { spanBuffer, type SpanRecord } from '../../../../shared/telemetry/span-buffer.ts';
import type { NodeContext } from '../node-context.ts';
import { intParam, params, query, timeParam } from '../params.ts';
import { sendJson } from '../reply.ts';

const MAX_SIZE = 1000;

/** How long a trace waits for another node's spans: the page must open even while a node hangs. */
const TRACE_GATHER_TIMEOUT_MS = 2000;

function disabled(reply: FastifyReply): FastifyReply {
  return sendJson(reply, 200, {
    enabled: false,
    reason: 'this node keeps no spans: start it with telemetry.traces.buffer_size above 0 (e.g. --telemetry.traces.buffer_size 10000)',
    traces: [],
  });
}

export function consoleTraceHandlers(node: NodeContext) {
  return {
    async list(req: FastifyRequest, reply: FastifyReply) {
      const q = query(req);
      const size = intParam(q, 'size') ?? 100;
      if (size < 0 || size > MAX_SIZE) throw illegalArgument(`[size] must be between 0 and ${MAX_SIZE}, was [${size}]`);
      const status = q.status;
      if (status !== undefined && status !== '' && !/^([1-5]xx|[1-5]\d\d)$/i.test(status)) {
        throw illegalArgument(`[status] must be an HTTP status (404) or a class (4xx), was [${status}]`);
      }
      const minDuration = q.min_duration === undefined || q.min_duration === '' ? undefined : timeParam(q, 'min_duration', 0);
      const buffer = spanBuffer();
      if (buffer === null) return disabled(reply);
      const traces = buffer.traces({ path: q.path || undefined, status: status || undefined, minDurationMs: minDuration, index: q.index || undefined, limit: size });
      return sendJson(reply, 200, { enabled: true, capacity: buffer.capacity, spans_seen: buffer.total, jaeger_url: node.config.jaegerUiUrl || null, traces });
    },
    async get(req: FastifyRequest, reply: FastifyReply) {
      const id = params(req).trace_id ?? '';
      if (!/^[0-9a-f]{32}$/.test(id)) throw illegalArgument(`[${id}] is not a trace id (32 lowercase hex digits)`);
      if (spanBuffer() === null) return disabled(reply);
      const nodes = node.directory.nodes();
      const gathered = await node.nodeAdmin.onNodes(
        nodes,
        'trace_spans',
        { trace_id: id },
        () => Promise.resolve(node.nodeAdmin.localTraceSpans(id)),
        TRACE_GATHER_TIMEOUT_MS,
      );
      const spans: SpanRecord[] = [];
      const answered: { name: string; spans: number; buffer: boolean }[] = [];
      for (const n of nodes) {
        if (!gathered.byNode.has(n.id)) continue;
        const held = gathered.byNode.get(n.id) ?? null;
        answered.push({ name: n.name, spans: held?.length ?? 0, buffer: held !== null });
        if (held) spans.push(...held);
      }
      spans.sort((a, b) => a.startMs - b.startMs);
      const failed = gathered.failedNodes.map((f) => ({ name: f.node.name, reason: f.error instanceof Error ? f.error.message : String(f.error) }));
      return sendJson(reply, spans.length === 0 ? 404 : 200, {
        enabled: true,
        trace_id: id,
        found: spans.length > 0,
        // The same trace in Jaeger, when spans are exported to one (telemetry.jaeger.ui_url).
        jaeger_url: node.config.jaegerUiUrl ? `${node.config.jaegerUiUrl}/trace/${id}` : null,
        spans,
        nodes: answered,
        failed_nodes: failed,
      });
    },
  };
}
