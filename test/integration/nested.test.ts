/**
 * `nested` fields as a user sees them: each value of a nested object matches
 * on its own (the nested query), hits and counts are documents (never their
 * nested objects), the nested and reverse_nested aggregations count what the
 * records hold, inner hits show the matching objects, and deletes, updates,
 * by-query, scroll and merges keep a document and its nested objects together.
 * Expectations are computed from the generated records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

interface Pass {
  camera: string;
  speed: number;
}
interface Vehicle {
  plate: string;
  color: string;
  passes: Pass[];
  owners: { name: string; city: string }[];
}

const CAMERAS = ['north', 'south', 'east', 'west'];
const COLORS = ['red', 'blue', 'white'];
const CITIES = ['oslo', 'lima', 'kyiv'];
const NAMES = ['ana', 'bo', 'cy'];

/** Deterministic vehicles: 0..4 passes each (some none), 1..2 owners. */
function vehicles(n: number): Vehicle[] {
  let seed = 7;
  const rnd = (k: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 16) % k;
  };
  const out: Vehicle[] = [];
  for (let i = 0; i < n; i++) {
    const passes: Pass[] = [];
    for (let p = rnd(5); p > 0; p--) passes.push({ camera: CAMERAS[rnd(4)]!, speed: 30 + rnd(90) });
    const owners = [{ name: NAMES[rnd(3)]!, city: CITIES[rnd(3)]! }];
    if (rnd(2) === 0) owners.push({ name: NAMES[rnd(3)]!, city: CITIES[rnd(3)]! });
    out.push({ plate: `P${String(i).padStart(4, '0')}`, color: COLORS[rnd(3)]!, passes, owners });
  }
  return out;
}

const MAPPING = {
  settings: { number_of_shards: 3 },
  mappings: {
    _doc: {
      properties: {
        plate: { type: 'keyword' },
        color: { type: 'keyword' },
        passes: { type: 'nested', properties: { camera: { type: 'keyword' }, speed: { type: 'integer' } } },
        owners: { type: 'nested', include_in_parent: true, properties: { name: { type: 'keyword' }, city: { type: 'keyword' } } },
      },
    },
  },
};

let server: TestServer;
let records = vehicles(300);
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

interface Hit {
  _id: string;
  _score: number;
  _source: Vehicle;
  inner_hits?: Record<string, { hits: { total: number; max_score: number | null; hits: { _id: string; _score: number; _nested: { field: string; offset: number }; _source?: Pass }[] } }>;
}
type SearchBody = { hits: { total: number; hits: Hit[] }; aggregations?: Record<string, unknown>; _scroll_id?: string };

async function search(body: unknown, path = '/vehicles/_search'): Promise<SearchBody> {
  const r = await req('POST', path, body);
  assert.equal(r.status, 200, r.text);
  return r.body as SearchBody;
}

async function bulkIndex(index: string, recs: readonly Vehicle[]): Promise<void> {
  const lines: string[] = [];
  for (const r of recs) lines.push(JSON.stringify({ index: { _type: '_doc', _id: r.plate } }), JSON.stringify(r));
  const bulk = await http(server.url, 'POST', `/${index}/_bulk?refresh=true`, lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal(bulk.status, 200, bulk.text);
  assert.equal((bulk.body as { errors: boolean }).errors, false, bulk.text);
}

/** Vehicles with one pass that is at `camera` and faster than `speed`. */
const fastAt = (recs: readonly Vehicle[], camera: string, speed: number) => recs.filter((v) => v.passes.some((p) => p.camera === camera && p.speed > speed));
const fastAtQuery = (camera: string, speed: number, extra: Record<string, unknown> = {}) => ({
  nested: { path: 'passes', query: { bool: { filter: [{ term: { 'passes.camera': camera } }, { range: { 'passes.speed': { gt: speed } } }] } }, ...extra },
});

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/vehicles', MAPPING)).status, 200);
  await bulkIndex('vehicles', records);
});
after(async () => {
  await server.stop();
});

