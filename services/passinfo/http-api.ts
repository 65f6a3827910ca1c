/**
 * The HTTP endpoints of the pass-record service (fastify), one per business
 * query; 127.0.0.1 by default. Parameters come from the query string (lists
 * comma-separated or repeated) or, for region collision, a JSON body.
 * Errors answer `{"error": {"code", "message"}}` with the catalogue's status
 * (errors.ts).
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { asPassinfoError, invalidParameter } from './errors.ts';
import type { PassinfoQueries } from './queries.ts';
import type { Region } from './region-collision.ts';
import type { PlateSort } from './plate-search.ts';
import type { TrafficGrouping } from './traffic-counts.ts';
import { registerConsole } from '../node/rest/console-static.ts';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 9280;

type Query = Record<string, string | string[] | undefined>;

function str(q: Query, name: string): string | undefined {
  const v = q[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function list(q: Query, name: string): string[] | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0);
}

function int(q: Query, name: string): number | undefined {
  const s = str(q, name);
  if (s === undefined || s === '') return undefined;
  const n = Number(s);
  if (!Number.isInteger(n)) throw invalidParameter(name, `[${s}] is not an integer`);
  return n;
}

function ints(q: Query, name: string): number[] | undefined {
  return list(q, name)?.map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n)) throw invalidParameter(name, `[${s}] is not an integer`);
    return n;
  });
}

const range = (q: Query) => ({ from: str(q, 'from'), to: str(q, 'to') });

export function buildHttpApi(queries: PassinfoQueries, options: { logger?: boolean; consoleDir?: string } = {}): FastifyInstance {
  const app = Fastify({ logger: options.logger ?? false });
  // The web console's pass-record pages (docs/console.md), built with the node's console; they call the routes below.
  if (options.consoleDir !== undefined) registerConsole(app, options.consoleDir, 'passinfo');
  const get = (path: string, handler: (q: Query, params: Record<string, string>) => Promise<unknown>): void => {
    app.get(path, (req: FastifyRequest, reply: FastifyReply) => answer(reply, () => handler(req.query as Query, req.params as Record<string, string>)));
  };

  app.get('/health', async () => ({ status: 'ok' }));

  get('/plates/search', (q) =>
    queries.plates({ q: str(q, 'q') ?? '', sort: str(q, 'sort') as PlateSort | undefined, size: int(q, 'size'), from_hit: int(q, 'from_hit'), after: str(q, 'after'), ...range(q) }),
  );
  get('/passes/search', (q) =>
    queries.passes({
      q: str(q, 'q') ?? '',
      sort: str(q, 'sort') as PlateSort | undefined,
      size: int(q, 'size'),
      from_hit: int(q, 'from_hit'),
      after: str(q, 'after'),
      ...range(q),
      plate_category: ints(q, 'plate_category'),
      plate_color: ints(q, 'plate_color'),
      vehicle_color: ints(q, 'vehicle_color'),
      land_id: list(q, 'land_id'),
    }),
  );
  get('/plates/:plate/trajectory', (q, p) => queries.trajectory({ plate: p.plate!, ...range(q) }));
  get('/traffic', (q) =>
    queries.traffic({
      by: str(q, 'by') as TrafficGrouping | undefined,
      land_id: list(q, 'land_id'),
      polygon: str(q, 'polygon'),
      circle: str(q, 'circle'),
      precision: int(q, 'precision'),
      ...range(q),
    }),
  );
  get('/plates/:plate/landing-points', (q, p) => queries.landingPoints({ plate: p.plate!, ...range(q) }));
  app.post('/region-collision', (req: FastifyRequest, reply: FastifyReply) =>
    answer(reply, () => {
      const body = (req.body ?? {}) as { regions?: Region[]; size?: number; batch_size?: number };
      if (!Array.isArray(body.regions)) throw invalidParameter('regions', 'must be a list of {land_id | polygon | circle, from, to}');
      return queries.regionCollision({ regions: body.regions, size: body.size, batch_size: body.batch_size });
    }),
  );
  get('/first-entries', (q) => queries.firstEntries({ land_id: list(q, 'land_id'), size: int(q, 'size'), from_hit: int(q, 'from_hit'), ...range(q) }));
  get('/plates/:plate/companions', (q, p) =>
    queries.companions({ plate: p.plate!, tolerance: int(q, 'tolerance'), min_checkpoints: int(q, 'min_checkpoints'), size: int(q, 'size'), ...range(q) }),
  );
  get('/similarity', (q) => queries.similarity({ plate_a: str(q, 'plate_a') ?? '', plate_b: str(q, 'plate_b') ?? '', tolerance: int(q, 'tolerance'), ...range(q) }));
  get('/day-night', (q) =>
    queries.dayNight({
      from: str(q, 'from') ?? '',
      to: str(q, 'to') ?? '',
      night: str(q, 'night'),
      day: str(q, 'day'),
      land_id: list(q, 'land_id'),
      min_night_passes: int(q, 'min_night_passes'),
      size: int(q, 'size'),
    }),
  );
  return app;
}

async function answer(reply: FastifyReply, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    const e = asPassinfoError(err);
    return reply.code(e.status).send({ error: { code: e.code, message: e.message } });
  }
}
