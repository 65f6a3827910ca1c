/**
 * The REST surface (fastify): dispatch through the route table
 * (route-table.ts, router.ts), Elasticsearch's answers for unknown endpoints,
 * other methods and unsupported Content-Types, CORS, error rendering,
 * `pretty` and `filter_path`. Fastify does the HTTP; which handler runs is
 * decided by one table.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Transform } from 'node:stream';
import { EsError, contentTooLarge, internalError, isEsError, renderError } from '../../../shared/errors/es-errors.ts';
import { filterPath } from './filter-path.ts';
import { traceRequests } from './request-tracing.ts';
import { tracingEnabled } from '../../../shared/telemetry/spans.ts';
import type { Logger } from '../logger.ts';
import { Router, type Route, type RouteMatch } from './router.ts';
import { contentTypeProblem } from './content-type.ts';
import { CorsPolicy, type CorsSettings } from './cors.ts';
import type { NodeSecurity } from '../security/request-security.ts';
import type { TlsMaterial } from '../security/tls-files.ts';
import type { ClientAuthentication } from '../security/security-config.ts';
import { registerConsole } from './console-static.ts';

export interface HttpServerOptions {
  readonly maxContentLength: number;
  /** `http.read_timeout` in ms (0: none). */
  readonly readTimeoutMs?: number;
  /** `network.breaker.inflight_requests.limit` in bytes. */
  readonly inflightRequestsLimit?: number;
  readonly logger: Logger;
  readonly routes: readonly Route[];
  readonly cors?: CorsSettings;
  /** `xpack.security.enabled`: every routed request is authenticated and authorized first. */
  readonly security?: NodeSecurity | null;
  /** `xpack.security.http.ssl.*`: serve HTTPS with these PEMs. */
  readonly https?: { readonly material: TlsMaterial; readonly clientAuthentication: ClientAuthentication } | null;
  /** The built web console's folder, served at `/_console/` (console-static.ts); absent: no console. */
  readonly consoleDir?: string;
}

/** Renders an error as Elasticsearch does; non-ES errors become 500s without leaking internals. */
export function sendError(reply: FastifyReply, err: unknown, logger: Logger): FastifyReply {
  let es: EsError;
  if (isEsError(err)) es = err;
  else {
    logger.error({ err }, 'unexpected error while handling a request');
    es = internalError(err instanceof Error ? err.message : String(err));
  }
  // A 401 carries its challenge as a header too, so clients and browsers ask for credentials.
  const challenge = (es.extra.header as Record<string, string> | undefined)?.['WWW-Authenticate'];
  if (es.status === 401 && challenge !== undefined) reply.header('WWW-Authenticate', challenge);
  return reply.code(es.status).type('application/json; charset=UTF-8').send(JSON.stringify(renderError(es)));
}

/** BytesRestResponse.createSimpleErrorResponse: `{"error": "...", "status": N}`, as the REST layer's own refusals are. */
function sendSimpleError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=UTF-8').send(JSON.stringify({ error: message, status }));
}

/**
 * The query string with one value per name: a name given twice (`?size=1&size=2`)
 * takes its last value, as Elasticsearch's RestUtils.decodeQueryString does,
 * instead of an array no handler expects.
 */
