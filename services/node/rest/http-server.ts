/**
 * The REST surface (fastify): dispatch through the route table
 * (route-table.ts, router.ts), Elasticsearch's answers for unknown endpoints,
 * other methods and unsupported Content-Types, CORS, error rendering,
 * `pretty` and `filter_path`. Fastify does the HTTP; which handler runs is
 * decided by one table.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { EsError, contentTooLarge, internalError, isEsError, renderError } from '../../../shared/errors/es-errors.ts';
import { filterPath } from './filter-path.ts';
import { traceRequests } from './request-tracing.ts';
import { tracingEnabled } from '../../../shared/telemetry/spans.ts';
import type { Logger } from '../logger.ts';
import { Router, type Route, type RouteMatch } from './router.ts';
import { contentTypeProblem } from './content-type.ts';
import { CorsPolicy, type CorsSettings } from './cors.ts';

export interface HttpServerOptions {
  readonly maxContentLength: number;
  readonly logger: Logger;
  readonly routes: readonly Route[];
  readonly cors?: CorsSettings;
}

/** Renders an error as Elasticsearch does; non-ES errors become 500s without leaking internals. */
export function sendError(reply: FastifyReply, err: unknown, logger: Logger): FastifyReply {
  let es: EsError;
  if (isEsError(err)) es = err;
  else {
    logger.error({ err }, 'unexpected error while handling a request');
    es = internalError(err instanceof Error ? err.message : String(err));
  }
  return reply.code(es.status).type('application/json; charset=UTF-8').send(JSON.stringify(renderError(es)));
}

/** BytesRestResponse.createSimpleErrorResponse: `{"error": "...", "status": N}`, as the REST layer's own refusals are. */
function sendSimpleError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=UTF-8').send(JSON.stringify({ error: message, status }));
}

/** Every method a request can come with that fastify routes; the rest reach the not-found handler. */
const ROUTED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'];

/** Node's parser errors as Elasticsearch reports a request Netty could not decode. */
function clientErrorReason(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'HTTP header is larger than the limit';
    case 'HPE_INVALID_METHOD':
      return 'invalid HTTP method';
    case 'HPE_INVALID_URL':
      return 'invalid HTTP request line';
    default:
      return `malformed HTTP request: ${err.code ?? err.message}`;
  }
}

function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const es = new EsError('illegal_argument_exception', clientErrorReason(err), 400);
  const body = JSON.stringify(renderError(es));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const router = new Router(opts.routes);
  const cors = opts.cors ? new CorsPolicy(opts.cors) : null;
  const app = Fastify({
    logger: false,
    bodyLimit: opts.maxContentLength,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    // A URL fastify cannot decode (`/%zz`): RestUtils.decodeComponent's IllegalArgumentException.
    frameworkErrors: (err, _req, reply) => {
      const reason = (err as { code?: string }).code === 'FST_ERR_BAD_URL' ? `unable to decode the request URL: ${err.message}` : err.message;
      void sendError(reply, new EsError('illegal_argument_exception', reason, 400), opts.logger);
    },
  });

  const matches = new WeakMap<FastifyRequest, RouteMatch>();
  /** The route a request takes, decided once (tracing names its span after it before the handler runs). */
  const matchOf = (req: FastifyRequest): RouteMatch => {
    let m = matches.get(req);
    if (m === undefined) {
      m = router.match(req.method, req.url);
      matches.set(req, m);
    }
    return m;
  };
  if (tracingEnabled()) traceRequests(app, (req) => {
    const m = matchOf(req);
    return m.kind === 'found' ? m.route.path : undefined;
  });

  // Bodies are read as bytes and parsed per API; which Content-Types are accepted is decided at dispatch.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err, req, reply) => {
    const e = err as { code?: string; statusCode?: number };
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, contentTooLarge(opts.maxContentLength), opts.logger);
    if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return sendError(reply, new EsError('parse_exception', 'request body is required', 400), opts.logger);
    if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      // A Content-Type that does not even parse (`garbage/;;;`) is one Elasticsearch does not support.
      if (matchOf(req).kind === 'found') return sendSimpleError(reply, 406, `Content-Type header [${String(req.headers['content-type'])}] is not supported`);
      return dispatch(req, reply);
    }
    if (e.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      return sendError(reply, new EsError('illegal_argument_exception', 'the request body is shorter or longer than its Content-Length', 400), opts.logger);
    }
    return sendError(reply, err, opts.logger);
  });

  const dispatch = async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const opaqueId = req.headers['x-opaque-id'];
    if (typeof opaqueId === 'string') reply.header('X-Opaque-Id', opaqueId);
    if (cors?.handle(req, reply)) return reply;
    const m = matchOf(req);
    switch (m.kind) {
      case 'found': {
        const body = req.body;
        const length = Buffer.isBuffer(body) ? body.length : 0;
        const problem = contentTypeProblem(req.headers['content-type'], length, m.route.body ?? 'json');
        if (problem !== null) return sendSimpleError(reply, 406, problem);
        (req as { params: unknown }).params = m.params;
        return m.route.handler(req, reply);
      }
      case 'method_not_allowed':
        reply.header('Allow', m.allowed.join(','));
        if (req.method === 'OPTIONS') return reply.code(200).type('text/plain; charset=UTF-8').send('');
        return sendSimpleError(reply, 405, `Incorrect HTTP method for uri [${req.url}] and method [${req.method}], allowed: [${m.allowed.join(', ')}]`);
      case 'bad_path':
        return sendError(reply, new EsError('illegal_argument_exception', m.reason, 400), opts.logger);
      case 'no_handler':
        if (req.method === 'OPTIONS') return reply.code(200).type('text/plain; charset=UTF-8').send('');
        if (!ROUTED_METHODS.includes(req.method)) return sendSimpleError(reply, 405, `Incorrect HTTP method for uri [${req.url}] and method [${req.method}]`);
        // RestController.handleBadRequest: an error string, no status member.
        return reply.code(400).type('application/json; charset=UTF-8').send(JSON.stringify({ error: `no handler found for uri [${req.url}] and method [${req.method}]` }));
    }
  };
  app.route({ method: ROUTED_METHODS, url: '*', handler: dispatch });
  app.setNotFoundHandler(dispatch);

  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const q = req.query as Record<string, string | undefined>;
    const wantsPretty = q.pretty !== undefined && q.pretty !== 'false';
    const fp = q.filter_path;
    const type = String(reply.getHeader('content-type') ?? '');
    if ((!wantsPretty && !fp) || !type.startsWith('application/json')) return payload;
    // JSON bodies are strings, or bytes when they embed rendered hits (reply.ts).
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    let body = JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8')) as unknown;
    if (fp) body = filterPath(body, fp.split(','));
    return wantsPretty ? JSON.stringify(body, null, 2) + '\n' : JSON.stringify(body);
  });

  return app;
}
