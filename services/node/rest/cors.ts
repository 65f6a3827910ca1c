/**
 * Elasticsearch's `http.cors.*` settings (Netty4CorsHandler): off by default.
 * When on, a preflight (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) is answered here, a request from an origin
 * that is not allowed is refused with an empty 403, and allowed ones get the
 * `Access-Control-Allow-*` headers on their response.
 */
import { LinearRegex } from '../../../shared/engine/regex/linear-regex.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CorsSettings {
  readonly enabled: boolean;
  /** `*`, a comma-separated list of origins, or `/regex/`; empty allows none. */
  readonly allowOrigin: string;
  readonly maxAgeSeconds: number;
  readonly allowMethods: string;
  readonly allowHeaders: string;
  readonly allowCredentials: boolean;
}

/** Elasticsearch 6.8's defaults. */
export const CORS_DEFAULTS: Readonly<Record<string, string>> = {
  'http.cors.enabled': 'false',
  'http.cors.allow-origin': '',
  'http.cors.max-age': '1728000',
  'http.cors.allow-methods': 'OPTIONS,HEAD,GET,POST,PUT,DELETE',
  'http.cors.allow-headers': 'X-Requested-With,Content-Type,Content-Length',
  'http.cors.allow-credentials': 'false',
};

function tokens(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export class CorsPolicy {
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;
  /**
   * From the node's configuration, matched against the whole Origin header
   * (Netty4CorsConfig's Pattern.matches) on the linear-time engine: the
   * header is the client's, and a backtracking pattern would let it stall the node.
   */
  private readonly pattern: LinearRegex | null;

  constructor(private readonly s: CorsSettings) {
    const o = s.allowOrigin.trim();
    this.anyOrigin = o === '*';
    if (o.length > 1 && o.startsWith('/') && o.endsWith('/')) {
      try {
        this.pattern = new LinearRegex(o.slice(1, -1), 0);
      } catch {
        throw new Error(`Bad regex in [http.cors.allow-origin]: [${o}]`);
      }
      this.origins = new Set();
    } else {
      this.pattern = null;
      this.origins = new Set(this.anyOrigin ? [] : tokens(o));
    }
  }

  get enabled(): boolean {
    return this.s.enabled;
  }

  private originAllowed(origin: string): boolean {
    if (this.pattern !== null) return this.pattern.matches(origin);
    return this.origins.has(origin);
  }

  /** Sets Access-Control-Allow-Origin (and Vary); false when the origin is not allowed. */
  private setOrigin(origin: string | undefined, reply: FastifyReply): boolean {
    if (origin === undefined || origin === '') return false;
    if (this.anyOrigin && !this.s.allowCredentials) {
      reply.header('access-control-allow-origin', '*');
      return true;
    }
    if (this.anyOrigin || this.originAllowed(origin)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      return true;
    }
    return false;
  }

  /**
   * Answers what CORS answers itself (a preflight, a forbidden origin) and
   * returns true; otherwise adds the response headers and returns false.
   */
  handle(req: FastifyRequest, reply: FastifyReply): boolean {
    if (!this.s.enabled) return false;
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    if (preflight) {
      if (!this.setOrigin(origin, reply)) {
        reply.code(403).send();
        return true;
      }
      reply.header('access-control-allow-methods', tokens(this.s.allowMethods).join(','));
      reply.header('access-control-allow-headers', tokens(this.s.allowHeaders).join(','));
      if (this.s.allowCredentials) reply.header('access-control-allow-credentials', 'true');
      reply.header('access-control-max-age', String(this.s.maxAgeSeconds));
      reply.code(200).send();
      return true;
    }
    if (origin === undefined || origin === '') return false;
    if (!this.anyOrigin && !this.sameOrigin(origin, req.headers.host) && !this.originAllowed(origin)) {
      reply.code(403).send();
      return true;
    }
    if (this.setOrigin(origin, reply) && this.s.allowCredentials) reply.header('access-control-allow-credentials', 'true');
    return false;
  }

  /** A page served by the node itself (its origin is the request's Host) is not cross-site. */
  private sameOrigin(origin: string, host: string | undefined): boolean {
    if (host === undefined) return false;
    const at = origin.indexOf('://');
    return at >= 0 && origin.slice(at + 3) === host;
  }
}
