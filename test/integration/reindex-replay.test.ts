/**
 * `_reindex` of one whole index, read from the source's log instead of by
 * scroll (coordinator/reindex-replay.ts, docs/rebuild.md): the destination
 * gets each live document of the source once, in its last state, with the
 * response, versions, conflicts and routing of the scroll path. The
 * expected documents come from a model of the writes the test made.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';
import { reindexReplayCounters } from '../../services/node/coordinator/reindex-replay.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

interface Expected {
  /** The `_source` bytes as last written (the test writes whole documents as raw text). */
  source: string;
  routing: string | null;
  version: number;
}
/** The source index's live documents, by id, as the test wrote them. */
const model = new Map<string, Expected>();

interface Response {
  took: number;
  timed_out: boolean;
  total: number;
  created: number;
  updated: number;
  deleted: number;
  batches: number;
  version_conflicts: number;
  noops: number;
  retries: { bulk: number; search: number };
  throttled_millis: number;
  requests_per_second: number;
  throttled_until_millis: number;
  failures: { id: string; status: number; cause: { type: string } }[];
}

async function bulk(index: string, lines: string[]): Promise<{ status: number; error?: { type: string } }[]> {
  const r = await http(server.url, 'POST', `/${index}/_bulk`, lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal(r.status, 200, r.text);
  return (r.body as { items: Record<string, { status: number; error?: { type: string } }>[] }).items.map((it) => Object.values(it)[0]!);
}

/** A raw source with spacing and digits a re-serialisation would change. */
const raw = (i: number, round: number) => `{ "n" : ${i},  "round": ${round}, "price": 1.50, "tag":"t${i % 7}" }`;

/** Writes 300 documents into `src` (3 shards, alias `src-alias`), then updates, deletes and failed writes. */
async function loadSource(): Promise<void> {
  const created = await req('PUT', '/src', {
    settings: { number_of_shards: 3, number_of_replicas: 0 },
    mappings: { _doc: { properties: { n: { type: 'integer' }, round: { type: 'integer' }, price: { type: 'float' }, tag: { type: 'keyword' } } } },
    aliases: { 'src-alias': {} },
  });
  assert.equal(created.status, 200, created.text);
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    const routing = i % 10 === 0 ? `r${i % 3}` : null;
    lines.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}`, ...(routing ? { routing } : {}) } }), raw(i, 0));
    model.set(`d${i}`, { source: raw(i, 0), routing, version: 1 });
  }
  for (const item of await bulk('src', lines)) assert.equal(item.status, 201);
  // Every fifth document indexed again twice: version 3.
  for (let round = 1; round <= 2; round++) {
    const again: string[] = [];
    for (let i = 0; i < 300; i += 5) {
      const e = model.get(`d${i}`)!;
      again.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}`, ...(e.routing ? { routing: e.routing } : {}) } }), raw(i, round));
      model.set(`d${i}`, { ...e, source: raw(i, round), version: e.version + 1 });
    }
    for (const item of await bulk('src', again)) assert.equal(item.status, 200);
  }
  // Partial updates of every seventh document: the result is computed when applied, not in the log.
  for (let i = 1; i < 300; i += 7) {
    const e = model.get(`d${i}`)!;
    const q = e.routing ? `?routing=${e.routing}` : '';
    const r = await req('POST', `/src/_doc/d${i}/_update${q}`, { doc: { round: 9 } });
    assert.equal(r.status, 200, r.text);
    const got = await req('GET', `/src/_doc/d${i}/_source${q}`);
    model.set(`d${i}`, { ...e, source: got.text, version: e.version + 1 });
  }
  // Every ninth document deleted (the ones indexed three times among them), some after an update.
  for (let i = 3; i < 300; i += 9) {
    const e = model.get(`d${i}`)!;
    const r = await req('DELETE', `/src/_doc/d${i}${e.routing ? `?routing=${e.routing}` : ''}`);
    assert.equal(r.status, 200, r.text);
    model.delete(`d${i}`);
  }
  // Ops that are in the log but failed when applied: the documents keep their state.
  const failed = await bulk('src', [
    JSON.stringify({ create: { _type: '_doc', _id: 'd2' } }),
    '{"n": -1}',
    JSON.stringify({ index: { _type: '_doc', _id: 'd4', version: 1, version_type: 'external' } }),
    '{"n": -2}',
    JSON.stringify({ delete: { _type: '_doc', _id: 'd6', version: 77 } }),
  ]);
  assert.deepEqual(
    failed.map((f) => f.status),
    [409, 409, 409],
  );
  // One document only ever created by a partial update's upsert.
  const upsert = await req('POST', '/src/_doc/u1/_update', { doc: { n: 1000 }, doc_as_upsert: true });
  assert.equal(upsert.status, 201, upsert.text);
  model.set('u1', { source: (await req('GET', '/src/_doc/u1/_source')).text, routing: null, version: 1 });
}