describe('nested documents', () => {
  test('hits and counts are documents: match_all, _count and hits.total never count nested objects (index stats do, as in Elasticsearch)', async () => {
    const body = await search({ query: { match_all: {} }, size: 0 });
    assert.equal(body.hits.total, records.length);
    const count = await req('GET', '/vehicles/_count');
    assert.equal((count.body as { count: number }).count, records.length);
    // Index statistics count Lucene documents, nested objects included, as Elasticsearch's do.
    const stats = await req('GET', '/vehicles/_stats/docs');
    const nestedObjects = records.reduce((n, v) => n + v.passes.length + v.owners.length, 0);
    assert.equal((stats.body as { _all: { primaries: { docs: { count: number } } } })._all.primaries.docs.count, records.length + nestedObjects);
  });

  test('the nested query matches camera and speed of the same pass; a plain query does not see nested fields', async () => {
    const expected = fastAt(records, 'north', 100).map((v) => v.plate).sort();
    assert.ok(expected.length > 5 && expected.length < records.length / 2);
    const body = await search({ query: fastAtQuery('north', 100), size: 300 });
    assert.equal(body.hits.total, expected.length);
    assert.deepEqual(body.hits.hits.map((h) => h._id).sort(), expected);
    // Vehicles with a north pass and some fast pass elsewhere are not matched by the nested query.
    const loose = records.filter((v) => v.passes.some((p) => p.camera === 'north') && v.passes.some((p) => p.speed > 100));
    assert.ok(loose.length > expected.length, 'the data has passes that match only across objects');
    const flat = await search({ query: { term: { 'passes.camera': 'north' } }, size: 0 });
    assert.equal(flat.hits.total, 0, 'fields of nested objects are not in the root document');
  });

  test('include_in_parent also copies the nested fields into the document (cross-object matches, as in Elasticsearch)', async () => {
    const expected = records.filter((v) => v.owners.some((o) => o.name === 'ana') && v.owners.some((o) => o.city === 'lima'));
    const body = await search({ query: { bool: { filter: [{ term: { 'owners.name': 'ana' } }, { term: { 'owners.city': 'lima' } }] } }, size: 0 });
    assert.equal(body.hits.total, expected.length);
    const same = records.filter((v) => v.owners.some((o) => o.name === 'ana' && o.city === 'lima'));
    const nested = await search({ query: { nested: { path: 'owners', query: { bool: { filter: [{ term: { 'owners.name': 'ana' } }, { term: { 'owners.city': 'lima' } }] } } } }, size: 0 });
    assert.equal(nested.hits.total, same.length);
    assert.ok(same.length < expected.length);
  });

  test('score_mode: sum counts the matching passes, max and avg give the best and mean, none gives 0', async () => {
    const inner = { constant_score: { filter: { term: { 'passes.camera': 'east' } }, boost: 2 } };
    const east = records.filter((v) => v.passes.some((p) => p.camera === 'east'));
    assert.ok(east.length > 10);
    const byMode = async (mode: string) => {
      const body = await search({ query: { nested: { path: 'passes', score_mode: mode, query: inner } }, size: 300 });
      assert.equal(body.hits.total, east.length);
      return new Map(body.hits.hits.map((h) => [h._id, h._score]));
    };
    const sum = await byMode('sum');
    for (const v of east) assert.equal(sum.get(v.plate), 2 * v.passes.filter((p) => p.camera === 'east').length, v.plate);
    for (const mode of ['max', 'avg', 'min']) for (const s of (await byMode(mode)).values()) assert.equal(s, 2, mode);
    for (const s of (await byMode('none')).values()) assert.equal(s, 0);
    // Ordered by score: the vehicle with most east passes first.
    const top = await search({ query: { nested: { path: 'passes', score_mode: 'sum', query: inner } }, size: 1 });
    assert.equal(top.hits.hits[0]!._score, Math.max(...[...sum.values()]));
  });

  test('inner_hits show each hit\'s matching passes with their offsets and sources, best first', async () => {
    const r = await search({ query: fastAtQuery('south', 60, { inner_hits: { size: 10 } }), size: 300 });
    const expected = fastAt(records, 'south', 60);
    assert.equal(r.hits.total, expected.length);
    for (const h of r.hits.hits) {
      const v = records.find((x) => x.plate === h._id)!;
      const ih = h.inner_hits!.passes!.hits;
      const offsets = v.passes.map((p, i) => (p.camera === 'south' && p.speed > 60 ? i : -1)).filter((i) => i >= 0);
      assert.equal(ih.total, offsets.length, h._id);
      assert.deepEqual(ih.hits.map((x) => x._nested.offset).sort((a, b) => a - b), offsets.slice(0, 10));
      for (const x of ih.hits) {
        assert.equal(x._id, h._id);
        assert.equal(x._nested.field, 'passes');
        assert.deepEqual(x._source, v.passes[x._nested.offset]);
      }
    }
    const named = await search({ query: fastAtQuery('south', 60, { inner_hits: { name: 'fast', size: 1, _source: false } }), size: 1 });
    const one = named.hits.hits[0]!.inner_hits!.fast!.hits;
    assert.equal(one.hits.length, 1);
    assert.equal(one.hits[0]!._source, undefined);
  });

  test('nested and reverse_nested aggregations count passes per camera and the vehicles (by color) behind them', async () => {
    const body = await search({
      size: 0,
      aggs: {
        passes: {
          nested: { path: 'passes' },
          aggs: {
            cameras: { terms: { field: 'passes.camera', size: 10 }, aggs: { vehicles: { reverse_nested: {}, aggs: { colors: { terms: { field: 'color' } } } } } },
            top: { max: { field: 'passes.speed' } },
          },
        },
      },
    });
    const aggs = body.aggregations as {
      passes: { doc_count: number; top: { value: number }; cameras: { buckets: { key: string; doc_count: number; vehicles: { doc_count: number; colors: { buckets: { key: string; doc_count: number }[] } } }[] } };
    };
    const all = records.flatMap((v) => v.passes);
    assert.equal(aggs.passes.doc_count, all.length);
    assert.equal(aggs.passes.top.value, Math.max(...all.map((p) => p.speed)));
    for (const b of aggs.passes.cameras.buckets) {
      assert.equal(b.doc_count, all.filter((p) => p.camera === b.key).length, b.key);
      const withCamera = records.filter((v) => v.passes.some((p) => p.camera === b.key));
      assert.equal(b.vehicles.doc_count, withCamera.length, b.key);
      for (const c of b.vehicles.colors.buckets) assert.equal(c.doc_count, withCamera.filter((v) => v.color === c.key).length);
    }
    const outside = await req('POST', '/vehicles/_search', { size: 0, aggs: { r: { reverse_nested: {} } } });
    assert.equal(outside.status, 400);
    assert.match(outside.text, /Reverse nested aggregation \[r\] can only be used inside a \[nested\] aggregation/);
  });

  test('sorting on a nested field takes each document\'s fastest (or slowest, or summed) pass; documents without passes go last', async () => {
    const withPasses = records.filter((v) => v.passes.length > 0);
    const key = (v: Vehicle, mode: 'max' | 'min' | 'sum') =>
      mode === 'sum' ? v.passes.reduce((s, p) => s + p.speed, 0) : Math[mode](...v.passes.map((p) => p.speed));
    for (const [order, mode] of [['desc', 'max'], ['asc', 'min'], ['desc', 'sum']] as const) {
      const body = await search({
        size: records.length,
        sort: [{ 'passes.speed': { order, ...(mode === 'sum' ? { mode } : {}), nested: { path: 'passes' } } }, { plate: 'asc' }],
      });
      const hits = body.hits.hits as (Hit & { sort: unknown[] })[];
      const keys = hits.slice(0, withPasses.length).map((h) => h.sort[0]);
      const expected = withPasses.map((v) => ({ k: key(v, mode), plate: v.plate })).sort((a, b) => (order === 'desc' ? b.k - a.k : a.k - b.k) || (a.plate < b.plate ? -1 : 1));
      assert.deepEqual(keys, expected.map((e) => e.k), `${order} ${mode}`);
      assert.deepEqual(hits.slice(0, withPasses.length).map((h) => h._id), expected.map((e) => e.plate));
      // Missing sorts last, reported as Long.MIN/MAX_VALUE as Elasticsearch does for integers.
      for (const h of hits.slice(withPasses.length)) assert.equal(records.find((v) => v.plate === h._id)!.passes.length, 0);
    }
    const keyword = await search({ size: 5, sort: [{ 'passes.camera': { order: 'asc', nested_path: 'passes' } }, { plate: 'asc' }] });
    const camerasOf = (id: string) => records.find((v) => v.plate === id)!.passes.map((p) => p.camera).sort();
    for (const h of keyword.hits.hits as (Hit & { sort: unknown[] })[]) assert.equal(h.sort[0], camerasOf(h._id)[0]);
    const bad = await req('POST', '/vehicles/_search', { sort: [{ 'passes.speed': { nested: { path: 'plate' } } }] });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /\[nested\] failed to find nested object under path \[plate\]/);
  });

  test('scroll pages through documents, not nested objects', async () => {
    const expected = fastAt(records, 'west', 50).map((v) => v.plate).sort();
    let body = await search({ query: fastAtQuery('west', 50), size: 7 }, '/vehicles/_search?scroll=1m');
    const seen: string[] = [];
    while (body.hits.hits.length > 0) {
      assert.equal(body.hits.total, expected.length);
      seen.push(...body.hits.hits.map((h) => h._id));
      const r = await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: body._scroll_id });
      assert.equal(r.status, 200, r.text);
      body = r.body as SearchBody;
    }
    assert.deepEqual(seen.sort(), expected);
  });

  test('errors: a path that is not nested, an unknown path (ignore_unmapped), bad score_mode', async () => {
    const notNested = await req('POST', '/vehicles/_search', { query: { nested: { path: 'plate', query: { match_all: {} } } } });
    assert.equal(notNested.status, 400);
    assert.match(notNested.text, /\[nested\] failed to find nested object under path \[plate\]/);
    const ignored = await search({ query: { nested: { path: 'nope', ignore_unmapped: true, query: { match_all: {} } } } });
    assert.equal(ignored.hits.total, 0);
    const badMode = await req('POST', '/vehicles/_search', { query: { nested: { path: 'passes', score_mode: 'median', query: { match_all: {} } } } });
    assert.equal(badMode.status, 400);
    const noPath = await req('POST', '/vehicles/_search', { query: { nested: { query: { match_all: {} } } } });
    assert.equal(noPath.status, 400);
    assert.match(noPath.text, /\[nested\] requires 'path' field/);
  });

  test('deletes, updates, delete_by_query and merges keep each document with its nested objects', async () => {
    const victim = fastAt(records, 'north', 100)[0]!;
    assert.equal((await req('DELETE', `/vehicles/_doc/${victim.plate}?refresh=true`)).status, 200);
    records = records.filter((v) => v !== victim);
    // An update that removes every fast north pass of another vehicle.
    const changed = fastAt(records, 'north', 100)[0]!;
    const slower = { ...changed, passes: changed.passes.map((p) => ({ ...p, speed: 40 })) };
    assert.equal((await req('PUT', `/vehicles/_doc/${changed.plate}?refresh=true`, slower)).status, 200);
    records = records.map((v) => (v === changed ? slower : v));
    let body = await search({ query: fastAtQuery('north', 100), size: 300 });
    assert.deepEqual(body.hits.hits.map((h) => h._id).sort(), fastAt(records, 'north', 100).map((v) => v.plate).sort());

    const dbq = await req('POST', '/vehicles/_delete_by_query?refresh=true', { query: fastAtQuery('east', 110) });
    assert.equal(dbq.status, 200, dbq.text);
    const gone = fastAt(records, 'east', 110);
    assert.equal((dbq.body as { deleted: number }).deleted, gone.length);
    records = records.filter((v) => !gone.includes(v));

    assert.equal((await req('POST', '/vehicles/_forcemerge?max_num_segments=1')).status, 200);
    const count = await req('GET', '/vehicles/_count');
    assert.equal((count.body as { count: number }).count, records.length);
    const stats = (await req('GET', '/vehicles/_stats/docs')).body as { _all: { primaries: { docs: { count: number; deleted: number } } } };
    assert.deepEqual(stats._all.primaries.docs, { count: records.reduce((n, v) => n + 1 + v.passes.length + v.owners.length, 0), deleted: 0 });
    body = await search({ query: fastAtQuery('south', 60, { inner_hits: { size: 10 } }), size: 300 });
    assert.deepEqual(body.hits.hits.map((h) => h._id).sort(), fastAt(records, 'south', 60).map((v) => v.plate).sort());
    for (const h of body.hits.hits) {
      const v = records.find((x) => x.plate === h._id)!;
      for (const x of h.inner_hits!.passes!.hits.hits) assert.deepEqual(x._source, v.passes[x._nested.offset]);
    }
    const aggs = await search({ size: 0, aggs: { p: { nested: { path: 'passes' } } } });
    assert.equal((aggs.aggregations as { p: { doc_count: number } }).p.doc_count, records.flatMap((v) => v.passes).length);
  });

  test('index.mapping.nested_fields.limit and index.mapping.nested_objects.limit answer Elasticsearch\'s errors', async () => {
    const tooMany = await req('PUT', '/limited', {
      settings: { 'index.mapping.nested_fields.limit': 1 },
      mappings: { _doc: { properties: { a: { type: 'nested' }, b: { type: 'nested' } } } },
    });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.text, /Limit of nested fields \[1\] in index \[limited\] has been exceeded/);
    assert.equal((await req('PUT', '/limited', { settings: { 'index.mapping.nested_objects.limit': 3 }, mappings: MAPPING.mappings })).status, 200);
    const ok = await req('PUT', '/limited/_doc/1', { passes: [{ camera: 'north' }, { camera: 'east' }], owners: [{ name: 'bo' }] });
    assert.equal(ok.status, 201, ok.text);
    const over = await req('PUT', '/limited/_doc/2', { passes: [{ camera: 'north' }, { camera: 'east' }, { camera: 'west' }], owners: [{ name: 'bo' }] });
    assert.equal(over.status, 400);
    assert.equal((over.body as { error: { type: string } }).error.type, 'mapper_parsing_exception');
    assert.match(over.text, /The number of nested documents has exceeded the allowed limit of \[3\]/);
  });
});
