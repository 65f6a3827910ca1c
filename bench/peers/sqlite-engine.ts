/**
 * SQLite (better-sqlite3, in process) the way a good engineer would set it
 * up for pass records: WAL, a large page cache and memory-mapped reads; the
 * passes in a rowid table with times as epoch seconds; a trigram FTS5 index
 * over the distinct plates (100,000 at 1M passes, not one entry per pass)
 * joined to the passes through a covering index on (plate, pass_time,
 * land_id); covering indexes on (land_id, pass_time, plate) for checkpoint
 * and region queries and (pass_time, plate) for time windows. Indexes are
 * built after the bulk insert, and their time counts in the load.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { generatePassRecords, type PassRecord } from '../pass-records.ts';
import type { Answer, TopHit } from './answers.ts';
import { LOAD_CHUNK, type Engine } from './engine.ts';
import { passTimeMs, type Query, type Region, type Window } from './workload.ts';

const sec = (s: string) => passTimeMs(s) / 1000;
const quoted = (lands: readonly string[]) => lands.map((l) => `'${l.replace(/'/g, "''")}'`).join(',');

export class SqliteEngine implements Engine {
  readonly name = 'sqlite';
  private readonly db: Database.Database;

  constructor(dir: string) {
    this.db = new Database(join(dir, 'passes.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -524288'); // 512 MiB
    this.db.pragma('mmap_size = 4294967296');
    this.db.pragma('temp_store = MEMORY');
  }

  async load(count: number): Promise<number> {
    const db = this.db;
    db.exec(`CREATE TABLE passes (
      id INTEGER PRIMARY KEY, event_id TEXT NOT NULL, event_type INTEGER, land_id TEXT NOT NULL, land_picture TEXT,
      pass_time INTEGER NOT NULL, plate TEXT NOT NULL, plate_category INTEGER, plate_color INTEGER, plate_picture TEXT,
      speed INTEGER, vehicle_category INTEGER, vehicle_color INTEGER, vehicle_length INTEGER)`);
    const insert = db.prepare(`INSERT INTO passes (event_id, event_type, land_id, land_picture, pass_time, plate, plate_category, plate_color,
      plate_picture, speed, vehicle_category, vehicle_color, vehicle_length) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`);
    const insertAll = db.transaction((rows: PassRecord[]) => {
      for (const r of rows) {
        insert.run(r.event_id, r.event_type, r.land_id, r.land_picture, sec(r.pass_time), r.plate, r.plate_category, r.plate_color, r.plate_picture,
          r.speed, r.vehicle_category, r.vehicle_color, r.vehicle_length);
      }
    });
    const gen = generatePassRecords({ count });
    let seconds = 0;
    for (;;) {
      const rows: PassRecord[] = [];
      for (let n = gen.next(); !n.done; n = gen.next()) {
        rows.push(n.value);
        if (rows.length === LOAD_CHUNK) break;
      }
      if (rows.length === 0) break;
      const t0 = performance.now();
      insertAll(rows);
      seconds += (performance.now() - t0) / 1000;
    }
    const t0 = performance.now();
    db.exec(`
      CREATE INDEX passes_plate ON passes (plate, pass_time, land_id);
      CREATE INDEX passes_land ON passes (land_id, pass_time, plate);
      CREATE INDEX passes_time ON passes (pass_time, plate);
      CREATE VIRTUAL TABLE plates USING fts5(plate, tokenize = 'trigram');
      INSERT INTO plates (plate) SELECT DISTINCT plate FROM passes;
      ANALYZE;
      PRAGMA wal_checkpoint(TRUNCATE);`);
    seconds += (performance.now() - t0) / 1000;
    return seconds;
  }

  async answer(q: Query): Promise<Answer> {
    switch (q.kind) {
      case 'fragment':
      case 'fragment-filtered': {
        const where = [`plate IN (${platesMatching(q.fragment)})`];
        const params: (string | number)[] = [q.fragment.length >= 3 ? `"${q.fragment.replace(/"/g, '""')}"` : `%${q.fragment}%`];
        if (q.kind === 'fragment-filtered') {
          where.push('plate_category = ?', 'pass_time >= ?', 'pass_time < ?');
          params.push(q.category, sec(q.window.from), sec(q.window.to));
        }
        const cond = where.join(' AND ');
        const total = (this.stmt(`SELECT count(*) AS n FROM passes WHERE ${cond}`).get(...params) as { n: number }).n;
        // Sort and cut on the index's columns, then read event_id for the ten kept rows only.
        const top = this.stmt(
          `SELECT event_id, pass_time FROM passes WHERE id IN (SELECT id FROM passes WHERE ${cond} ORDER BY pass_time DESC LIMIT 10) ORDER BY pass_time DESC`,
        ).all(...params) as { event_id: string; pass_time: number }[];
        return { kind: 'top', total, hits: top.map((r): TopHit => ({ id: r.event_id, key: r.pass_time * 1000 })) };
      }
      case 'trajectory': {
        const rows = this.stmt('SELECT event_id, land_id, speed, pass_time FROM passes WHERE plate = ? ORDER BY pass_time, event_id').all(q.plate) as {
          event_id: string;
        }[];
        return { kind: 'list', total: rows.length, ids: rows.map((r) => r.event_id) };
      }
      case 'per-land':
        return this.rows('SELECT land_id AS k, count(*) AS n FROM passes GROUP BY land_id');
      case 'per-day':
        return this.rows('SELECT (pass_time / 86400) * 86400000 AS k, count(*) AS n FROM passes GROUP BY pass_time / 86400');
      case 'per-land-day':
        return this.rows("SELECT land_id || '|' || ((pass_time / 86400) * 86400000) AS k, count(*) AS n FROM passes GROUP BY land_id, pass_time / 86400");
      case 'landing-points':
        return this.rows('SELECT land_id AS k, count(*) AS n FROM passes WHERE plate = ? GROUP BY land_id ORDER BY n DESC, land_id', q.plate);
      case 'collision': {
        const [a, b] = q.regions;
        const n = this.stmt(`SELECT count(*) AS n FROM (${regionPlates(a)} INTERSECT ${regionPlates(b)})`).get(...windowParams(a), ...windowParams(b)) as {
          n: number;
        };
        return { kind: 'count', count: n.n };
      }
      case 'day-night': {
        const window = 'SELECT plate FROM passes WHERE pass_time >= ? AND pass_time < ?';
        const n = this.stmt(`SELECT count(*) AS n FROM (${window} EXCEPT ${window})`).get(...windowParams(q.night), ...windowParams(q.day)) as { n: number };
        return { kind: 'count', count: n.n };
      }
    }
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared once per text, as an application keeps its statements. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private rows(sql: string, ...params: string[]): Answer {
    const rows = this.stmt(sql).all(...params) as { k: string | number; n: number }[];
    return { kind: 'rows', rows: rows.map((r) => [String(r.k), r.n]) };
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** The plates containing the fragment: the trigram index for 3 characters and more, a scan of the distinct plates below. */
function platesMatching(fragment: string): string {
  return fragment.length >= 3 ? 'SELECT plate FROM plates WHERE plates MATCH ?' : 'SELECT plate FROM plates WHERE plate LIKE ?';
}

function regionPlates(r: Region): string {
  return `SELECT plate FROM passes WHERE land_id IN (${quoted(r.lands)}) AND pass_time >= ? AND pass_time < ?`;
}

const windowParams = (w: Window) => [sec(w.from), sec(w.to)];
