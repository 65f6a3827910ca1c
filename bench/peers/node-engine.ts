/**
 * The node under test: a compiled node in its own process, loaded through
 * `_bulk` into the seed's index (5 shards, no replica), asked with the
 * Elasticsearch DSL an expert would write: filters (no scoring) for exact
 * conditions, the fragment as its one n-gram term (as the pass-record
 * application sends it), `_source: false` where only ids and sort values are
 * read, aggregations at `size: 0`, and region collision and day/night as a
 * terms aggregation over the first window then a filtered one over the second.
 */
import { readFileSync } from 'node:fs';
import { generatePassRecords, PASSINFO_INDEX_BODY } from '../pass-records.ts';
import { nextBulkBody, seedAggregations, type BulkBody } from '../seed-workload.ts';
import { KeepAliveClient } from '../keep-alive-client.ts';
import { spawnServer, type ChildServer } from '../../test/helpers/server.ts';
import type { Answer, TopHit } from './answers.ts';
import { LOAD_CHUNK, type Engine } from './engine.ts';
import type { Query, Region, Window } from './workload.ts';

const INDEX = 'passinfo';
const BATCH = 5000;
const CONCURRENCY = 3;
/** Hits per page of the trajectory (index.max_result_window allows 10,000). */
const PAGE = 10_000;

interface Hit {
  _id: string;
  sort?: unknown[];
}
interface SearchBody {
  hits: { total: number; hits: Hit[] };
  aggregations?: Record<string, Agg>;
}
interface Bucket {
  key: string | number;
  doc_count: number;
  [sub: string]: unknown;
}
interface Agg {
  buckets: Bucket[];
  sum_other_doc_count?: number;
}

export interface NodeMemory {
  /** VmRSS and VmHWM of the node process, MiB. */
  readonly rss: number;
  readonly peak: number;
}

const range = (w: Window) => ({ range: { pass_time: { gte: w.from, lt: w.to } } });
const regionFilter = (r: Region) => [{ terms: { land_id: r.lands } }, range(r)];

export class NodeEngine implements Engine {
  readonly name = 'node';
  private client: KeepAliveClient;
  private readonly landingBody: unknown;

  private constructor(private readonly server: ChildServer) {
    this.client = new KeepAliveClient(server.url);
    this.landingBody = new Map(seedAggregations()).get('landing points of one plate');
  }

  /** `root`: another checkout's compiled build (bench:builds runs two on one data directory); `nodeFlags`: for node itself (`--cpu-prof`). */
  static async start(dataDir: string, root?: string, nodeFlags: readonly string[] = []): Promise<NodeEngine> {
    return new NodeEngine(await spawnServer(dataDir, [], 180_000, true, root, nodeFlags));
  }

  /** The node process's id: bench:builds reads its threads' CPU time from /proc. */
  get pid(): number {
    return this.server.child.pid!;
  }

