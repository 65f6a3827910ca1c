/**
 * The REST surface (fastify): body handling, Elasticsearch error rendering,
 * `pretty` and `filter_path`, and the answers Elasticsearch gives for unknown
 * endpoints and methods. Routes live in ./routes, one file per API family.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { EsError, contentTooLarge, internalError, isEsError, renderError } from '../../../shared/errors/es-errors.ts';
import { filterPath } from './filter-path.ts';
import { traceRequests } from './request-tracing.ts';
import { tracingEnabled } from '../../../shared/telemetry/spans.ts';
import type { Logger } from '../logger.ts';

export interface HttpServerOptions {
  readonly maxContentLength: number;
  readonly logger: Logger;
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

export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: opts.maxContentLength,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 4096 },
    exposeHeadRoutes: true,
    return503OnClosing: true,
  });
  if (tracingEnabled()) traceRequests(app);

  // Elasticsearch accepts any Content-Type that holds JSON, NDJSON or nothing; bodies are parsed per API.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err, _req, reply) => {
    const e = err as { code?: string; statusCode?: number };
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, contentTooLarge(opts.maxContentLength), opts.logger);
    if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return sendError(reply, new EsError('parse_exception', 'request body is required', 400), opts.logger);
    return sendError(reply, err, opts.logger);
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    // Elasticsearch 6.8 answers an unknown endpoint with a plain-text 400.
    reply
      .code(400)
      .type('text/plain; charset=UTF-8')
      .send(`no handler found for uri [${path}] and method [${req.method}]`);
  });

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