before(async () => {
  server = await startServer();
  await loadSource();
});
after(async () => {
  await server.stop();
});

/** Runs a `_reindex`; whether it read the source's log. */
async function reindex(body: unknown, params = 'refresh=true'): Promise<{ status: number; body: Response; replayed: boolean }> {
  const before = reindexReplayCounters.started;
  const r = await req('POST', `/_reindex?${params}`, body);
  return { status: r.status, body: r.body as Response, replayed: reindexReplayCounters.started > before };
}

/** The documents of `index`, each with its raw `_source` text, routing and version, read by GET. */
async function documentsOf(index: string): Promise<Map<string, Expected>> {
  const out = new Map<string, Expected>();
  const ids = (await req('POST', `/${index}/_search`, { size: 1000, _source: false })).body as { hits: { hits: { _id: string; _routing?: string }[] } };
  for (const h of ids.hits.hits) {
    const q = h._routing ? `?routing=${h._routing}` : '';
    const got = (await req('GET', `/${index}/_doc/${h._id}${q}`)).body as { _version: number; _routing?: string };
    const source = (await req('GET', `/${index}/_doc/${h._id}/_source${q}`)).text;
    out.set(h._id, { source, routing: got._routing ?? null, version: got._version });
  }
  return out;
}

function withoutTook(b: Response): Omit<Response, 'took'> {
  const { took, ...rest } = b;
  assert.equal(typeof took, 'number');
  return rest;
}