  memory(): NodeMemory {
    const status = readFileSync(`/proc/${this.server.child.pid!}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  }

  async load(count: number): Promise<number> {
    const body = { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_replicas: 0 } };
    const created = await this.client.request('PUT', `/${INDEX}`, body);
    if (created.status !== 200) throw new Error(`create index: ${created.text}`);
    const gen = generatePassRecords({ count });
    let seconds = 0;
    for (;;) {
      const bodies: BulkBody[] = [];
      for (let n = 0; n < LOAD_CHUNK; n += BATCH) {
        const b = nextBulkBody(gen, BATCH);
        if (b === null) break;
        bodies.push(b);
      }
      if (bodies.length === 0) break;
      const t0 = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < bodies.length) await this.client.bulk(`/${INDEX}/_bulk`, bodies[next++]!.body);
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      seconds += (performance.now() - t0) / 1000;
    }
    // Searchable: the load ends when a refresh has made every record visible.
    const t0 = performance.now();
    await this.client.request('POST', `/${INDEX}/_refresh`);
    seconds += (performance.now() - t0) / 1000;
    const counted = (await this.search({ size: 0, query: { match_all: {} } })).hits.total;
    if (counted !== count) throw new Error(`node: ${counted} records searchable, expected ${count}`);
    // Commit now (untimed) rather than in the middle of the queries: the peers' loads end on disk too.
    const flushed = await this.client.request('POST', `/${INDEX}/_flush`);
    if (flushed.status !== 200) throw new Error(`flush: ${flushed.text}`);
    return seconds;
  }

  async answer(q: Query): Promise<Answer> {
    switch (q.kind) {
      case 'fragment':
      case 'fragment-filtered': {
        const filter: unknown[] = [{ term: { plate: q.fragment.toLowerCase() } }];
        if (q.kind === 'fragment-filtered') filter.push({ term: { plate_category: q.category } }, range(q.window));
        const r = await this.search({ size: 10, _source: false, query: { bool: { filter } }, sort: [{ pass_time: 'desc' }] });
        return { kind: 'top', total: r.hits.total, hits: r.hits.hits.map((h): TopHit => ({ id: h._id, key: Number(h.sort![0]) })) };
      }
      case 'trajectory': {
        const ids: string[] = [];
        let total: number;
        let after: unknown[] | undefined;
        for (;;) {
          const r = await this.search({
            size: PAGE,
            _source: ['land_id', 'speed'],
            query: { bool: { filter: { term: { 'plate.keyword': q.plate } } } },
            sort: [{ pass_time: 'asc' }, { event_id: 'asc' }],
            ...(after ? { search_after: after } : {}),
          });
          total = r.hits.total;
          for (const h of r.hits.hits) ids.push(h._id);
          if (r.hits.hits.length < PAGE) break;
          after = r.hits.hits[r.hits.hits.length - 1]!.sort;
        }
        return { kind: 'list', total, ids };
      }
      case 'per-land': {
        const r = await this.search({ size: 0, aggs: { lands: { terms: { field: 'land_id', size: 200 } } } });
        return { kind: 'rows', rows: rowsOf(aggOf(r, 'lands')) };
      }
      case 'per-day': {
        const r = await this.search({ size: 0, aggs: { days: { date_histogram: { field: 'pass_time', interval: 'day' } } } });
        return { kind: 'rows', rows: rowsOf(aggOf(r, 'days')) };
      }
      case 'per-land-day': {
        const r = await this.search({
          size: 0,
          aggs: { lands: { terms: { field: 'land_id', size: 200 }, aggs: { days: { date_histogram: { field: 'pass_time', interval: 'day' } } } } },
        });
        const rows: [string, number][] = [];
        for (const land of aggOf(r, 'lands').buckets) {
          for (const day of (land.days as Agg).buckets) if (day.doc_count > 0) rows.push([`${land.key}|${day.key}`, day.doc_count]);
        }
        return { kind: 'rows', rows };
      }
      case 'landing-points': {
        const body = this.landingBody as { query: { term: Record<string, string> } };
        if (body.query.term['plate.keyword'] !== q.plate) throw new Error('landing points: the seed query asks another plate');
        return { kind: 'rows', rows: rowsOf(aggOf(await this.search(body), 'lands')) };
      }
      case 'collision': {
        const [first, second] = q.regions;
        const plates = await this.platesIn(regionFilter(first));
        if (plates.length === 0) return { kind: 'count', count: 0 };
        const both = await this.platesIn([...regionFilter(second), { terms: { 'plate.keyword': plates } }], plates.length);
        return { kind: 'count', count: both.length };
      }
      case 'day-night': {
        const night = await this.platesIn([range(q.night)]);
        if (night.length === 0) return { kind: 'count', count: 0 };
        const seenByDay = await this.platesIn([range(q.day), { terms: { 'plate.keyword': night } }], night.length);
        return { kind: 'count', count: night.length - seenByDay.length };
      }
    }
  }

  /** The distinct plates of the passes matching `filter` (a terms aggregation on plate.keyword). */
  private async platesIn(filter: unknown[], size = 65_536): Promise<string[]> {
    const r = await this.search({ size: 0, query: { bool: { filter } }, aggs: { plates: { terms: { field: 'plate.keyword', size } } } });
    return aggOf(r, 'plates').buckets.map((b) => String(b.key));
  }

  private async search(body: unknown): Promise<SearchBody> {
    const r = await this.client.request('POST', `/${INDEX}/_search`, body);
    if (r.status !== 200) throw new Error(`node: search answered ${r.status}: ${r.text.slice(0, 500)}`);
    return r.body as SearchBody;
  }

  async close(): Promise<void> {
    this.client.close();
    this.server.child.kill('SIGTERM');
    await this.server.exited;
  }
}

function aggOf(r: SearchBody, name: string): Agg {
  const agg = r.aggregations?.[name];
  if (agg === undefined) throw new Error(`node: no aggregation ${name} in the answer`);
  // A terms aggregation that left groups out would compare as a wrong answer; say why instead.
  if ((agg.sum_other_doc_count ?? 0) > 0) throw new Error(`node: aggregation ${name} left ${agg.sum_other_doc_count} passes in other groups`);
  return agg;
}

const rowsOf = (agg: Agg): [string, number][] => agg.buckets.filter((b) => b.doc_count > 0).map((b) => [String(b.key), b.doc_count]);
