/**
 * One trace per REST request (DESIGN.md section 7): a server span named
 * after the route pattern (`POST /{index}/_search`, never the raw URL), with
 * the HTTP method, route and status code. It continues the caller's trace
 * when the request carries a W3C `traceparent` header. Everything the
 * handler does (coordination, produce, shard phases) runs with it active, so
 * those spans are its children.
 *
 * The hooks are added only when tracing runs (http-server.ts): a node
 * without tracing does not pay for three hooks per request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '../../../shared/telemetry/attributes.ts';
import { SpanKind, SpanStatusCode, runInSpan, startSpanFrom, type ScopedSpan } from '../../../shared/telemetry/spans.ts';

/** `routeOf` names the route table's path a request takes (`/{index}/_search`), undefined when none. */
export function traceRequests(app: FastifyInstance, routeOf: (req: FastifyRequest) => string | undefined): void {
  const spans = new WeakMap<FastifyRequest, ScopedSpan>();

  app.addHook('onRequest', (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    // The console's own files and its background polling would bury the requests it is there to show.
    if (req.url === '/_console' || req.url.startsWith('/_console/') || req.headers['x-logsearch-console'] === 'poll') {
      done();
      return;
    }
    const route = routeOf(req);
    const path = req.url;
    const q = path.indexOf('?');
    const scoped = startSpanFrom(route === undefined ? req.method : `${req.method} ${route}`, req.headers, SpanKind.SERVER, {
      [ATTR_HTTP_REQUEST_METHOD]: req.method,
      [ATTR_URL_PATH]: q < 0 ? path : path.slice(0, q),
      ...(route === undefined ? {} : { [ATTR_HTTP_ROUTE]: route }),
    });
    if (scoped) spans.set(req, scoped);
    done();
  });

  // Fastify calls the handler synchronously from this hook's `done`, so the handler and its continuations run in the span.
  app.addHook('preHandler', (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const scoped = spans.get(req);
    if (scoped) runInSpan(scoped, done);
    else done();
  });

  const end = (req: FastifyRequest, status: number | null): void => {
    const scoped = spans.get(req);
    if (!scoped) return;
    spans.delete(req);
    if (status !== null) {
      scoped.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      // A 4xx is the client's doing; only a 5xx fails a server span (OpenTelemetry's HTTP conventions).
      if (status >= 500) scoped.span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      scoped.span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted by the client' });
    }
    scoped.span.end();
  };
  app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    end(req, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (req: FastifyRequest, done: () => void) => {
    end(req, null);
    done();
  });
}
