/**
 * A fuzz run of hostile requests over every endpoint (issue 11, "Done when"):
 * starts a node in its own process on 127.0.0.1, loads a small index, then
 * sends generated requests (every route of route-table.ts with mutated
 * methods, paths, parameters, Content-Types and bodies, GET bodies
 * included) and reports the 5xx answers, hangs (no answer within 10 s), the
 * slowest answer, how long `GET /` (every 50 ms) waited meanwhile, and the
 * node's RSS before and after. With `--big`, one request in 25 is aimed at
 * its endpoint with a body whose size is the attack (a 10,000-document bulk,
 * a 5 MB document, 300 searches, a 4 MB text to analyze, 10,000 hits): what
 * to watch then is how long `GET /` waited, since such a request is long
 * work of its own on a busy machine.
 *
 *   npm run fuzz:hostile -- [--requests 1000] [--seed 1] [--concurrency 4] [--big] [--settle 30]
 *
 * Exits non-zero on a 5xx, a hang, a node that stops answering, or an RSS
 * more than 20% above where it began.
 */
import { readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { routeTable } from '../../services/node/rest/route-table.ts';
import type { Node } from '../../services/node/node.ts';
import { spawnServer, tempDir } from '../helpers/server.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const REQUESTS = arg('requests', 1000);
/** `--big`: one request in 25 aimed at its endpoint with a body whose size is the attack. */
const BIG_BODIES = args.includes('--big');
const CONCURRENCY = arg('concurrency', 4);
/** `--settle S`: how long the node may take, idle after the run, to come back within 20% of its RSS. */
const SETTLE_S = arg('settle', 2);
const HANG_MS = 10_000;
let seed = arg('seed', 1);

function rnd(n: number): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
}
function pick<T>(xs: readonly T[]): T {
  return xs[rnd(xs.length)]!;
}

const ROUTES = routeTable({} as Node).map((r) => ({ method: r.method, path: r.path }));

const NAMES = ['fz', 'fz,fz2', '_all', '*', 'fz*', '__proto__', 'constructor', '_doc', '_search', '..', '%zz', 'a'.repeat(300), '-fz', '\u0000', 'ü', '_flush'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'];
const CONTENT_TYPES = ['application/json', 'application/json', 'application/json', 'application/x-ndjson', 'text/plain', 'garbage/;;;', 'application/yaml', ''];
const PARAMS = [
  'size=-1', 'size=2147483647', 'from=100000000', 'scroll=100000d', 'scroll=1m', 'scroll=abc', 'timeout=-5s', 'refresh=maybe', 'refresh=true',
  'filter_path=**.__proto__', 'filter_path=-hits', 'pretty', 'version=abc', 'version_type=force', 'if_seq_no=1', 'routing=' + 'r'.repeat(2000),
  'q=' + '('.repeat(3000) + 'a' + ')'.repeat(3000), 'q=a:/(a+)+$/', 'q=*a*a*a*a*b', 'wait_for_status=purple', 'level=x', 'search_type=dfs',
  '_source_includes=__proto__.*', 'preference=_shards:999', 'expand_wildcards=none', 'allow_no_indices=false', 'include_type_name=false',
];

function deep(open: string, close: string, n: number, inner = '1'): string {
  return open.repeat(n) + inner + close.repeat(n);
}

/** Bodies whose size is the attack (built once): the work they cause must not hold the thread that serves HTTP. */
function buildBig() {
  return {
  /** A 2 MB bulk of 10,000 small documents (the same ids each time: the index does not grow). */
  bulk: (() => {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) lines.push(`{"index":{"_index":"fz-big","_type":"_doc","_id":"${i}"}}`, JSON.stringify({ kw: `big-${i % 500}`, msg: `a log line of some length, number ${i}, with words to index`, n: i }));
    return lines.join('\n') + '\n';
  })(),
  /** A 5 MB document of 50,000 objects. */
  document: JSON.stringify({ items: Array.from({ length: 50_000 }, (_, i) => ({ name: `item-${i}`, value: i, inner: { a: `a-${i}` } })) }),
  /** An _msearch of 300 searches (1,000 take 3.5 s beside busy cores, 4 at a time: long work, not a stall). */
  msearch: Array.from({ length: 300 }, (_, i) => `{"index":"fz"}\n{"query":{"term":{"kw":"v${i % 300}"}},"size":1}`).join('\n') + '\n',
  /** A 4 MB text to analyze. */
  analyze: JSON.stringify({ analyzer: 'standard', text: 'lorem ipsum dolor sit amet '.repeat(150_000) }),
  /** An ids query of 20,000 ids, 10,000 hits wanted. */
  ids: JSON.stringify({ query: { ids: { values: Array.from({ length: 20_000 }, (_, i) => String(i)) } }, size: 10_000 }),
  };
}
let bigBodies: ReturnType<typeof buildBig> | null = null;
/** Built on first use (only with --big). */
function big(): ReturnType<typeof buildBig> {
  return (bigBodies ??= buildBig());
}