describe('_reindex of a whole index, read from its log', () => {
  test('copies each live document once, in its last state, byte for byte: updated ones at version 1, deleted and failed ops left out', async () => {
    const r = await reindex({ source: { index: 'src', size: 50 }, dest: { index: 'fresh' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.replayed, 'the replay path ran');
    assert.deepEqual(withoutTook(r.body), {
      timed_out: false,
      total: model.size,
      updated: 0,
      created: model.size,
      deleted: 0,
      batches: Math.ceil(model.size / 50),
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures: [],
    });
    const got = await documentsOf('fresh');
    assert.equal(got.size, model.size);
    for (const [id, e] of model) assert.deepEqual(got.get(id), { ...e, version: 1 }, id);
  });

  test('answers what the scroll path answers on the same data (a query that matches everything takes the scroll)', async () => {
    const replay = await reindex({ source: { index: 'src', size: 40 }, dest: { index: 'by-replay' } });
    const scroll = await reindex({ source: { index: 'src', size: 40, query: { bool: { must: { match_all: {} } } } }, dest: { index: 'by-scroll' } });
    assert.ok(replay.replayed);
    assert.ok(!scroll.replayed, 'a query other than match_all copies by scroll');
    assert.deepEqual(withoutTook(replay.body), withoutTook(scroll.body));
    assert.deepEqual(await documentsOf('by-replay'), await documentsOf('by-scroll'));
    // Into an existing destination: every document updated (version 2), on both paths.
    const replay2 = await reindex({ source: { index: 'src' }, dest: { index: 'by-replay' } });
    const scroll2 = await reindex({ source: { index: 'src', query: { bool: { must: { match_all: {} } } } }, dest: { index: 'by-scroll' } });
    assert.ok(replay2.replayed);
    assert.equal(replay2.body.updated, model.size);
    assert.equal(replay2.body.created, 0);
    assert.deepEqual(withoutTook(replay2.body), withoutTook(scroll2.body));
    const got = await documentsOf('by-replay');
    for (const [id, e] of model) assert.deepEqual(got.get(id), { ...e, version: 2 }, id);
  });

  test('version_type external keeps the source versions; a second run is all version conflicts', async () => {
    const first = await reindex({ source: { index: 'src' }, dest: { index: 'ext', version_type: 'external' } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.ok(first.replayed);
    assert.equal(first.body.created, model.size);
    assert.deepEqual(await documentsOf('ext'), model);
    const again = await reindex({ source: { index: 'src' }, dest: { index: 'ext', version_type: 'external' }, conflicts: 'proceed' });
    assert.equal(again.status, 200);
    assert.equal(again.body.version_conflicts, model.size);
    assert.equal(again.body.created + again.body.updated, 0);
    const gte = await reindex({ source: { index: 'src' }, dest: { index: 'ext', version_type: 'external_gte' } });
    assert.equal(gte.status, 200, JSON.stringify(gte.body));
    assert.equal(gte.body.updated, model.size);
    assert.deepEqual(await documentsOf('ext'), model);
  });

  test('op_type create: existing ids are conflicts; abort stops at the first page with one (409), proceed counts them all', async () => {
    await req('PUT', '/partly/_doc/d1', { n: 'taken' });
    await req('PUT', '/partly-scroll/_doc/d1', { n: 'taken' });
    const abort = await reindex({ source: { index: 'src', size: 1000 }, dest: { index: 'partly', op_type: 'create' } });
    const abortScroll = await reindex({ source: { index: 'src', size: 1000, query: { bool: {} } }, dest: { index: 'partly-scroll', op_type: 'create' } });
    assert.ok(abort.replayed);
    assert.equal(abort.status, 409);
    assert.equal(abort.body.version_conflicts, 1);
    assert.equal(abort.body.created, model.size - 1);
    assert.deepEqual(
      abort.body.failures.map((f) => [f.id, f.status, f.cause.type]),
      [['d1', 409, 'version_conflict_engine_exception']],
    );
    assert.ok(!abortScroll.replayed);
    // The same answer but for the destination's name and uuid in the failure.
    assert.deepEqual(JSON.parse(JSON.stringify(withoutTook(abortScroll.body)).replaceAll('partly-scroll', 'partly').replace(/"index_uuid":"[^"]+"/g, '"index_uuid":"-"')), JSON.parse(JSON.stringify(withoutTook(abort.body)).replace(/"index_uuid":"[^"]+"/g, '"index_uuid":"-"')));
    const proceed = await reindex({ source: { index: 'src' }, dest: { index: 'partly', op_type: 'create' }, conflicts: 'proceed' });
    assert.equal(proceed.status, 200);
    assert.equal(proceed.body.version_conflicts, model.size);
    assert.deepEqual(proceed.body.failures, []);
    assert.equal(((await req('GET', '/partly/_doc/d1')).body as { _source: { n: string } })._source.n, 'taken');
  });

  test('dest.routing: keep, discard and =value decide where documents go', async () => {
    const routed = [...model].find(([, e]) => e.routing !== null)!;
    for (const [dest, routing, expected] of [
      ['r-keep', 'keep', routed[1].routing],
      ['r-discard', 'discard', null],
      ['r-set', '=zz', 'zz'],
    ] as const) {
      const r = await reindex({ source: { index: 'src' }, dest: { index: dest, routing } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.replayed);
      const q = expected === null ? '' : `?routing=${expected}`;
      const got = (await req('GET', `/${dest}/_doc/${routed[0]}${q}`)).body as { found: boolean; _routing?: string };
      assert.equal(got.found, true, dest);
      assert.equal(got._routing ?? null, expected, dest);
    }
  });

  test('into a destination with another number of shards, through an alias of the source', async () => {
    assert.equal((await req('PUT', '/five', { settings: { number_of_shards: 5 } })).status, 200);
    const r = await reindex({ source: { index: 'src-alias' }, dest: { index: 'five' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.replayed);
    assert.equal(r.body.created, model.size);
    const got = await documentsOf('five');
    for (const [id, e] of model) assert.deepEqual(got.get(id), { ...e, version: 1 }, id);
    const counts = ((await req('GET', '/_cat/shards/five?format=json&h=shard,prirep,docs')).body as { shard: string; prirep: string; docs: string }[]).filter((c) => c.prirep === 'p');
    assert.equal(counts.length, 5);
    assert.ok(counts.every((c) => Number(c.docs) > 0));
  });

  test('wait_for_completion=false: a reindex task whose stored response has the same counts', async () => {
    const before = reindexReplayCounters.started;
    const started = await req('POST', '/_reindex?wait_for_completion=false&requests_per_second=2000', { source: { index: 'src', size: 25 }, dest: { index: 'task-copy' } });
    assert.equal(started.status, 200, started.text);
    assert.ok(reindexReplayCounters.started > before);
    const task = (started.body as { task: string }).task;
    type TaskBody = { completed: boolean; task: { action: string; status: { total: number; batches: number } }; response?: Response };
    let body = (await req('GET', `/_tasks/${task}`)).body as TaskBody;
    for (let i = 0; i < 200 && !body.completed; i++) {
      await new Promise((r) => setTimeout(r, 50));
      body = (await req('GET', `/_tasks/${task}`)).body as TaskBody;
    }
    assert.ok(body.completed);
    assert.equal(body.task.action, 'indices:data/write/reindex');
    assert.equal(body.response!.created, model.size);
    assert.equal(body.response!.batches, Math.ceil(model.size / 25));
    assert.equal(body.response!.requests_per_second, 2000);
    assert.ok(body.response!.throttled_millis > 0, 'throttled to 2000 docs/s');
    assert.equal(body.task.status.total, model.size);
  });

  test('_tasks/_cancel stops it after the current page; the response says so', async () => {
    const started = await req('POST', '/_reindex?wait_for_completion=false&requests_per_second=20', { source: { index: 'src', size: 10 }, dest: { index: 'cancelled' } });
    assert.equal(started.status, 200, started.text);
    const task = (started.body as { task: string }).task;
    const cancel = await req('POST', `/_tasks/${task}/_cancel`);
    assert.equal(cancel.status, 200, cancel.text);
    const done = (await req('GET', `/_tasks/${task}?wait_for_completion=true&timeout=10s`)).body as { completed: boolean; response: Response & { canceled?: string } };
    assert.ok(done.completed);
    assert.equal(done.response.canceled, 'by user request');
    assert.ok(done.response.created < model.size, `${done.response.created} of ${model.size} copied before the cancel`);
  });

  test('a query, a type filter, max size, a script, slices or a filtered alias copy by scroll', async () => {
    assert.equal((await req('POST', '/_aliases', { actions: [{ add: { index: 'src', alias: 'src-t1', filter: { term: { tag: 't1' } } } }] })).status, 200);
    for (const [name, body, params] of [
      ['query', { source: { index: 'src', query: { term: { tag: 't1' } } }, dest: { index: 'q1' } }, ''],
      ['size', { source: { index: 'src' }, size: 10, dest: { index: 'q2' } }, ''],
      ['script', { source: { index: 'src' }, dest: { index: 'q3' }, script: { source: 'ctx._source.x = 1' } }, ''],
      ['slices', { source: { index: 'src' }, dest: { index: 'q4' } }, 'slices=2'],
      ['sort', { source: { index: 'src', sort: ['n'] }, dest: { index: 'q5' } }, ''],
      ['_source', { source: { index: 'src', _source: ['n'] }, dest: { index: 'q6' } }, ''],
      ['filtered alias', { source: { index: 'src-t1' }, dest: { index: 'q7' } }, 'refresh=true'],
    ] as const) {
      const r = await reindex(body, params);
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
      assert.ok(!r.replayed, name);
    }
    const t1 = [...model.values()].filter((e) => (JSON.parse(e.source) as { tag: string }).tag === 't1').length;
    assert.equal(((await req('GET', '/q7/_count')).body as { count: number }).count, t1, 'the alias filter applies');
  });
});
