/**
 * A node with `xpack.security.enabled` and HTTPS: what clients see with and
 * without credentials, users and roles through the API, and index privileges
 * on search, _cat, _mget, _bulk and _msearch. The certificates are made for
 * the test by openssl; the elastic password comes from ELASTIC_PASSWORD.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../services/node/config.ts';
import { Node } from '../../services/node/node.ts';
import { Client } from '@elastic/elasticsearch';
import { Client as Client7 } from '@elastic/elasticsearch7';
import legacy from 'elasticsearch';
import { startServer, tempDir, http, type TestServer } from '../helpers/server.ts';
import { basic, httpsJson, makeCertificates, type TestCertificates } from '../helpers/tls.ts';

const ELASTIC_PASSWORD = 'changeme-elastic';

describe('security on, over HTTPS', () => {
  let server: TestServer;
  let certs: TestCertificates;
  let certDir: string;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => httpsJson(server.url, certs.ca, method, path, body, headers);
  const as = (user: string, password: string) => (method: string, path: string, body?: unknown) => call(method, path, body, basic(user, password));
  const elastic = as('elastic', ELASTIC_PASSWORD);

  before(async () => {
    certDir = await tempDir('logsearch-certs-');
    certs = makeCertificates(certDir);
    server = await startServer(
      [
        '--xpack.security.enabled', 'true',
        '--xpack.security.http.ssl.enabled', 'true',
        '--xpack.security.http.ssl.key', certs.nodeKey,
        '--xpack.security.http.ssl.certificate', certs.nodeCert,
      ],
      undefined,
      { ELASTIC_PASSWORD },
    );
    assert.match(server.url, /^https:/);
    const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    await elastic('PUT', '/passinfo-2024', { settings: { number_of_shards: 1 } });
    await elastic('PUT', '/secret', { settings: { number_of_shards: 1 } });
    const bulk = await httpsJson(
      server.url,
      certs.ca,
      'POST',
      '/_bulk?refresh=true',
      ndjson([
        { index: { _index: 'passinfo-2024', _type: '_doc', _id: 'p1' } },
        { plate: 'AB123' },
        { index: { _index: 'secret', _type: '_doc', _id: 's1' } },
        { plate: 'ZZ999' },
      ]),
      { ...basic('elastic', ELASTIC_PASSWORD), 'content-type': 'application/x-ndjson' },
    );
    assert.equal((bulk.body as { errors: boolean }).errors, false, bulk.text);
    assert.equal((await elastic('PUT', '/_xpack/security/role/passinfo_reader', { indices: [{ names: ['passinfo-*'], privileges: ['read', 'monitor'] }] })).status, 200);
    const put = await elastic('PUT', '/_xpack/security/user/reader', { password: 'reader-pw', roles: ['passinfo_reader'], full_name: 'Read Only' });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, { user: { created: true } });
  });

  after(async () => {
    await server.stop();
    await rm(certDir, { recursive: true, force: true });
  });

  test('a request without credentials is 401 with the basic challenge, in Elasticsearch shape', async () => {
    const r = await call('GET', '/');
    assert.equal(r.status, 401);
    assert.equal(r.headers['www-authenticate'], 'Basic realm="security" charset="UTF-8"');
    const reason = 'missing authentication token for REST request [/]';
    const header = { 'WWW-Authenticate': 'Basic realm="security" charset="UTF-8"' };
    assert.deepEqual(r.body, {
      error: { root_cause: [{ type: 'security_exception', reason, header }], type: 'security_exception', reason, header },
      status: 401,
    });
  });

  test('a wrong password and an unknown user are both 401 "unable to authenticate"', async () => {
    for (const [user, pw] of [['elastic', 'wrong-password'], ['nobody', 'whatever']]) {
      const r = await call('GET', '/_cluster/health', undefined, basic(user, pw));
      assert.equal(r.status, 401);
      assert.equal((r.body as { error: { reason: string } }).error.reason, `unable to authenticate user [${user}] for REST request [/_cluster/health]`);
    }
  });

  test('a plain HTTP request to the HTTPS port gets no answer in the clear', async () => {
    await assert.rejects(http(server.url.replace('https:', 'http:'), 'GET', '/'));
  });

  test('the official client connects with auth and the CA, unchanged otherwise', async () => {
    const client = new Client({ node: server.url, auth: { username: 'elastic', password: ELASTIC_PASSWORD }, ssl: { ca: certs.ca } });
    try {
      const info = await client.info();
      assert.equal(info.statusCode, 200);
      const found = await client.search({ index: 'passinfo-2024', body: { query: { match: { plate: 'AB123' } } } });
      assert.equal(found.body.hits.total, 1);
      const me = await client.transport.request({ method: 'GET', path: '/_xpack/security/_authenticate' });
      assert.equal(me.body.username, 'elastic');
      assert.deepEqual(me.body.roles, ['superuser']);
      assert.deepEqual(me.body.authentication_realm, { name: 'reserved', type: 'reserved' });
    } finally {
      await client.close();
    }
    const wrong = new Client({ node: server.url, auth: { username: 'elastic', password: 'nope-nope' }, ssl: { ca: certs.ca } });
    try {
      await assert.rejects(wrong.info(), (err: { meta?: { statusCode?: number } }) => err.meta?.statusCode === 401);
    } finally {
      await wrong.close();
    }
  });

  test('the 7.x client and the legacy elasticsearch 16 client connect over HTTPS with basic auth, unchanged otherwise', async () => {
    const seven = new Client7({ node: server.url, auth: { username: 'elastic', password: ELASTIC_PASSWORD }, ssl: { ca: certs.ca } });
    try {
      const found = await seven.search({ index: 'passinfo-2024', body: { query: { match: { plate: 'AB123' } } } });
      assert.equal((found.body.hits.total as unknown as number), 1);
      const me = await seven.security.authenticate();
      assert.equal(me.body.username, 'elastic');
    } finally {
      await seven.close();
    }
    const { hostname, port } = new URL(server.url);
    const old = new legacy.Client({
      host: `https://elastic:${ELASTIC_PASSWORD}@${hostname}:${port}`,
      ssl: { ca: certs.ca.toString() },
      apiVersion: '6.8',
      log: [],
    });
    try {
      const found = (await old.search({ index: 'passinfo-2024', body: { query: { match: { plate: 'AB123' } } } })) as { hits: { total: number } };
      assert.equal(found.hits.total, 1);
    } finally {
      old.close();
    }
    const refused = new legacy.Client({
      host: `https://elastic:nope-nope@${hostname}:${port}`,
      ssl: { ca: certs.ca.toString() },
      apiVersion: '6.8',
      log: [],
    });
    try {
      await assert.rejects(refused.info({}), (err: { status?: number }) => err.status === 401);
    } finally {
      refused.close();
    }
  });

  test('_authenticate tells a native user who it is', async () => {
    const r = await as('reader', 'reader-pw')('GET', '/_security/_authenticate');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      username: 'reader',
      roles: ['passinfo_reader'],
      full_name: 'Read Only',
      email: null,
      metadata: {},
      enabled: true,
      authentication_realm: { name: 'native', type: 'native' },
      lookup_realm: { name: 'native', type: 'native' },
    });
  });

  test('a user limited to passinfo-* sees only those indices in _search on *, _cat/indices and _count', async () => {
    const reader = as('reader', 'reader-pw');
    const all = await reader('GET', '/*/_search');
    assert.equal(all.status, 200, all.text);
    const hits = (all.body as { hits: { hits: { _index: string }[] } }).hits.hits;
    assert.deepEqual(hits.map((h) => h._index), ['passinfo-2024']);
    const noIndex = await reader('GET', '/_search');
    assert.deepEqual((noIndex.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id), ['p1']);
    const cat = await reader('GET', '/_cat/indices?h=index');
    assert.equal(cat.status, 200, cat.text);
    assert.deepEqual(cat.text.trim().split('\n'), ['passinfo-2024']);
    const count = await reader('GET', '/_count');
    assert.equal((count.body as { count: number }).count, 1);
  });

  test('naming an index the user may not read is 403 with the action and the user', async () => {
    const r = await as('reader', 'reader-pw')('GET', '/secret/_search');
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, {
      error: {
        root_cause: [{ type: 'security_exception', reason: 'action [indices:data/read/search] is unauthorized for user [reader]' }],
        type: 'security_exception',
        reason: 'action [indices:data/read/search] is unauthorized for user [reader]',
      },
      status: 403,
    });
    const doc = await as('reader', 'reader-pw')('GET', '/secret/_doc/s1');
    assert.equal(doc.status, 403);
    assert.equal((doc.body as { error: { reason: string } }).error.reason, 'action [indices:data/read/get] is unauthorized for user [reader]');
  });

  test('_mget answers the readable documents and fails the others one by one', async () => {
    const r = await as('reader', 'reader-pw')('POST', '/_mget', { docs: [{ _index: 'passinfo-2024', _type: '_doc', _id: 'p1' }, { _index: 'secret', _type: '_doc', _id: 's1' }] });
    assert.equal(r.status, 200, r.text);
    const docs = (r.body as { docs: Record<string, unknown>[] }).docs;
    assert.equal(docs[0].found, true);
    assert.deepEqual(docs[0]._source, { plate: 'AB123' });
    assert.equal(docs[1]._index, 'secret');
    assert.equal((docs[1].error as { type: string }).type, 'security_exception');
    assert.equal((docs[1].error as { reason: string }).reason, 'action [indices:data/read/mget[shard]] is unauthorized for user [reader]');
    assert.equal(docs[1]._source, undefined);
  });

  test('a read-only user can search but each of its bulk items fails with 403', async () => {
    const lines = [
      { index: { _index: 'passinfo-2024', _type: '_doc', _id: 'r1' } },
      { plate: 'NEW1' },
      { delete: { _index: 'passinfo-2024', _type: '_doc', _id: 'p1' } },
    ];
    const r = await call('POST', '/_bulk', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', {
      ...basic('reader', 'reader-pw'),
      'content-type': 'application/x-ndjson',
    });
    assert.equal(r.status, 200, r.text);
    const body = r.body as { errors: boolean; items: Record<string, { status: number; error: { type: string; reason: string } }>[] };
    assert.equal(body.errors, true);
    assert.deepEqual(
      body.items.map((it) => Object.values(it)[0]).map((it) => [it.status, it.error.type, it.error.reason]),
      [
        [403, 'security_exception', 'action [indices:data/write/bulk[s]] is unauthorized for user [reader]'],
        [403, 'security_exception', 'action [indices:data/write/bulk[s]] is unauthorized for user [reader]'],
      ],
    );
    const still = await as('elastic', ELASTIC_PASSWORD)('GET', '/passinfo-2024/_doc/p1');
    assert.equal((still.body as { found: boolean }).found, true);
  });

  test('_msearch fails the search on a forbidden index alone', async () => {
    const lines = [{ index: 'passinfo-2024' }, { query: { match_all: {} } }, { index: 'secret' }, { query: { match_all: {} } }];
    const r = await call('POST', '/_msearch', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', {
      ...basic('reader', 'reader-pw'),
      'content-type': 'application/x-ndjson',
    });
    assert.equal(r.status, 200, r.text);
    const responses = (r.body as { responses: { status: number; hits?: { total: number }; error?: { reason: string } }[] }).responses;
    assert.equal(responses[0].status, 200);
    assert.equal(responses[0].hits!.total, 1);
    assert.equal(responses[1].status, 403);
    assert.equal(responses[1].error!.reason, 'action [indices:data/read/search] is unauthorized for user [reader]');
  });

  test('cluster actions need a cluster privilege', async () => {
    const r = await as('reader', 'reader-pw')('GET', '/_cluster/health');
    assert.equal(r.status, 403);
    assert.equal((r.body as { error: { reason: string } }).error.reason, 'action [cluster:monitor/health] is unauthorized for user [reader]');
    const users = await as('reader', 'reader-pw')('GET', '/_xpack/security/user');
    assert.equal(users.status, 403);
  });

  test('a writer can index into its pattern and creating an index elsewhere is refused', async () => {
    await elastic('PUT', '/_xpack/security/role/passinfo_writer', { indices: [{ names: ['passinfo-*'], privileges: ['write', 'create_index'] }] });
    await elastic('PUT', '/_xpack/security/user/writer', { password: 'writer-pw', roles: ['passinfo_writer'] });
    const writer = as('writer', 'writer-pw');
    const ok = await writer('PUT', '/passinfo-2025/_doc/w1?refresh=true', { plate: 'W1' });
    assert.equal(ok.status, 201, ok.text);
    const elsewhere = await writer('PUT', '/other/_doc/w1', { plate: 'W1' });
    assert.equal(elsewhere.status, 403);
    assert.equal((elsewhere.body as { error: { reason: string } }).error.reason, 'action [indices:data/write/index] is unauthorized for user [writer]');
    assert.equal((await elastic('HEAD', '/other')).status, 404);
  });

  test('users and roles read back in Elasticsearch shape; reserved ones refuse changes', async () => {
    const user = await elastic('GET', '/_xpack/security/user/reader');
    assert.deepEqual(user.body, { reader: { username: 'reader', roles: ['passinfo_reader'], full_name: 'Read Only', email: null, metadata: {}, enabled: true } });
    assert.equal((await elastic('GET', '/_xpack/security/user/nobody')).status, 404);
    const role = await elastic('GET', '/_xpack/security/role/passinfo_reader');
    assert.deepEqual(role.body, {
      passinfo_reader: {
        cluster: [],
        indices: [{ names: ['passinfo-*'], privileges: ['read', 'monitor'], allow_restricted_indices: false }],
        applications: [],
        run_as: [],
        metadata: {},
        transient_metadata: { enabled: true },
      },
    });
    const delElastic = await elastic('DELETE', '/_xpack/security/user/elastic');
    assert.equal(delElastic.status, 400);
    assert.equal((delElastic.body as { error: { reason: string } }).error.reason, 'user [elastic] is reserved and cannot be deleted');
    const noPassword = await elastic('PUT', '/_xpack/security/user/newbie', { roles: [] });
    assert.equal(noPassword.status, 400);
    assert.match((noPassword.body as { error: { reason: string } }).error.reason, /password must be specified unless you are updating an existing user/);
    const short = await elastic('PUT', '/_xpack/security/user/shorty', { password: '123', roles: [] });
    assert.equal(short.status, 400);
    assert.equal((short.body as { error: { type: string } }).error.type, 'action_request_validation_exception');
    const badPriv = await elastic('PUT', '/_xpack/security/role/bad', { indices: [{ names: ['x'], privileges: ['reed'] }] });
    assert.equal(badPriv.status, 400);
  });

  test('a user changes its own password; the old one stops working at once', async () => {
    await elastic('PUT', '/_xpack/security/user/changer', { password: 'first-pw', roles: [] });
    const changed = await as('changer', 'first-pw')('PUT', '/_xpack/security/user/_password', { password: 'second-pw' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await as('changer', 'first-pw')('GET', '/_xpack/security/_authenticate')).status, 401);
    assert.equal((await as('changer', 'second-pw')('GET', '/_xpack/security/_authenticate')).status, 200);
    const other = await as('changer', 'second-pw')('PUT', '/_xpack/security/user/reader/_password', { password: 'hijacked' });
    assert.equal(other.status, 403);
  });

  test('a disabled user cannot log in; a deleted one neither', async () => {
    await elastic('PUT', '/_xpack/security/user/temp', { password: 'temp-pw', roles: [] });
    assert.equal((await as('temp', 'temp-pw')('GET', '/_xpack/security/_authenticate')).status, 200);
    assert.equal((await elastic('PUT', '/_xpack/security/user/temp/_disable')).status, 200);
    assert.equal((await as('temp', 'temp-pw')('GET', '/_xpack/security/_authenticate')).status, 401);
    assert.equal((await elastic('PUT', '/_xpack/security/user/temp/_enable')).status, 200);
    assert.deepEqual((await elastic('DELETE', '/_xpack/security/user/temp')).body, { found: true });
    assert.equal((await as('temp', 'temp-pw')('GET', '/_xpack/security/_authenticate')).status, 401);
    assert.deepEqual((await elastic('DELETE', '/_xpack/security/user/temp')).body, { found: false });
  });
});