/** Hostile JSON text, many shapes. */
function body(): string | Buffer {
  switch (rnd(BIG_BODIES ? 37 : 32)) {
    case 32:
      return big().bulk;
    case 33:
      return big().document;
    case 34:
      return big().msearch;
    case 35:
      return big().analyze;
    case 36:
      return big().ids;
    case 0:
      return `{"a":${deep('[', ']', 50_000)}}`;
    case 1:
      return `{"query":${deep('{"bool":{"must":[', ']}}', 40, '{"match_all":{}}')}}`;
    case 2:
      return '{"a":1,"a":2}';
    case 3:
      return '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}';
    case 4:
      return `{"doc":{"__proto__":{"p":"y"}},"upsert":{"constructor":1}}`;
    case 5:
      return Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    case 6:
      return '{"kw":"' + 'x'.repeat(40_000) + '"}';
    case 7:
      return '{"n":9223372036854775807,"m":1e400,"o":-0}';
    case 8:
      return '{"aggs":{"t":{"terms":{"field":"kw","size":2147483647}}}}';
    case 9:
      return '{"size":0,"aggs":{"d":{"date_histogram":{"field":"ts","interval":"1s"}}}}';
    case 10:
      return '{"query":{"wildcard":{"kw":"*a*a*a*a*a*a*a*b"}}}';
    case 11:
      return '{"query":{"regexp":{"kw":"(a+)+$"}}}';
    case 12:
      return '{"tokenizer":{"type":"pattern","pattern":"(a+)+$"},"text":"' + 'a'.repeat(28) + '!"}';
    case 13:
      return '{"char_filter":[{"type":"pattern_replace","pattern":"(a|aa)+$","replacement":"x"}],"text":"' + 'a'.repeat(40) + '!"}';
    case 14:
      return '{"index":{"_index":"fz","_type":"_doc","_id":{"a":1}}}\n{"a":1}\n';
    case 15:
      return '{"index":{"_index":"fz","_type":"_doc","_id":"' + 'x'.repeat(600) + '"}}\n{"a":1}\n';
    case 16:
      return '{"actions":[{"remove_index":{"index":"*"}}]}';
    case 17:
      return '{"settings":{"index.foo":1,"number_of_shards":-1},"mappings":{"_doc":{"properties":{"__proto__":{"type":"keyword"}}}}}';
    case 18:
      return '{"docs":[' + Array.from({ length: 2000 }, (_, i) => `{"_index":"fz","_type":"_doc","_id":"${i}"}`).join(',') + ']}';
    case 19:
      return '';
    case 20:
      return 'not json at all';
    case 21:
      return '{"query":{"match":{"kw":{"query":"a","fuzziness":"AUTO"}}},"sort":[{"__proto__":"asc"}]}';
    case 22:
      return '{"persistent":{"action.destructive_requires_name":"maybe"},"transient":{"search.max_buckets":-5}}';
    case 23:
      return JSON.stringify({ query: { terms: { kw: Array.from({ length: 5000 }, (_, i) => `v${i}`) } } });
    case 24:
      return '{"scroll_id":"' + 'A'.repeat(5000) + '","scroll":"1m"}';
    case 25:
      return '{"size":0,"aggs":{"t":{"terms":{"field":"kw","include":"(a+)+$","size":2147483647}}}}';
    case 26:
      return '{"_source":{"includes":["*a*a*a*a*a*a*a*a*b"],"excludes":["' + 'a*'.repeat(40) + 'b"]},"query":{"match_all":{}}}';
    case 27:
      return '{"mappings":{"_doc":{"dynamic_templates":[{"t":{"match_pattern":"regex","match":"(a+)+$","mapping":{"type":"keyword"}}}]}}}';
    case 28:
      return '{"n":"' + '1'.repeat(100_000) + 'x"}';
    case 29:
      return '{"size":0,"aggs":{"a":{"terms":{"field":"kw","size":10000},"aggs":{"b":{"terms":{"field":"kw","size":10000},"aggs":{"c":{"date_histogram":{"field":"ts","interval":"1s","min_doc_count":0}}}}}}}}';
    case 30:
      return '{"tokenizer":{"type":"pattern","pattern":"(?<=(a+)+)b|(x)\\\\1|[a-"},"text":"aaab"}';
    default:
      return '{"query":{"match_all":{}},"size":10}';
  }
}

