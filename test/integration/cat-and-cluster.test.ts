/**
 * `_cat` as operators use it (help, h with aliases and wildcards, s, v,
 * bytes, format, health, pri) and the cluster APIs tools read
 * (`_cluster/state`, `_cluster/stats`, `_cluster/pending_tasks`,
 * `_cluster/allocation/explain`, dynamic `search.max_open_scroll_context`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(server.url, method, path, body, headers);

before(async () => {
  server = await startServer();
  await req('PUT', '/alpha', { settings: { number_of_shards: 2, number_of_replicas: 0 }, aliases: { 'a-read': { filter: { term: { n: 1 } } }, 'a-write': { index_routing: 'r1' } } });
  await req('PUT', '/beta', { settings: { number_of_shards: 1, number_of_replicas: 1 } });
  await req('PUT', '/gamma', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ n: i }));
  await req('POST', '/alpha/_doc/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  await req('PUT', '/beta/_doc/1?refresh=true', { n: 1 });
  await req('POST', '/gamma/_close');
});
after(async () => {
  await server.stop();
});

describe('_cat', () => {
  test('help lists every column with its aliases and description', async () => {
    const r = await req('GET', '/_cat/indices?help');
    assert.equal(r.status, 200);
    const lines = r.text.trimEnd().split('\n');
    assert.match(lines[0]!, /^health +\| h +\| current health status *$/);
    assert.ok(lines.some((l) => /^docs\.count +\| dc,docsCount +\| available docs/.test(l)));
    assert.ok(lines.some((l) => /^pri\.store\.size +\| +\| store size of primaries/.test(l)));
  });

  test('h takes names, aliases and wildcards; s sorts by value, :desc reverses; v prints the header', async () => {
    const r = await req('GET', '/_cat/indices?v&h=i,s,p,dc&s=dc:desc,i');
    // Right-aligned columns pad on the left, also when empty: the closed index's line ends in blanks, as Elasticsearch prints it.
    assert.equal(r.text, ['i     s     p dc', 'alpha open  2 30', 'beta  open  1  1', 'gamma close     ', ''].join('\n'));
    const wild = await req('GET', '/_cat/nodes?h=heap.*&format=json');
    assert.deepEqual(Object.keys((wild.body as Record<string, string>[])[0]!), ['heap.current', 'heap.percent', 'heap.max']);
  });

  test('closed indices are listed as closed; health= keeps open indices of that health', async () => {
    const r = await req('GET', '/_cat/indices?h=health,status,index&s=index&format=json');
    assert.deepEqual(r.body, [
      { health: 'green', status: 'open', index: 'alpha' },
      { health: 'yellow', status: 'open', index: 'beta' },
      { health: null, status: 'close', index: 'gamma' },
    ]);
    assert.equal((await req('GET', '/_cat/indices?health=yellow&h=index')).text, 'beta\n');
    assert.equal((await req('GET', '/_cat/indices?health=purple')).status, 400);
  });

  test('bytes prints sizes in one unit; pri adds the primaries column beside a statistic', async () => {
    const stats = (await req('GET', '/alpha/_stats/store')).body as { _all: { total: { store: { size_in_bytes: number } } } };
    const r = await req('GET', '/_cat/indices/alpha?h=ss&pri&bytes=b&format=json');
    const size = String(stats._all.total.store.size_in_bytes);
    assert.deepEqual(r.body, [{ ss: size, 'pri.ss': size }]);
  });

  test('_cat/shards lists an unassigned replica as r and _cat/aliases shows filters and routing', async () => {
    const shards = await req('GET', '/_cat/shards/beta?h=index,shard,prirep,state,docs&format=json');
    assert.deepEqual(shards.body, [
      { index: 'beta', shard: '0', prirep: 'p', state: 'STARTED', docs: '1' },
      { index: 'beta', shard: '0', prirep: 'r', state: 'UNASSIGNED', docs: null },
    ]);
    const aliases = await req('GET', '/_cat/aliases?v&s=alias');
    assert.equal(aliases.text, ['alias   index filter routing.index routing.search', 'a-read  alpha *      -             -', 'a-write alpha -      r1            -', ''].join('\n'));
  });

  test('_cat/health, _cat/count, _cat/templates, _cat/thread_pool and _cat/allocation print their figures', async () => {
    const health = (await req('GET', '/_cat/health?h=status,shards,pri,unassign,active_shards_percent&format=json')).body as Record<string, string>[];
    assert.deepEqual(health, [{ status: 'yellow', shards: '3', pri: '3', unassign: '1', active_shards_percent: '75.0%' }]);
    assert.equal((await req('GET', '/_cat/count/alpha?h=count')).text, '30\n');
    await req('PUT', '/_template/tpl', { index_patterns: ['t-*', 'u-*'], order: 3, version: 9 });
    assert.equal((await req('GET', '/_cat/templates/tp*?h=name,index_patterns,order,version')).text, 'tpl [t-*, u-*] 3 9\n');
    const pools = (await req('GET', '/_cat/thread_pool/search,write?h=name,active,queue,rejected&format=json')).body as Record<string, string>[];
    assert.deepEqual(
      pools.map((p) => p.name),
      ['search', 'write'],
    );
    const alloc = (await req('GET', '/_cat/allocation?h=shards,node&format=json')).body as Record<string, string>[];
    assert.deepEqual(alloc, [
      { shards: '3', node: 'test-node' },
      { shards: '1', node: 'UNASSIGNED' },
    ]);
  });

  test('format=yaml and unknown sort keys', async () => {
    const yaml = await req('GET', '/_cat/master?format=yaml&h=node');
    assert.equal(yaml.text, '---\n- node: test-node\n');
    const bad = await req('GET', '/_cat/indices?s=nope');
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { error: { reason: string } }).error.reason, 'Unable to sort by unknown sort key `nope`');
  });
});

describe('cluster APIs', () => {
  test('_cluster/state holds the metadata, routing and blocks, filtered by metric and index', async () => {
    const all = (await req('GET', '/_cluster/state')).body as {
      master_node: string;
      blocks: { indices: Record<string, unknown> };
      metadata: { templates: Record<string, unknown>; indices: Record<string, { state: string; aliases: string[]; settings: { index: Record<string, string> } }> };
      routing_table: { indices: Record<string, { shards: Record<string, { state: string; primary: boolean }[]> }> };
    };
    assert.equal(all.master_node, server.node.nodeId);
    assert.deepEqual(Object.keys(all.blocks.indices), ['gamma']);
    assert.equal(all.metadata.indices.gamma!.state, 'close');
    assert.deepEqual(all.metadata.indices.alpha!.aliases, ['a-read', 'a-write']);
    assert.equal(all.metadata.indices.alpha!.settings.index.number_of_shards, '2');
    assert.ok('tpl' in all.metadata.templates);
    assert.deepEqual(
      all.routing_table.indices.beta!.shards['0']!.map((s) => [s.state, s.primary]),
      [
        ['STARTED', true],
        ['UNASSIGNED', false],
      ],
    );
    const some = (await req('GET', '/_cluster/state/metadata/alpha')).body as Record<string, unknown> & { metadata: { indices: Record<string, unknown>; templates: Record<string, unknown> } };
    assert.deepEqual(Object.keys(some.metadata.indices), ['alpha']);
    assert.deepEqual(some.metadata.templates, {});
    assert.equal(some.routing_table, undefined);
    assert.equal((await req('GET', '/_cluster/state/frobs')).status, 400);
  });

  test('_cluster/stats sums every copy and node', async () => {
    const s = (await req('GET', '/_cluster/stats')).body as {
      status: string;
      indices: { count: number; docs: { count: number }; shards: { total: number; primaries: number } };
      nodes: { count: { total: number; data: number } };
    };
    assert.equal(s.status, 'yellow');
    assert.equal(s.indices.count, 2);
    assert.equal(s.indices.docs.count, 31);
    assert.deepEqual([s.indices.shards.total, s.indices.shards.primaries], [3, 3]);
    assert.deepEqual([s.nodes.count.total, s.nodes.count.data], [1, 1]);
  });

  test('allocation/explain says why a replica is unassigned; pending_tasks is empty when the meta log is caught up', async () => {
    const e = (await req('GET', '/_cluster/allocation/explain')).body as { index: string; primary: boolean; current_state: string; can_allocate: string; node_allocation_decisions: { deciders: { decider: string }[] }[] };
    assert.deepEqual([e.index, e.primary, e.current_state, e.can_allocate], ['beta', false, 'unassigned', 'no']);
    assert.equal(e.node_allocation_decisions[0]!.deciders[0]!.decider, 'same_shard');
    assert.deepEqual((await req('GET', '/_cluster/pending_tasks')).body, { tasks: [] });
  });

  test('search.max_open_scroll_context is a dynamic cluster setting', async () => {
    assert.equal((await req('PUT', '/_cluster/settings', { transient: { 'search.max_open_scroll_context': 1 } })).status, 200);
    assert.equal((await req('POST', '/alpha/_search?scroll=1m', { size: 1 })).status, 200);
    const refused = await req('POST', '/alpha/_search?scroll=1m', { size: 1 });
    assert.equal(refused.status, 500);
    assert.match(JSON.stringify(refused.body), /Trying to create too many scroll contexts\. Must be less than or equal to: \[1\]/);
    await req('DELETE', '/_search/scroll/_all');
    await req('PUT', '/_cluster/settings', { transient: { 'search.max_open_scroll_context': null } });
    const defaults = (await req('GET', '/_cluster/settings?include_defaults&flat_settings')).body as { defaults: Record<string, string> };
    assert.equal(defaults.defaults['search.max_open_scroll_context'], '500');
  });
});
