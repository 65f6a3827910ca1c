/**
 * The console's traces API (console/src/traces.ts), over the spans this
 * node keeps in memory (shared/telemetry/span-buffer.ts):
 *
 * - `GET /_console/api/traces?path=&status=&min_duration=&index=&size=`:
 *   the traces held, newest first, as summaries;
 * - `GET /_console/api/traces/{trace_id}`: every span of one trace held here.
 *
 * Not an Elasticsearch API: it goes through the route table like one, so
 * whatever guards the REST API (authentication) guards it too. When the node
 * keeps no spans (`telemetry.traces.buffer_size: 0`, or tracing started by
 * someone else) it says so with `enabled: false`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import { spanBuffer } from '../../../../shared/telemetry/span-buffer.ts';
import { intParam, params, query, timeParam } from '../params.ts';
import { sendJson } from '../reply.ts';

const MAX_SIZE = 1000;

function disabled(reply: FastifyReply): FastifyReply {
  return sendJson(reply, 200, {
    enabled: false,
    reason: 'this node keeps no spans: start it with telemetry.traces.buffer_size above 0 (e.g. --telemetry.traces.buffer_size 10000)',
    traces: [],
  });
}

export function consoleTraceHandlers() {
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
      return sendJson(reply, 200, { enabled: true, capacity: buffer.capacity, spans_seen: buffer.total, traces });
    },
    async get(req: FastifyRequest, reply: FastifyReply) {
      const id = params(req).trace_id ?? '';
      if (!/^[0-9a-f]{32}$/.test(id)) throw illegalArgument(`[${id}] is not a trace id (32 lowercase hex digits)`);
      const buffer = spanBuffer();
      if (buffer === null) return disabled(reply);
      const spans = buffer.trace(id);
      return sendJson(reply, spans.length === 0 ? 404 : 200, { enabled: true, trace_id: id, found: spans.length > 0, spans });
    },
  };
}