/** Requests aimed at the endpoint a big body is for (a random route would mostly refuse it at once). */
function aimed(): { method: string; url: string; body: string; type: string } {
  switch (rnd(6)) {
    case 0:
      return { method: 'POST', url: '/_bulk', body: big().bulk, type: 'application/x-ndjson' };
    case 1:
      return { method: 'PUT', url: '/fz-doc/_doc/1', body: big().document, type: 'application/json' };
    case 2:
      return { method: 'POST', url: '/_msearch', body: big().msearch, type: 'application/x-ndjson' };
    case 3:
      return { method: 'POST', url: '/_analyze', body: big().analyze, type: 'application/json' };
    case 4:
      return { method: 'GET', url: `/fz/_search${rnd(2) === 0 ? '?filter_path=hits.hits._id' : ''}`, body: big().ids, type: 'application/json' };
    default:
      return { method: 'POST', url: `/fz*/_search?size=10000${rnd(2) === 0 ? '&pretty' : ''}`, body: '{"query":{"match_all":{}}}', type: 'application/json' };
  }
}

function path(template: string): string {
  let p = template.replace(/\{[a-z_]+\}/g, () => encodeURIComponent(pick(NAMES)));
  if (rnd(5) === 0) p += '/' + pick(['_explain', '_flush', '_delete_by_query', '__proto__', 'x']);
  const params: string[] = [];
  for (let i = rnd(3); i > 0; i--) params.push(pick(PARAMS));
  return params.length > 0 ? `${p}?${params.join('&')}` : p;
}

function pct(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

async function rss(pid: number, field = 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
}

interface Outcome {
  readonly status: number;
  readonly ms: number;
  readonly request: string;
  /** The start of the answer, for 5xx. */
  readonly answer?: string;
}

/** One request over node:http (fetch cannot send a GET's body, and Elasticsearch clients do); a hang is an answer not complete within HANG_MS. */
async function send(base: string, method: string, url: string, b: string | Buffer | null, type: string): Promise<Outcome> {
  const started = performance.now();
  const headers: Record<string, string> = {};
  if (b !== null && type !== '') headers['content-type'] = type;
  const payload = b === null || method === 'HEAD' ? null : Buffer.isBuffer(b) ? b : Buffer.from(b);
  if (payload !== null) headers['content-length'] = String(payload.length);
  const shown = b === null ? '' : typeof b === 'string' ? b.slice(0, 80) : b.toString('utf8', 0, 80);
  const request = `${method} ${url.slice(0, 160)} [${type}] ${shown}${b !== null && b.length > 80 ? ` (${b.length} bytes)` : ''}`;
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const finish = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = httpRequest(base + url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        // Only the start of an answer is kept (a 5xx is printed); the rest is counted.
        if (size < 4096) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        finish({ status, ms: performance.now() - started, request, answer: status >= 500 ? Buffer.concat(chunks).toString('utf8').slice(0, 300) : undefined });
      });
      res.on('error', (err) => finish({ status: 0, ms: performance.now() - started, request: `${request} (${err.message})` }));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: -1, ms: performance.now() - started, request: `${request} (no answer within ${HANG_MS / 1000} s)` });
    }, HANG_MS);
    req.on('error', (err) => finish({ status: 0, ms: performance.now() - started, request: `${request} (${err.message})` }));
    req.end(payload ?? undefined);
  });
}

