/**
 * Index maintenance as an operator runs it: force merges that really merge
 * (segments on disk before and after), `_segments`, `_recovery`, cache
 * clears, rollover, refused shrink/split, and closing an index (its copies
 * stop, reads and writes answer index_closed_exception, `_open` brings the
 * documents back, also across a restart).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, tempDir, http, type TestServer } from '../helpers/server.ts';

let dir: string;
let server: TestServer;
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(server.url, method, path, body, headers);

interface SegmentEntry {
  num_docs: number;
  deleted_docs: number;
  committed: boolean;
  search: boolean;
  size_in_bytes: number;
}
interface ShardSegments {
  routing: { primary: boolean; state: string };
  num_committed_segments: number;
  num_search_segments: number;
  segments: Record<string, SegmentEntry>;
}

async function segmentsOf(index: string): Promise<ShardSegments[]> {
  const r = await req('GET', `/${index}/_segments`);
  assert.equal(r.status, 200, r.text);
  return (r.body as { indices: Record<string, { shards: Record<string, ShardSegments[]> }> }).indices[index]!.shards['0']!;
}

async function count(index: string): Promise<number> {
  const r = await req('GET', `/${index}/_count`);
  assert.equal(r.status, 200, r.text);
  return (r.body as { count: number }).count;
}

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('force merge and segments', () => {
  test('max_num_segments=1 merges the committed segments into one without their deletes; counts and documents unchanged', async () => {
    await req('PUT', '/merged', { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 } });
    // Three commits: three segments on disk.
    for (let round = 0; round < 3; round++) {
      const lines: string[] = [];
      for (let i = 0; i < 50; i++) lines.push(JSON.stringify({ index: { _id: `${round}-${i}` } }), JSON.stringify({ round, i }));
      await req('POST', '/merged/_doc/_bulk', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
      assert.equal((await req('POST', '/merged/_flush')).status, 200);
    }
    for (let i = 0; i < 10; i++) assert.equal((await req('DELETE', `/merged/_doc/0-${i}`)).status, 200);
    await req('POST', '/merged/_flush');
    const beforeMerge = await segmentsOf('merged');
    const segs = Object.values(beforeMerge[0]!.segments);
    assert.equal(segs.length, 3);
    assert.ok(segs.every((s) => s.committed && s.search));
    assert.equal(segs.reduce((n, s) => n + s.deleted_docs, 0), 10);

    const merged = await req('POST', '/merged/_forcemerge?max_num_segments=1');
    assert.equal(merged.status, 200, merged.text);
    assert.deepEqual(merged.body, { _shards: { total: 1, successful: 1, failed: 0 } });
    const afterMerge = Object.values((await segmentsOf('merged'))[0]!.segments);
    assert.equal(afterMerge.length, 1);
    assert.equal(afterMerge[0]!.num_docs, 140);
    assert.equal(afterMerge[0]!.deleted_docs, 0);
    // flush=true (the default) committed the merged segment.
    assert.equal(afterMerge[0]!.committed, true);
    assert.equal(await count('merged'), 140);
    const doc = await req('GET', '/merged/_doc/2-7');
    assert.deepEqual((doc.body as { _source: unknown })._source, { round: 2, i: 7 });
    const stats = (await req('GET', '/merged/_stats/merge')).body as { _all: { total: { merges: { total: number; total_docs: number } } } };
    assert.equal(stats._all.total.merges.total, 1);
    assert.equal(stats._all.total.merges.total_docs, 140);
  });

  test('only_expunge_deletes rewrites only the segments with more than 10% deleted docs', async () => {
    await req('PUT', '/expunge', { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 } });
    for (let round = 0; round < 2; round++) {
      const lines: string[] = [];
      for (let i = 0; i < 20; i++) lines.push(JSON.stringify({ index: { _id: `${round}-${i}` } }), JSON.stringify({ round, i }));
      await req('POST', '/expunge/_doc/_bulk', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
      await req('POST', '/expunge/_flush');
    }
    for (let i = 0; i < 5; i++) await req('DELETE', `/expunge/_doc/1-${i}`);
    await req('POST', '/expunge/_flush');
    assert.equal((await req('POST', '/expunge/_forcemerge?only_expunge_deletes=true')).status, 200);
    const segs = Object.values((await segmentsOf('expunge'))[0]!.segments).sort((a, b) => a.num_docs - b.num_docs);
    assert.deepEqual(
      segs.map((s) => [s.num_docs, s.deleted_docs]),
      [
        [15, 0],
        [20, 0],
      ],
    );
  });

  test('_cat/segments lists segments still in memory as not committed', async () => {
    await req('PUT', '/fresh-segs', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    await req('PUT', '/fresh-segs/_doc/1?refresh=true', { a: 1 });
    const r = await req('GET', '/_cat/segments/fresh-segs?h=index,shard,prirep,segment,docs.count,committed,searchable&format=json');
    assert.deepEqual(r.body, [{ index: 'fresh-segs', shard: '0', prirep: 'p', segment: '_0', 'docs.count': '1', committed: 'false', searchable: 'true' }]);
  });

  test('_cache/clear and _recovery answer for every copy; a missing index is a 404', async () => {
    const cleared = await req('POST', '/merged/_cache/clear');
    assert.deepEqual(cleared.body, { _shards: { total: 1, successful: 1, failed: 0 } });
    const rec = await req('GET', '/merged/_recovery');
    const shards = (rec.body as { merged: { shards: { id: number; type: string; stage: string; primary: boolean; translog: { percent: string } }[] } }).merged.shards;
    assert.deepEqual(
      shards.map((s) => [s.id, s.type, s.stage, s.primary, s.translog.percent]),
      [[0, 'EMPTY_STORE', 'DONE', true, '100.0%']],
    );
    assert.equal((await req('POST', '/nope/_forcemerge')).status, 404);
    assert.equal((await req('GET', '/nope/_segments')).status, 404);
  });
});

describe('rollover', () => {
  test('rolls the alias over to <prefix>-000002 once a condition is met; dry_run changes nothing', async () => {
    await req('PUT', '/events-1', { aliases: { events: {}, 'events-read': {} } });
    await req('PUT', '/events-1/_doc/1?refresh=true', { n: 1 });
    const notYet = await req('POST', '/events/_rollover', { conditions: { max_docs: 2, max_age: '1d' } });
    assert.equal(notYet.status, 200, notYet.text);
    assert.deepEqual(notYet.body, {
      acknowledged: false,
      shards_acknowledged: false,
      old_index: 'events-1',
      new_index: 'events-000002',
      rolled_over: false,
      dry_run: false,
      conditions: { '[max_docs: 2]': false, '[max_age: 1d]': false },
    });
    await req('PUT', '/events-1/_doc/2?refresh=true', { n: 2 });
    const dry = await req('POST', '/events/_rollover?dry_run=true', { conditions: { max_docs: 2 } });
    assert.equal((dry.body as { rolled_over: boolean; conditions: Record<string, boolean> }).rolled_over, false);
    assert.deepEqual((dry.body as { conditions: Record<string, boolean> }).conditions, { '[max_docs: 2]': true });
    assert.equal((await req('HEAD', '/events-000002')).status, 404);

    const rolled = await req('POST', '/events/_rollover', { conditions: { max_docs: 2 }, settings: { number_of_shards: 2 } });
    assert.equal((rolled.body as { rolled_over: boolean }).rolled_over, true);
    const aliases = (await req('GET', '/_alias/events,events-read')).body as Record<string, { aliases: Record<string, unknown> }>;
    assert.deepEqual(Object.keys(aliases['events-000002']!.aliases), ['events']);
    assert.deepEqual(Object.keys(aliases['events-1']!.aliases), ['events-read']);
    const settings = (await req('GET', '/events-000002/_settings?flat_settings=true')).body as Record<string, { settings: Record<string, string> }>;
    assert.equal(settings['events-000002']!.settings['index.number_of_shards'], '2');
    // Writes through the alias go to the new index.
    assert.equal(((await req('PUT', '/events/_doc/3', { n: 3 })).body as { _index: string })._index, 'events-000002');
  });

  test('an alias with an explicit write index stays on the old index for reads', async () => {
    await req('PUT', '/audit-7', { aliases: { audit: { is_write_index: true } } });
    const rolled = await req('POST', '/audit/_rollover');
    assert.equal((rolled.body as { new_index: string }).new_index, 'audit-000008');
    const aliases = (await req('GET', '/_alias/audit')).body as Record<string, { aliases: { audit: { is_write_index: boolean } } }>;
    assert.equal(aliases['audit-7']!.aliases.audit.is_write_index, false);
    assert.equal(aliases['audit-000008']!.aliases.audit.is_write_index, true);
  });

  test('refusals: not an alias, an existing target, a name without a counter', async () => {
    assert.equal(((await req('POST', '/events-1/_rollover')).body as { error: { reason: string } }).error.reason, 'source alias is a concrete index');
    await req('PUT', '/events-000003', {});
    const exists = await req('POST', '/events/_rollover');
    assert.equal(exists.status, 400);
    assert.equal((exists.body as { error: { type: string } }).error.type, 'resource_already_exists_exception');
    await req('PUT', '/plain', { aliases: { plain_alias: {} } });
    const pattern = await req('POST', '/plain_alias/_rollover');
    assert.equal((pattern.body as { error: { reason: string } }).error.reason, "index name [plain] does not match pattern '^.*-\\d+$'");
  });

  test('_shrink and _split are refused with a 400 that says why', async () => {
    const shrink = await req('POST', '/merged/_shrink/merged-small', {});
    assert.equal(shrink.status, 400);
    assert.match((shrink.body as { error: { reason: string } }).error.reason, /\[_shrink\] is not supported/);
    assert.equal((await req('PUT', '/missing/_split/x', {})).status, 404);
  });
});

describe('closed indices', () => {
  test('a closed index keeps its data: listed as closed, refused for reads and writes, back with every document on _open', async () => {
    await req('PUT', '/archive', { settings: { number_of_shards: 2, number_of_replicas: 0 } });
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ i }));
    await req('POST', '/archive/_doc/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
    assert.equal((await req('POST', '/archive/_close')).status, 200);

    const cat = await req('GET', '/_cat/indices/archive?h=health,status,index,pri,docs.count&format=json');
    assert.deepEqual(cat.body, [{ health: null, status: 'close', index: 'archive', pri: null, 'docs.count': null }]);
    for (const [method, path, body] of [
      ['POST', '/archive/_search', {}],
      ['GET', '/archive/_doc/1', undefined],
      ['PUT', '/archive/_doc/new', { i: -1 }],
    ] as const) {
      const r = await req(method, path, body);
      assert.equal(r.status, 400, `${method} ${path}`);
      assert.equal((r.body as { error: { type: string } }).error.type, 'index_closed_exception', `${method} ${path}`);
    }
    // Wildcard searches skip it, and its copies are gone from _cat/shards.
    assert.equal((await req('GET', '/_cat/shards/archive')).text, '');

    // Across a restart it stays closed, with its data.
    await server.stop();
    server = await startServer([], dir);
    assert.equal((await req('GET', '/archive/_count')).status, 400);
    const opened = await req('POST', '/archive/_open');
    assert.deepEqual(opened.body, { acknowledged: true, shards_acknowledged: true });
    assert.equal(await count('archive'), 200);
    assert.deepEqual(((await req('GET', '/archive/_doc/199')).body as { _source: unknown })._source, { i: 199 });
    assert.equal((await req('PUT', '/archive/_doc/200?refresh=true', { i: 200 })).status, 201);
    assert.equal(await count('archive'), 201);
  });
});