function lastValueParams(req: FastifyRequest): Record<string, string | undefined> {
  const q = req.query as Record<string, unknown>;
  for (const k of Object.keys(q)) {
    const v = q[k];
    if (Array.isArray(v)) q[k] = v.length === 0 ? '' : String(v[v.length - 1]);
  }
  return q as Record<string, string | undefined>;
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

function answerClientError(err: Error & { code?: string }, socket: Socket, readTimeoutMs: number): void {
  if (!socket.writable) return;
  const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT';
  const es = timedOut
    ? new EsError('timeout_exception', `the request was not received within [${readTimeoutMs}ms] (http.read_timeout)`, 408)
    : new EsError('illegal_argument_exception', clientErrorReason(err), 400);
  const body = JSON.stringify(renderError(es));
  const line = timedOut ? '408 Request Timeout' : '400 Bad Request';
  socket.end(
    `HTTP/1.1 ${line}\r\ncontent-type: application/json; charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Elasticsearch's CircuitBreakingException of the in-flight requests breaker. */
function inflightBreakerError(wanted: number, limit: number): EsError {
  return new EsError(
    'circuit_breaking_exception',
    `[in_flight_requests] Data too large, data for [<http_request>] would be [${wanted}/${byteSizeText(wanted)}], which is larger than the limit of [${limit}/${byteSizeText(limit)}]`,
    429,
    { bytes_wanted: wanted, bytes_limit: limit },
  );
}

/** ByteSizeValue.toString: `1.2mb`, `512b`. */
function byteSizeText(n: number): string {
  const units: [number, string][] = [
    [1024 ** 4, 'tb'],
    [1024 ** 3, 'gb'],
    [1024 ** 2, 'mb'],
    [1024, 'kb'],
  ];
  for (const [size, unit] of units) if (n >= size) return `${Math.round((n / size) * 10) / 10}${unit}`;
  return `${n}b`;
}

export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const router = new Router(opts.routes);
  const cors = opts.cors ? new CorsPolicy(opts.cors) : null;
  const tls = opts.https
    ? {
        key: opts.https.material.key,
        cert: opts.https.material.cert,
        ca: opts.https.material.ca.length > 0 ? [...opts.https.material.ca] : undefined,
        requestCert: opts.https.clientAuthentication !== 'none',
        rejectUnauthorized: opts.https.clientAuthentication === 'required',
      }
    : null;
  const security = opts.security ?? null;
  const app = Fastify({
    // HTTPS through the server factory, so the instance keeps one type whichever it serves.
    ...(tls ? { serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => createHttpsServer(tls, handler) as unknown as HttpServer } : {}),
    logger: false,
    bodyLimit: opts.maxContentLength,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    clientErrorHandler: (err, socket) => answerClientError(err, socket, opts.readTimeoutMs ?? 0),
    // A backstop only: Node checks it every 30 s; the body timer below answers on time.
    requestTimeout: opts.readTimeoutMs ? opts.readTimeoutMs * 2 : 0,
    // A URL fastify cannot decode (`/%zz`): RestUtils.decodeComponent's IllegalArgumentException.
    frameworkErrors: (err, _req, reply) => {
      const reason = (err as { code?: string }).code === 'FST_ERR_BAD_URL' ? `unable to decode the request URL: ${err.message}` : err.message;
      void sendError(reply, new EsError('illegal_argument_exception', reason, 400), opts.logger);
    },
  });

  // Elasticsearch reads a GET's body (clients send searches, explains and term vectors as GET with a body).
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });

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

  // The in-flight requests breaker: bytes of bodies arriving or being handled, released when the response is done.
  const inflightLimit = opts.inflightRequestsLimit ?? Number.POSITIVE_INFINITY;
  let inflight = 0;
  const readTimeoutMs = opts.readTimeoutMs ?? 0;
  app.addHook('preParsing', async (req, reply, payload) => {
    let held = 0;
    let timer: NodeJS.Timeout | undefined;
    reply.raw.once('close', () => {
      inflight -= held;
      held = 0;
      clearTimeout(timer);
    });
    const counted = payload.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          if (inflight + chunk.length > inflightLimit) {
            done(inflightBreakerError(inflight + chunk.length, inflightLimit));
            return;
          }
          inflight += chunk.length;
          held += chunk.length;
          done(null, chunk);
        },
      }),
    );
    // `http.read_timeout`: a body that has not fully arrived in time is answered 408 and its bytes let go.
    if (readTimeoutMs > 0) {
      timer = setTimeout(() => {
        // Received whole (a GET has no body to read): the handler is what takes long (a health check that waits), not the request.
        // Destroyed unread, the stream's error had no listener and ended the process.
        if (req.raw.complete) return;
        reply.header('connection', 'close');
        counted.destroy(new EsError('timeout_exception', `the request was not received within [${readTimeoutMs}ms] (http.read_timeout)`, 408));
      }, readTimeoutMs);
      timer.unref();
      counted.once('end', () => clearTimeout(timer));
    }
    return counted;
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
    lastValueParams(req);
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
        if (security !== null) await security.check(req, m.route.auth, m.params);
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
  if (opts.consoleDir !== undefined) registerConsole(app, opts.consoleDir, 'node', dispatch);
  app.route({ method: ROUTED_METHODS, url: '*', handler: dispatch });
  app.setNotFoundHandler(dispatch);

  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const q = lastValueParams(req);
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