async function main(): Promise<void> {
  const dir = await tempDir('fuzz-');
  const server = await spawnServer(dir, ['--node.processors', '1']);
  const base = server.url;
  const pid = server.child.pid!;
  try {
    await send(base, 'PUT', '/fz', JSON.stringify({ settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { kw: { type: 'keyword' }, ts: { type: 'date' } } } } }), 'application/json');
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ kw: `v${i % 300}`, ts: 1_700_000_000_000 + i * 1000, n: i }));
    await send(base, 'POST', '/fz/_doc/_bulk?refresh=true', lines.join('\n') + '\n', 'application/x-ndjson');
    const outcomes: Outcome[] = [];
    let next = 0;
    let until = 0;
    const worker = async () => {
      while (next < until) {
        next++;
        let method: string;
        let url: string;
        let b: string | Buffer | null;
        let type: string;
        if (BIG_BODIES && rnd(25) === 0) {
          ({ method, url, body: b, type } = aimed());
        } else {
          const route = pick(ROUTES);
          method = rnd(4) === 0 ? pick(METHODS) : route.method;
          b = rnd(5) === 0 ? null : body();
          url = path(route.path);
          type = pick(CONTENT_TYPES);
        }
        let o = await send(base, method, url, b, type);
        // A HEAD answer has no body: ask again with GET to see which error a 5xx was.
        if (o.status >= 500 && method === 'HEAD') {
          const again = await send(base, 'GET', url, null, type);
          o = { ...o, answer: `(as GET: ${again.status}) ${again.answer ?? ''}` };
        }
        outcomes.push(o);
      }
    };
    // A first tenth warms the node up (code compiled, caches and pools at their working size); RSS is measured from there.
    until = Math.ceil(REQUESTS / 10);
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await new Promise((r) => setTimeout(r, 2000));
    const rssBefore = await rss(pid);
    const anonBefore = await rss(pid, 'RssAnon');
    until = REQUESTS;
    const started = Date.now();
    // `GET /` every 50 ms through the run: how long the hostile requests held the node from answering others.
    const probes: number[] = [];
    let running = true;
    const probe = (async () => {
      while (running) {
        probes.push((await send(base, 'GET', '/', null, '')).ms);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    running = false;
    await probe;
    const elapsed = Date.now() - started;
    const alive = await send(base, 'GET', '/', null, '');
    // "Back within 20%": the node is given up to --settle seconds without requests (its refreshes,
    // commits, collections and allocator trims run), sampled each second until it is back.
    let rssAfter = 0;
    let anonAfter = 0;
    let settledIn = 0;
    for (; settledIn < Math.max(2, SETTLE_S); settledIn++) {
      await new Promise((r) => setTimeout(r, 1000));
      rssAfter = await rss(pid);
      anonAfter = await rss(pid, 'RssAnon');
      if (settledIn >= 1 && rssAfter <= rssBefore * 1.2) break;
    }

    const byStatus = new Map<number, number>();
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    // Elasticsearch's documented 5xx: 503 while a shard has no started copy (an index the run deleted and a write re-created);
    // the security APIs with security off answer 500 as 6.8 does on a basic license (docs/security.md).
    const documented = (o: Outcome) =>
      (o.status === 503 && /no_shard_available_action_exception|unavailable_shards_exception|search_phase_execution_exception/.test(o.answer ?? '')) ||
      // (A filter_path may have emptied the body: the security APIs' path says it too.)
      (o.status === 500 && (/Security must be explicitly enabled when using a \[basic\] license/.test(o.answer ?? '') || /^\w+ \/_(xpack\/)?security\//.test(o.request)));
    const fivexx = outcomes.filter((o) => o.status >= 500 && !documented(o));
    const documented5xx = outcomes.filter((o) => o.status >= 500 && documented(o));
    const hangs = outcomes.filter((o) => o.status === -1);
    const slowest = outcomes.reduce((a, b) => (b.ms > a.ms ? b : a));
    const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    const mb = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
    const rows: [string, string][] = [
      ['requests', `${outcomes.length} in ${(elapsed / 1000).toFixed(1)} s (seed ${arg('seed', 1)}, concurrency ${CONCURRENCY})`],
      ['statuses', [...byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s === -1 ? 'hang' : s === 0 ? 'no answer' : s}: ${n}`).join(', ')],
      ['5xx', `${fivexx.length} (and ${documented5xx.length} documented: 503 no started copy yet, 500 security APIs with security off)`],
      ['hangs (> 10 s)', String(hangs.length)],
      ['p50 / p99 / max', `${ms[Math.floor(ms.length / 2)]!.toFixed(1)} / ${ms[Math.floor(ms.length * 0.99)]!.toFixed(1)} / ${slowest.ms.toFixed(1)} ms`],
      ['slowest', slowest.request],
      ['GET / meanwhile p50/p99/max', `${pct(probes, 50).toFixed(1)} / ${pct(probes, 99).toFixed(1)} / ${Math.max(...probes).toFixed(1)} ms (${probes.length} probes)`],
      ['node answers GET / after', String(alive.status)],
      ['RSS after warm-up / end', `${mb(rssBefore)} / ${mb(rssAfter)} (${(((rssAfter - rssBefore) / rssBefore) * 100).toFixed(1)}%, ${settledIn + 1} s idle after the run)`],
      // Mapped segment files count in RSS; the anonymous part is the heaps (what a leak would grow).
      ['  of it anonymous', `${mb(anonBefore)} / ${mb(anonAfter)} (${(((anonAfter - anonBefore) / anonBefore) * 100).toFixed(1)}%)`],
    ];
    for (const [k, v] of rows) process.stdout.write(`${k.padEnd(26)} ${v}\n`);
    for (const o of [...fivexx, ...hangs, ...documented5xx].slice(0, 20)) process.stdout.write(`  ${o.status} ${o.request}\n    -> ${o.answer ?? ''}\n`);
    const failed = fivexx.length > 0 || hangs.length > 0 || alive.status !== 200 || rssAfter > rssBefore * 1.2 || Math.max(...probes) > HANG_MS;
    process.exitCode = failed ? 1 : 0;
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
