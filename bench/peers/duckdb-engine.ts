/**
 * DuckDB (@duckdb/node-api, in process) the way a good engineer would load
 * pass records: one `read_json` of the NDJSON the generator writes (the file
 * is written outside the clock), times as TIMESTAMP, the table stored in
 * pass-time order so that its zone maps skip row groups outside a time
 * window. DuckDB has no text index without its FTS extension (a download,
 * and word-based), so fragments are `contains()` scans of the plate column.
 * Statements are prepared once and bound per call.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBValue } from '@duckdb/node-api';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { generatePassRecords } from '../pass-records.ts';
import type { Answer, TopHit } from './answers.ts';
import type { Engine } from './engine.ts';
import type { Query, Region, Window } from './workload.ts';

const quoted = (lands: readonly string[]) => lands.map((l) => `'${l.replace(/'/g, "''")}'`).join(',');
const ts = (w: Window) => [w.from, w.to];

export class DuckdbEngine implements Engine {
  readonly name = 'duckdb';
  private readonly statements = new Map<string, DuckDBPreparedStatement>();

  private constructor(
    private readonly dir: string,
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
  ) {}

  static async open(dir: string): Promise<DuckdbEngine> {
    const instance = await DuckDBInstance.create(join(dir, 'passes.duckdb'));
    return new DuckdbEngine(dir, instance, await instance.connect());
  }

  async load(count: number): Promise<number> {
    const file = join(this.dir, 'passes.ndjson');
    const out = createWriteStream(file);
    let lines: string[] = [];
    for (const r of generatePassRecords({ count })) {
      lines.push(JSON.stringify(r));
      if (lines.length === 10_000) {
        if (!out.write(lines.join('\n') + '\n')) await once(out, 'drain');
        lines = [];
      }
    }
    if (lines.length > 0) out.write(lines.join('\n') + '\n');
    out.end();
    await once(out, 'finish');
    const t0 = performance.now();
    await this.conn.run(`CREATE TABLE passes AS
      SELECT event_id, event_type, land_id, land_picture, strptime(pass_time, '%Y-%m-%d %H:%M:%S') AS pass_time, plate, plate_category,
             plate_color, plate_picture, speed, vehicle_category, vehicle_color, vehicle_length
      FROM read_json('${file}', format = 'newline_delimited', columns = {
        event_id: 'VARCHAR', event_type: 'INTEGER', land_id: 'VARCHAR', land_picture: 'VARCHAR', pass_time: 'VARCHAR', plate: 'VARCHAR',
        plate_category: 'INTEGER', plate_color: 'INTEGER', plate_picture: 'VARCHAR', speed: 'INTEGER', vehicle_category: 'INTEGER',
        vehicle_color: 'INTEGER', vehicle_length: 'INTEGER'})
      ORDER BY pass_time`);
    await this.conn.run('CHECKPOINT');
    const seconds = (performance.now() - t0) / 1000;
    await rm(file, { force: true });
    return seconds;
  }

  async answer(q: Query): Promise<Answer> {
    switch (q.kind) {
      case 'fragment':
      case 'fragment-filtered': {
        let cond = 'contains(plate, $1)';
        const params: DuckDBValue[] = [q.fragment];
        if (q.kind === 'fragment-filtered') {
          cond += ' AND plate_category = $2 AND pass_time >= $3::TIMESTAMP AND pass_time < $4::TIMESTAMP';
          params.push(q.category, q.window.from, q.window.to);
        }
        const total = (await this.all(`SELECT count(*)::INTEGER AS n FROM passes WHERE ${cond}`, params))[0]!.n as number;
        const top = await this.all(`SELECT event_id, epoch_ms(pass_time)::DOUBLE AS t FROM passes WHERE ${cond} ORDER BY pass_time DESC LIMIT 10`, params);
        return { kind: 'top', total, hits: top.map((r): TopHit => ({ id: r.event_id as string, key: r.t as number })) };
      }
      case 'trajectory': {
        const rows = await this.all('SELECT event_id, land_id, speed, pass_time FROM passes WHERE plate = $1 ORDER BY pass_time, event_id', [q.plate]);
        return { kind: 'list', total: rows.length, ids: rows.map((r) => r.event_id as string) };
      }
      case 'per-land':
        return this.rows('SELECT land_id AS k, count(*)::INTEGER AS n FROM passes GROUP BY land_id');
      case 'per-day':
        return this.rows("SELECT epoch_ms(date_trunc('day', pass_time))::VARCHAR AS k, count(*)::INTEGER AS n FROM passes GROUP BY 1");
      case 'per-land-day':
        return this.rows(
          "SELECT land_id || '|' || epoch_ms(date_trunc('day', pass_time))::VARCHAR AS k, count(*)::INTEGER AS n FROM passes GROUP BY land_id, date_trunc('day', pass_time)",
        );
      case 'landing-points':
        return this.rows('SELECT land_id AS k, count(*)::INTEGER AS n FROM passes WHERE plate = $1 GROUP BY land_id ORDER BY n DESC, land_id', [q.plate]);
      case 'collision': {
        const [a, b] = q.regions;
        const rows = await this.all(`SELECT count(*)::INTEGER AS n FROM (${regionPlates(a, 1)} INTERSECT ${regionPlates(b, 3)})`, [...ts(a), ...ts(b)]);
        return { kind: 'count', count: rows[0]!.n as number };
      }
      case 'day-night': {
        const window = (p: number) => `SELECT plate FROM passes WHERE pass_time >= $${p}::TIMESTAMP AND pass_time < $${p + 1}::TIMESTAMP`;
        const rows = await this.all(`SELECT count(*)::INTEGER AS n FROM (${window(1)} EXCEPT ${window(3)})`, [...ts(q.night), ...ts(q.day)]);
        return { kind: 'count', count: rows[0]!.n as number };
      }
    }
  }

  private async all(sql: string, params: DuckDBValue[] = []): Promise<Record<string, unknown>[]> {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = await this.conn.prepare(sql);
      this.statements.set(sql, s);
    }
    if (params.length > 0) s.bind(params);
    return (await s.runAndReadAll()).getRowObjectsJS();
  }

  private async rows(sql: string, params: DuckDBValue[] = []): Promise<Answer> {
    const rows = await this.all(sql, params);
    return { kind: 'rows', rows: rows.map((r) => [String(r.k), r.n as number]) };
  }

  async close(): Promise<void> {
    for (const s of this.statements.values()) s.destroySync();
    this.conn.closeSync();
    this.instance.closeSync();
  }
}

function regionPlates(r: Region, p: number): string {
  return `SELECT plate FROM passes WHERE land_id IN (${quoted(r.lands)}) AND pass_time >= $${p}::TIMESTAMP AND pass_time < $${p + 1}::TIMESTAMP`;
}
