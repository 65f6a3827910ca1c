/**
 * `_update_by_query`, `_delete_by_query`, `_reindex` and the tasks API over
 * HTTP, on generated pass records; expected counts are computed in the test
 * from the records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from '../../bench/pass-records.ts';

let server: TestServer;
const records: PassRecord[] = [...generatePassRecords({ count: 2000, seed: 3, plates: 150 })];
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
const count = async (index: string, query: unknown = { match_all: {} }) =>
  ((await req('POST', `/${index}/_count`, { query })).body as { count: number }).count;

async function load(index: string, shards = 3, recs: readonly PassRecord[] = records): Promise<void> {
  const created = await req('PUT', `/${index}`, { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: shards } });
  assert.equal(created.status, 200, created.text);
  const lines: string[] = [];
  for (const r of recs) lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
  const bulk = await http(server.url, 'POST', `/${index}/_bulk?refresh=true`, lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal((bulk.body as { errors: boolean }).errors, false);
}

interface ByScroll {
  took: number;
  total: number;
  updated?: number;
  created?: number;
  deleted: number;
  batches: number;
  version_conflicts: number;
  noops: number;
  failures: { index: string; id: string; status: number; cause: { type: string; reason: string } }[];
  slices?: unknown[];
  task?: string;
}

before(async () => {
  server = await startServer();
  await load('passinfo');
});
after(async () => {
  await server.stop();
});

describe('_update_by_query', () => {
  test('a script runs on every matching document, in pages of scroll_size, and bumps each version', async () => {
    const land = records[0]!.land_id;
    const expected = records.filter((r) => r.land_id === land).length;
    const r = await req('POST', '/passinfo/_update_by_query?refresh=true&scroll_size=7', {
      query: { term: { land_id: land } },
      script: { source: "ctx._source.speed += params.add; ctx._source.checked = 'yes'", params: { add: 1000 } },
    });
    assert.equal(r.status, 200, r.text);
    const body = r.body as ByScroll;
    assert.equal(body.total, expected);
    assert.equal(body.updated, expected);
    assert.equal(body.batches, Math.ceil(expected / 7));
    assert.equal(body.created, undefined);
    assert.deepEqual(body.failures, []);
    assert.equal(await count('passinfo', { range: { speed: { gte: 1000 } } }), expected);
    assert.equal(await count('passinfo', { match: { checked: 'yes' } }), expected);
    const one = records.find((x) => x.land_id === land)!;
    const got = (await req('GET', `/passinfo/passinfo/${one.event_id}`)).body as { _version: number; _source: PassRecord };
    assert.equal(got._version, 2);
    assert.equal(got._source.speed, one.speed + 1000);
  });

  test("ctx.op 'noop' and 'delete' are counted as noops and deletions", async () => {
    await load('ops', 2, records.slice(0, 200));
    const r = await req('POST', '/ops/_update_by_query?refresh=true', {
      script: "if (ctx._source.plate_color == 0) { ctx.op = 'delete' } else if (ctx._source.plate_color == 1) { ctx.op = 'noop' } else { ctx._source.touched = true }",
    });
    assert.equal(r.status, 200, r.text);
    const body = r.body as ByScroll;
    const slice = records.slice(0, 200);
    assert.equal(body.deleted, slice.filter((x) => x.plate_color === 0).length);
    assert.equal(body.noops, slice.filter((x) => x.plate_color === 1).length);
    assert.equal(body.updated, slice.filter((x) => x.plate_color > 1).length);
    assert.equal(await count('ops'), 200 - body.deleted);
  });

  test('a script that changes _id is refused as Elasticsearch refuses it', async () => {
    const r = await req('POST', '/ops/_update_by_query', { script: "ctx._id = 'x'" });
    assert.equal(r.status, 400, r.text);
    assert.match(JSON.stringify(r.body), /Modifying \[_id\] not allowed/);
  });

  test('a script that does not compile is a 400 before anything is changed', async () => {
    const r = await req('POST', '/ops/_update_by_query', { script: 'ctx._source.a +=' });
    assert.equal(r.status, 400);
    assert.equal((r.body as { error: { type: string } }).error.type, 'script_exception');
  });
});

describe('_delete_by_query', () => {
  test('deletes exactly the matching documents; size caps how many', async () => {
    await load('del', 3, records.slice(0, 600));
    const color = 2;
    const expected = records.slice(0, 600).filter((x) => x.plate_color === color).length;
    const capped = await req('POST', '/del/_delete_by_query?refresh=true&size=5', { query: { term: { plate_color: color } } });
    assert.equal((capped.body as ByScroll).deleted, 5);
    const r = await req('POST', '/del/_delete_by_query?refresh=true', { query: { term: { plate_color: color } } });
    assert.equal(r.status, 200, r.text);
    const body = r.body as ByScroll;
    assert.equal(body.deleted, expected - 5);
    assert.equal(body.updated, undefined);
    assert.equal(await count('del', { term: { plate_color: color } }), 0);
    assert.equal(await count('del'), 600 - expected);
  });

  test('on a missing index it is a 404 and creates nothing', async () => {
    const r = await req('POST', '/fresh/_delete_by_query', { query: { match_all: {} } });
    assert.equal(r.status, 404);
    assert.equal((r.body as { error: { type: string } }).error.type, 'index_not_found_exception');
    assert.equal((await req('HEAD', '/fresh')).status, 404);
  });

  test('without a query it is a 400; a q parameter is a query', async () => {
    const none = await req('POST', '/del/_delete_by_query');
    assert.equal(none.status, 400);
    const byQ = await req('POST', '/del/_delete_by_query?refresh=true&q=plate_color:3');
    assert.equal(byQ.status, 200, byQ.text);
    assert.equal(await count('del', { term: { plate_color: 3 } }), 0);
  });

  test('slices split the work by shard and report each slice', async () => {
    await load('sliced', 3, records.slice(0, 300));
    const r = await req('POST', '/sliced/_delete_by_query?refresh=true&slices=3', { query: { match_all: {} } });
    assert.equal(r.status, 200, r.text);
    const body = r.body as ByScroll;
    assert.equal(body.deleted, 300);
    assert.equal(body.slices!.length, 3);
    assert.equal(await count('sliced'), 0);
  });
});

describe('_reindex', () => {
  test('copies every document byte for byte, with its id', async () => {
    const r = await req('POST', '/_reindex?refresh=true', { source: { index: 'passinfo', size: 333 }, dest: { index: 'copy' } });
    assert.equal(r.status, 200, r.text);
    const body = r.body as ByScroll;
    assert.equal(body.created, records.length);
    assert.equal(body.batches, Math.ceil(records.length / 333));
    assert.equal(await count('copy'), records.length);
    const a = (await req('GET', `/passinfo/passinfo/${records[5]!.event_id}`)).body as { _source: unknown };
    const b = (await req('GET', `/copy/passinfo/${records[5]!.event_id}`)).body as { _source: unknown };
    assert.deepEqual(b._source, a._source);
  });

  test('a query and a script select and change what is copied; ctx.op noop skips', async () => {
    const r = await req('POST', '/_reindex?refresh=true', {
      source: { index: 'passinfo', query: { term: { event_type: 1 } } },
      dest: { index: 'type1' },
      script: { source: "if (ctx._source.plate_color == 4) { ctx.op = 'noop' } else { ctx._source.copied = params.tag; ctx._id = 'c-' + ctx._id }", params: { tag: 'v2' } },
    });
    assert.equal(r.status, 200, r.text);
    const type1 = records.filter((x) => x.event_type === 1);
    const body = r.body as ByScroll;
    assert.equal(body.noops, type1.filter((x) => x.plate_color === 4).length);
    assert.equal(body.created, type1.filter((x) => x.plate_color !== 4).length);
    const first = type1.find((x) => x.plate_color !== 4)!;
    const got = (await req('GET', `/type1/passinfo/c-${first.event_id}`)).body as { _source: { copied: string } };
    assert.equal(got._source.copied, 'v2');
  });

  test('op_type create turns existing documents into conflicts; conflicts=proceed counts them and goes on', async () => {
    const abort = await req('POST', '/_reindex', { source: { index: 'passinfo' }, dest: { index: 'copy', op_type: 'create' } });
    assert.equal(abort.status, 409);
    assert.ok((abort.body as ByScroll).version_conflicts > 0);
    assert.equal((abort.body as ByScroll).failures[0]!.cause.type, 'version_conflict_engine_exception');
    const proceed = await req('POST', '/_reindex', { source: { index: 'passinfo' }, dest: { index: 'copy', op_type: 'create' }, conflicts: 'proceed' });
    assert.equal(proceed.status, 200);
    assert.equal((proceed.body as ByScroll).version_conflicts, records.length);
    assert.deepEqual((proceed.body as ByScroll).failures, []);
  });

  test('version_type external keeps the source versions', async () => {
    await req('POST', `/passinfo/passinfo/${records[9]!.event_id}/_update?refresh=true`, { doc: { speed: 1 } });
    const r = await req('POST', '/_reindex?refresh=true', { source: { index: 'passinfo', query: { ids: { values: [records[9]!.event_id] } } }, dest: { index: 'ext', version_type: 'external' } });
    assert.equal(r.status, 200, r.text);
    const src = (await req('GET', `/passinfo/passinfo/${records[9]!.event_id}`)).body as { _version: number };
    const got = (await req('GET', `/ext/passinfo/${records[9]!.event_id}`)).body as { _version: number };
    assert.equal(got._version, src._version);
  });

  test('refused: writing into the source, remote sources, unknown fields', async () => {
    assert.equal((await req('POST', '/_reindex', { source: { index: 'passinfo' }, dest: { index: 'passinfo' } })).status, 400);
    assert.equal((await req('POST', '/_reindex', { source: { index: 'passinfo', remote: { host: 'http://x:9200' } }, dest: { index: 'y' } })).status, 400);
    assert.equal((await req('POST', '/_reindex', { source: { index: 'passinfo' }, dest: { index: 'y' }, colour: 1 })).status, 400);
  });
});

describe('tasks', () => {
  test('wait_for_completion=false answers a task id; GET /_tasks/{id} shows progress and then the stored response', async () => {
    await load('slow', 2, records.slice(0, 400));
    const started = await req('POST', '/slow/_update_by_query?wait_for_completion=false&scroll_size=50&requests_per_second=400', { script: 'ctx._source.n = 1' });
    assert.equal(started.status, 200, started.text);
    const task = (started.body as ByScroll).task!;
    assert.match(task, /^.+:\d+$/);
    const listed = await req('GET', '/_tasks?detailed=true&actions=*byquery');
    const nodes = (listed.body as { nodes: Record<string, { tasks: Record<string, { action: string; description: string; status: { total: number } }> }> }).nodes;
    const info = Object.values(nodes)[0]!.tasks[task]!;
    assert.equal(info.action, 'indices:data/write/update/byquery');
    assert.equal(info.description, 'update-by-query [slow] updated with Script{type=inline, lang=\'painless\', idOrCode=\'ctx._source.n = 1\', options={}, params={}}');
    const running = await req('GET', `/_tasks/${task}`);
    assert.equal((running.body as { completed: boolean }).completed, false);
    const done = await req('GET', `/_tasks/${task}?wait_for_completion=true&timeout=30s`);
    assert.equal(done.status, 200, done.text);
    const d = done.body as { completed: boolean; response: ByScroll; task: { status: { updated: number } } };
    assert.equal(d.completed, true);
    assert.equal(d.response.updated, 400);
    assert.equal(d.response.batches, 8);
    assert.ok(((d.response as unknown as { throttled_millis: number }).throttled_millis) > 0);
    const again = await req('GET', `/_tasks/${task}`);
    assert.equal((again.body as { completed: boolean }).completed, true);
  });

  test('a cancelled task stops and says why', async () => {
    const started = await req('POST', '/slow/_update_by_query?wait_for_completion=false&scroll_size=10&requests_per_second=50', { script: 'ctx._source.n = 2' });
    const task = (started.body as ByScroll).task!;
    const cancelled = await req('POST', `/_tasks/${task}/_cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    const done = await req('GET', `/_tasks/${task}?wait_for_completion=true`);
    const response = (done.body as { response: ByScroll & { canceled: string } }).response;
    assert.equal(response.canceled, 'by user request');
    assert.ok((response.updated ?? 0) < 400);
  });

  test('unknown, malformed and non-cancellable task ids', async () => {
    const nodeId = server.node.nodeId;
    assert.equal((await req('GET', `/_tasks/${nodeId}:999999`)).status, 404);
    assert.equal((await req('GET', '/_tasks/garbage')).status, 400);
    assert.equal((await req('POST', `/_tasks/${nodeId}:999999/_cancel`)).status, 404);
    assert.equal((await req('GET', '/_tasks?group_by=weird')).status, 400);
  });

  test('GET /_tasks lists itself, grouped by node, by parents or flat', async () => {
    const byNode = (await req('GET', '/_tasks')).body as { nodes: Record<string, { name: string; tasks: Record<string, { action: string }> }> };
    const [entry] = Object.values(byNode.nodes);
    assert.equal(entry!.name, 'test-node');
    assert.ok(Object.values(entry!.tasks).some((t) => t.action === 'cluster:monitor/tasks/lists'));
    const flat = (await req('GET', '/_tasks?group_by=none')).body as { tasks: { action: string }[] };
    assert.ok(Array.isArray(flat.tasks));
    const parents = (await req('GET', '/_tasks?group_by=parents')).body as { tasks: Record<string, unknown> };
    assert.equal(typeof parents.tasks, 'object');
  });
});
