/**
 * PostgreSQL with pg_trgm (optional: `--pg postgres://user:pass@127.0.0.1/db`,
 * a server the user runs; the bench works in its own schema, `bench_peers`,
 * which it drops first and at the end unless `--keep`), asked over TCP with `pg` as an application would. Set up the way a
 * good engineer would: rows inserted 10,000 at a time through `unnest`
 * arrays, then a GIN trigram index over the distinct plates, covering B-tree
 * indexes on (plate, pass_time, land_id), (land_id, pass_time, plate) and
 * (pass_time, plate), VACUUM ANALYZE; `work_mem` 256 MB and JIT off for the
 * session (JIT compiles for queries this short cost more than they save).
 */
import pg from 'pg';
import { generatePassRecords, type PassRecord } from '../pass-records.ts';
import type { Answer, TopHit } from './answers.ts';
import { LOAD_CHUNK, type Engine } from './engine.ts';
import type { Query, Region, Window } from './workload.ts';

const SCHEMA = 'bench_peers';
const ROWS_PER_INSERT = 10_000;
const quoted = (lands: readonly string[]) => lands.map((l) => `'${l.replace(/'/g, "''")}'`).join(',');
const ts = (w: Window) => [w.from, w.to];
/** LIKE's own characters in a fragment stand for themselves. */
const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class PostgresEngine implements Engine {
  readonly name = 'postgres';

  private constructor(
    private readonly client: pg.Client,
    private readonly keep: boolean,
  ) {}

  /** `keep`: leave the schema in place at the end (for a look at the plans), else drop it. */
  static async connect(url: string, keep: boolean): Promise<PostgresEngine> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`SET work_mem = '256MB'; SET jit = off`);
    return new PostgresEngine(client, keep);
  }

  async load(count: number): Promise<number> {
    const c = this.client;
    await c.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}; SET search_path = ${SCHEMA}, public;
      CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
      CREATE TABLE passes (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, event_id text NOT NULL, event_type int, land_id text NOT NULL, land_picture text,
        pass_time timestamp NOT NULL, plate text NOT NULL, plate_category int, plate_color int, plate_picture text, speed int,
        vehicle_category int, vehicle_color int, vehicle_length int)`);
    const insert = `INSERT INTO passes (event_id, event_type, land_id, land_picture, pass_time, plate, plate_category, plate_color, plate_picture,
        speed, vehicle_category, vehicle_color, vehicle_length)
      SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::timestamp[], $6::text[], $7::int[], $8::int[], $9::text[],
        $10::int[], $11::int[], $12::int[], $13::int[])`;
    const fields: (keyof PassRecord)[] = ['event_id', 'event_type', 'land_id', 'land_picture', 'pass_time', 'plate', 'plate_category', 'plate_color',
      'plate_picture', 'speed', 'vehicle_category', 'vehicle_color', 'vehicle_length'];
    const gen = generatePassRecords({ count });
    let seconds = 0;
    for (;;) {
      const columns: unknown[][][] = [];
      let rows = 0;
      while (rows < LOAD_CHUNK) {
        const batch: unknown[][] = fields.map(() => []);
        for (let n = gen.next(); !n.done; n = gen.next()) {
          for (let f = 0; f < fields.length; f++) batch[f]!.push(n.value[fields[f]!]);
          if (batch[0]!.length === ROWS_PER_INSERT) break;
        }
        if (batch[0]!.length === 0) break;
        rows += batch[0]!.length;
        columns.push(batch);
      }
      if (columns.length === 0) break;
      const t0 = performance.now();
      await c.query('BEGIN');
      for (const batch of columns) await c.query(insert, batch);
      await c.query('COMMIT');
      seconds += (performance.now() - t0) / 1000;
    }
    const t0 = performance.now();
    await c.query(`
      CREATE INDEX passes_plate ON passes (plate, pass_time, land_id);
      CREATE INDEX passes_land ON passes (land_id, pass_time, plate);
      CREATE INDEX passes_time ON passes (pass_time, plate);
      CREATE TABLE plates AS SELECT DISTINCT plate FROM passes;
      CREATE INDEX plates_trgm ON plates USING gin (plate public.gin_trgm_ops)`);
    await c.query('VACUUM ANALYZE passes');
    await c.query('VACUUM ANALYZE plates');
    seconds += (performance.now() - t0) / 1000;
    return seconds;
  }

  async answer(q: Query): Promise<Answer> {
    switch (q.kind) {
      case 'fragment':
      case 'fragment-filtered': {
        let cond = 'plate IN (SELECT plate FROM plates WHERE plate LIKE $1)';
        const params: unknown[] = [`%${likeEscaped(q.fragment)}%`];
        if (q.kind === 'fragment-filtered') {
          cond += ' AND plate_category = $2 AND pass_time >= $3 AND pass_time < $4';
          params.push(q.category, q.window.from, q.window.to);
        }
        const total = (await this.rowsOf(`SELECT count(*)::int AS n FROM passes WHERE ${cond}`, params))[0]!.n as number;
        const top = await this.rowsOf(
          `SELECT event_id, (extract(epoch FROM pass_time) * 1000)::float8 AS t FROM passes WHERE ${cond} ORDER BY pass_time DESC LIMIT 10`,
          params,
        );
        return { kind: 'top', total, hits: top.map((r): TopHit => ({ id: r.event_id as string, key: r.t as number })) };
      }
      case 'trajectory': {
        // COLLATE "C": byte order, as Elasticsearch sorts keywords and the other engines sort text.
        const rows = await this.rowsOf('SELECT event_id, land_id, speed, pass_time FROM passes WHERE plate = $1 ORDER BY pass_time, event_id COLLATE "C"', [q.plate]);
        return { kind: 'list', total: rows.length, ids: rows.map((r) => r.event_id as string) };
      }
      case 'per-land':
        return this.groups('SELECT land_id AS k, count(*)::int AS n FROM passes GROUP BY land_id');
      case 'per-day':
        return this.groups("SELECT (extract(epoch FROM date_trunc('day', pass_time)) * 1000)::bigint::text AS k, count(*)::int AS n FROM passes GROUP BY 1");
      case 'per-land-day':
        return this.groups(
          "SELECT land_id || '|' || (extract(epoch FROM date_trunc('day', pass_time)) * 1000)::bigint::text AS k, count(*)::int AS n FROM passes GROUP BY land_id, date_trunc('day', pass_time)",
        );
      case 'landing-points':
        return this.groups('SELECT land_id AS k, count(*)::int AS n FROM passes WHERE plate = $1 GROUP BY land_id ORDER BY n DESC, land_id', [q.plate]);
      case 'collision': {
        const [a, b] = q.regions;
        const rows = await this.rowsOf(`SELECT count(*)::int AS n FROM (${regionPlates(a, 1)} INTERSECT ${regionPlates(b, 3)}) AS both_regions`, [...ts(a), ...ts(b)]);
        return { kind: 'count', count: rows[0]!.n as number };
      }
      case 'day-night': {
        const window = (p: number) => `SELECT plate FROM passes WHERE pass_time >= $${p} AND pass_time < $${p + 1}`;
        const rows = await this.rowsOf(`SELECT count(*)::int AS n FROM (${window(1)} EXCEPT ${window(3)}) AS night_only`, [...ts(q.night), ...ts(q.day)]);
        return { kind: 'count', count: rows[0]!.n as number };
      }
    }
  }

  /** Named statements: parsed and planned once per connection, as a pooled application's are. */
  private async rowsOf(text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `q${this.names.size}`;
      this.names.set(text, name);
    }
    return (await this.client.query({ name, text, values })).rows as Record<string, unknown>[];
  }

  private readonly names = new Map<string, string>();

  private async groups(text: string, values: unknown[] = []): Promise<Answer> {
    const rows = await this.rowsOf(text, values);
    return { kind: 'rows', rows: rows.map((r) => [String(r.k), r.n as number]) };
  }

  async close(): Promise<void> {
    if (!this.keep) await this.client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await this.client.end();
  }
}

function regionPlates(r: Region, p: number): string {
  return `SELECT plate FROM passes WHERE land_id IN (${quoted(r.lands)}) AND pass_time >= $${p} AND pass_time < $${p + 1}`;
}