describe('API keys and scrolls, security on over plain HTTP', () => {
  let server: TestServer;
  const as = (user: string, password: string) => (method: string, path: string, body?: unknown) => http(server.url, method, path, body, basic(user, password));
  const elastic = as('elastic', ELASTIC_PASSWORD);

  before(async () => {
    server = await startServer(['--xpack.security.enabled', 'true'], undefined, { ELASTIC_PASSWORD });
    await elastic('PUT', '/passinfo-1', { settings: { number_of_shards: 2 } });
    await elastic('PUT', '/secret', { settings: { number_of_shards: 1 } });
    for (let i = 0; i < 5; i++) await elastic('PUT', `/passinfo-1/_doc/${i}`, { plate: `P${i}` });
    await elastic('PUT', '/secret/_doc/s', { plate: 'S' });
    await elastic('POST', '/_refresh');
    await elastic('PUT', '/_security/role/reader', { indices: [{ names: ['passinfo-*'], privileges: ['read'] }] });
    await elastic('PUT', '/_security/user/alice', { password: 'alice-pw', roles: ['reader'] });
    await elastic('PUT', '/_security/user/bob', { password: 'bob-pw-x', roles: ['reader'] });
  });
  after(() => server.stop());

  test('an API key authenticates the official client and is limited by its role descriptors', async () => {
    const made = await elastic('POST', '/_security/api_key', {
      name: 'ingest',
      expiration: '1d',
      role_descriptors: { only_passinfo: { indices: [{ names: ['passinfo-*'], privileges: ['read'] }] } },
    });
    assert.equal(made.status, 200, made.text);
    const key = made.body as { id: string; name: string; api_key: string; expiration: number };
    assert.equal(key.name, 'ingest');
    assert.ok(key.expiration > Date.now() + 23 * 3600_000);
    const client = new Client({ node: server.url, auth: { apiKey: { id: key.id, api_key: key.api_key } } });
    try {
      const found = await client.search({ index: 'passinfo-1', body: { query: { match_all: {} } } });
      assert.equal(found.body.hits.total, 5);
      // elastic may read secret; the key's own descriptors may not.
      await assert.rejects(client.search({ index: 'secret' }), (err: { meta?: { statusCode?: number } }) => err.meta?.statusCode === 403);
      const me = await client.transport.request({ method: 'GET', path: '/_security/_authenticate' });
      assert.equal(me.body.username, 'elastic');
      assert.deepEqual(me.body.authentication_realm, { name: '_es_api_key', type: '_es_api_key' });
    } finally {
      await client.close();
    }
    // The 7.x client's apiKey option sends the same header.
    const seven = new Client7({ node: server.url, auth: { apiKey: { id: key.id, api_key: key.api_key } } });
    try {
      const found = await seven.search({ index: 'passinfo-1', body: { query: { match_all: {} } } });
      assert.equal((found.body.hits.total as unknown as number), 5);
      await assert.rejects(seven.search({ index: 'secret' }), (err: { meta?: { statusCode?: number } }) => err.meta?.statusCode === 403);
    } finally {
      await seven.close();
    }
    const listed = await elastic('GET', `/_security/api_key?id=${key.id}`);
    const entry = (listed.body as { api_keys: Record<string, unknown>[] }).api_keys[0];
    assert.deepEqual({ ...entry, creation: 0 }, { id: key.id, name: 'ingest', creation: 0, expiration: key.expiration, invalidated: false, username: 'elastic', realm: 'reserved' });
    assert.equal(JSON.stringify(listed.body).includes(key.api_key), false, 'the secret is never shown again');
    const gone = await elastic('DELETE', '/_security/api_key', { id: key.id });
    assert.deepEqual(gone.body, { invalidated_api_keys: [key.id], previously_invalidated_api_keys: [], error_count: 0 });
    const after = await http(server.url, 'GET', '/passinfo-1/_search', undefined, { authorization: `ApiKey ${Buffer.from(`${key.id}:${key.api_key}`).toString('base64')}` });
    assert.equal(after.status, 401);
  });

  test('an API key cannot do more than its owner could', async () => {
    const made = await as('alice', 'alice-pw')('POST', '/_security/api_key', { name: 'wide', role_descriptors: { all: { indices: [{ names: ['*'], privileges: ['all'] }] } } });
    // alice lacks manage_api_key: refused.
    assert.equal(made.status, 403);
    await elastic('PUT', '/_security/role/key_maker', { cluster: ['manage_api_key'] });
    await elastic('PUT', '/_security/user/carol', { password: 'carol-pw', roles: ['reader', 'key_maker'] });
    const key = (await as('carol', 'carol-pw')('POST', '/_security/api_key', { name: 'wide', role_descriptors: { all: { indices: [{ names: ['*'], privileges: ['all'] }] } } })).body as { id: string; api_key: string };
    const auth = { authorization: `ApiKey ${Buffer.from(`${key.id}:${key.api_key}`).toString('base64')}` };
    assert.equal((await http(server.url, 'GET', '/passinfo-1/_search', undefined, auth)).status, 200);
    assert.equal((await http(server.url, 'GET', '/secret/_search', undefined, auth)).status, 403);
    assert.equal((await http(server.url, 'PUT', '/passinfo-1/_doc/x', { a: 1 }, auth)).status, 403);
    assert.equal((await http(server.url, 'GET', '/_search', undefined, { authorization: 'ApiKey ' + Buffer.from(`${key.id}:wrong`).toString('base64') })).status, 401);
  });

  test('_aliases, _reindex and _mtermvectors check every index they name', async () => {
    await elastic('PUT', '/_security/role/passinfo_admin', { indices: [{ names: ['passinfo-*'], privileges: ['all'] }] });
    await elastic('PUT', '/_security/user/dave', { password: 'dave-pw', roles: ['passinfo_admin'] });
    const dave = as('dave', 'dave-pw');
    const own = await dave('POST', '/_aliases', { actions: [{ add: { index: 'passinfo-1', alias: 'passinfo-current' } }] });
    assert.equal(own.status, 200, own.text);
    const other = await dave('POST', '/_aliases', { actions: [{ add: { index: 'secret', alias: 'passinfo-leak' } }] });
    assert.equal(other.status, 403);
    assert.equal((other.body as { error: { reason: string } }).error.reason, 'action [indices:admin/aliases] is unauthorized for user [dave]');
    // An alias name outside the privileges is refused too: it would make the index reachable under another name.
    assert.equal((await dave('POST', '/_aliases', { actions: [{ add: { index: 'passinfo-1', alias: 'public' } }] })).status, 403);
    const reindexOwn = await dave('POST', '/_reindex?refresh=true', { source: { index: 'passinfo-1' }, dest: { index: 'passinfo-copy' } });
    assert.equal(reindexOwn.status, 200, reindexOwn.text);
    assert.equal((reindexOwn.body as { created: number }).created, 5);
    const reindexSecret = await dave('POST', '/_reindex', { source: { index: 'secret' }, dest: { index: 'passinfo-stolen' } });
    assert.equal(reindexSecret.status, 403);
    assert.equal((reindexSecret.body as { error: { reason: string } }).error.reason, 'action [indices:data/read/search] is unauthorized for user [dave]');
    assert.equal((await dave('POST', '/_reindex', { source: { index: 'passinfo-1' }, dest: { index: 'secret' } })).status, 403);
    assert.equal((await elastic('GET', '/secret/_count')).body && ((await elastic('GET', '/secret/_count')).body as { count: number }).count, 1);
    const mtv = await dave('POST', '/_mtermvectors', { docs: [{ _index: 'passinfo-1', _type: '_doc', _id: '1' }, { _index: 'secret', _type: '_doc', _id: 's' }] });
    assert.equal(mtv.status, 200, mtv.text);
    const docs = (mtv.body as { docs: { found?: boolean; error?: { type: string } }[] }).docs;
    assert.equal(docs[0].found, true);
    assert.equal(docs[1].error?.type, 'security_exception');
  });

  test('_has_privileges answers for the user itself, per privilege and index', async () => {
    const r = await as('alice', 'alice-pw')('POST', '/_security/user/_has_privileges', {
      cluster: ['monitor'],
      index: [{ names: ['passinfo-1', 'secret', '__proto__'], privileges: ['read', 'write'] }],
    });
    assert.equal(r.status, 200, r.text);
    // JSON.parse makes `__proto__` an own key, as the response has it (an object literal would set the prototype).
    const expected: unknown = JSON.parse(
      '{"username":"alice","has_all_requested":false,"cluster":{"monitor":false},"index":{"passinfo-1":{"read":true,"write":false},"secret":{"read":false,"write":false},"__proto__":{"read":false,"write":false}},"application":{}}',
    );
    assert.deepEqual(r.body, expected);
    assert.equal(({} as Record<string, unknown>).read, undefined, 'nothing reached Object.prototype');
    const mine = await as('alice', 'alice-pw')('POST', '/_xpack/security/user/alice/_has_privileges', { index: [{ names: ['passinfo-*'], privileges: ['read'] }] });
    assert.equal((mine.body as { has_all_requested: boolean }).has_all_requested, true);
    assert.equal((await as('alice', 'alice-pw')('POST', '/_xpack/security/user/bob/_has_privileges', { cluster: ['all'] })).status, 400);
    const everything = await elastic('POST', '/_security/user/_has_privileges', { cluster: ['all', 'manage_security'], index: [{ names: ['*'], privileges: ['all'] }] });
    assert.equal((everything.body as { has_all_requested: boolean }).has_all_requested, true);
  });

  test('a scroll belongs to the user who opened it', async () => {
    const first = await as('alice', 'alice-pw')('POST', '/passinfo-1/_search?scroll=1m', { size: 2, sort: ['_doc'] });
    assert.equal(first.status, 200, first.text);
    const id = (first.body as { _scroll_id: string })._scroll_id;
    const next = await as('alice', 'alice-pw')('POST', '/_search/scroll', { scroll: '1m', scroll_id: id });
    assert.equal(next.status, 200, next.text);
    assert.equal((next.body as { hits: { hits: unknown[] } }).hits.hits.length, 2);
    assert.equal((next.body as { _scroll_id: string })._scroll_id, id);
    const stolen = await as('bob', 'bob-pw-x')('POST', '/_search/scroll', { scroll: '1m', scroll_id: id });
    assert.equal(stolen.status, 404);
    assert.equal((stolen.body as { error: { type: string } }).error.type, 'search_context_missing_exception');
    const stripped = await as('bob', 'bob-pw-x')('POST', '/_search/scroll', { scroll: '1m', scroll_id: id.slice(0, id.lastIndexOf('.')) });
    assert.equal(stripped.status, 404);
    assert.equal((await as('bob', 'bob-pw-x')('DELETE', '/_search/scroll', { scroll_id: [id] })).status, 404);
    const cleared = await as('alice', 'alice-pw')('DELETE', '/_search/scroll', { scroll_id: [id] });
    assert.equal(cleared.status, 200, cleared.text);
  });
});

describe('security off (the default)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.stop());

  test('requests need no credentials and garbage Authorization headers are ignored', async () => {
    assert.equal((await http(server.url, 'GET', '/')).status, 200);
    assert.equal((await http(server.url, 'GET', '/', undefined, { authorization: 'Basic !!!garbage' })).status, 200);
  });

  test('the security APIs answer as 6.8 does on a basic license without security', async () => {
    const r = await http(server.url, 'GET', '/_xpack/security/_authenticate');
    assert.equal(r.status, 500);
    assert.equal((r.body as { error: { type: string; reason: string } }).error.type, 'exception');
    assert.match((r.body as { error: { reason: string } }).error.reason, /^Security must be explicitly enabled when using a \[basic\] license/);
  });
});

test('a cluster node with security on and no transport TLS refuses to start, naming the settings', async () => {
  const dir = await tempDir();
  try {
    const config = loadConfig(['--path.data', dir, '--path.logs', dir, '--log', 'kafka', '--brokers', '127.0.0.1:1', '--xpack.security.enabled', 'true'], {});
    await assert.rejects(Node.start(config, { logger: pino({ level: 'silent' }) }), (err: unknown) => err instanceof ConfigError && /Transport SSL must be enabled if security is enabled on a \[basic\] license/.test(err.message));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an HTTPS key file that is not PEM stops the node with the setting named', async () => {
  const dir = await tempDir();
  try {
    const bad = `${dir}/not-a-key.pem`;
    await writeFile(bad, 'hello');
    const config = loadConfig(['--path.data', dir, '--path.logs', dir, '--xpack.security.http.ssl.enabled', 'true', '--xpack.security.http.ssl.key', bad, '--xpack.security.http.ssl.certificate', bad], {});
    await assert.rejects(Node.start(config, { logger: pino({ level: 'silent' }) }), (err: unknown) => err instanceof ConfigError && /xpack\.security\.http\.ssl\.key\] is not a PEM file/.test(err.message));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
