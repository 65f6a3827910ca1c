/**
 * The console page, as Kibana's Dev Tools: a method, a path (completed from
 * the node's endpoints and index names), a JSON body checked as it is typed
 * (NDJSON for `_bulk` and `_msearch`), field names of the index's mapping
 * completed in the body (a popup as a string is typed, completion.ts) or
 * inserted with a button, a history of requests kept in this browser, and
 * the response with status and time, pretty-printed; `_cat` pages are shown
 * as tables.
 */
import { request, type ApiResponse } from './api.ts';
import { attachCompletion, caretBelow } from './completion.ts';
import { fill, h, table } from './dom.ts';
import { millis } from './format.ts';

const HISTORY_KEY = 'logsearch.console.history';
const HISTORY_SIZE = 50;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD'];

/** Endpoints offered as paths; `{index}` becomes each index name. */
const ENDPOINTS = [
  '/',
  '/_cluster/health',
  '/_cluster/state',
  '/_cluster/settings',
  '/_cluster/stats',
  '/_nodes',
  '/_nodes/stats',
  '/_stats',
  '/_search',
  '/_msearch',
  '/_bulk',
  '/_aliases',
  '/_mapping',
  '/_template',
  '/_tasks',
  '/_cat/health',
  '/_cat/nodes',
  '/_cat/indices',
  '/_cat/shards',
  '/_cat/aliases',
  '/_cat/count',
  '/_cat/segments',
  '/_cat/recovery',
  '/_cat/allocation',
  '/_cat/templates',
  '/_cat/thread_pool',
  '/{index}',
  '/{index}/_search',
  '/{index}/_count',
  '/{index}/_mapping',
  '/{index}/_settings',
  '/{index}/_stats',
  '/{index}/_doc',
  '/{index}/_doc/{id}',
  '/{index}/_bulk',
  '/{index}/_refresh',
  '/{index}/_flush',
  '/{index}/_forcemerge',
  '/{index}/_delete_by_query',
  '/{index}/_update_by_query',
  '/{index}/_validate/query',
  '/{index}/_field_caps',
];

interface Entry {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

function loadHistory(): Entry[] {
  try {
    const v = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? (v.filter((e) => e && typeof e.method === 'string' && typeof e.path === 'string' && typeof e.body === 'string') as Entry[]) : [];
  } catch {
    return [];
  }
}

function remember(e: Entry): Entry[] {
  const list = [e, ...loadHistory().filter((x) => x.method !== e.method || x.path !== e.path || x.body !== e.body)].slice(0, HISTORY_SIZE);
  localStorage.setItem(HISTORY_KEY, JSON.stringify(list));
  return list;
}

const isNdjson = (path: string) => /(^|\/)_(bulk|msearch)(\?|$)/.test(path);

/** Line and column of a JSON.parse error's `position N`, when the browser gives one. */
function where(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return '';
  const pos = Number(m[1]);
  const before = text.slice(0, pos).split('\n');
  return ` (line ${before.length}, column ${before[before.length - 1].length + 1})`;
}

/** null when the body is valid for the path, else what is wrong and where. */
export function bodyProblem(path: string, body: string): string | null {
  if (body.trim() === '') return null;
  if (isNdjson(path)) {
    const lines = body.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() === '') continue;
      try {
        JSON.parse(lines[i]);
      } catch (err) {
        return `line ${i + 1}: ${(err as Error).message}`;
      }
    }
    return null;
  }
  try {
    JSON.parse(body);
    return null;
  } catch (err) {
    return `${(err as Error).message}${where(body, (err as Error).message)}`;
  }
}

/** Leaf field names of a `_mapping` answer (`a.b` for objects), for completion. */
function fieldNames(mapping: unknown): string[] {
  const out = new Set<string>();
  const walk = (props: unknown, prefix: string) => {
    if (!props || typeof props !== 'object') return;
    for (const [name, def] of Object.entries(props as Record<string, unknown>)) {
      const d = def as { properties?: unknown; fields?: Record<string, unknown> };
      if (d && d.properties) walk(d.properties, `${prefix}${name}.`);
      else out.add(`${prefix}${name}`);
      if (d && d.fields) for (const sub of Object.keys(d.fields)) out.add(`${prefix}${name}.${sub}`);
    }
  };
  for (const idx of Object.values((mapping ?? {}) as Record<string, { mappings?: Record<string, { properties?: unknown }> }>)) {
    for (const type of Object.values(idx.mappings ?? {})) walk(type.properties, '');
  }
  return [...out].sort();
}

function statusText(status: number): string {
  const texts: Record<number, string> = { 200: 'OK', 201: 'Created', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };
  return texts[status] ?? '';
}

export function consolePage(root: HTMLElement): () => void {
  const method = h('select', { id: 'req-method', name: 'method' }, METHODS.map((m) => h('option', { value: m }, m)));
  const path = h('input', { id: 'req-path', name: 'path', value: '/_cluster/health', autocomplete: 'off', spellcheck: 'false', class: 'path' });
  const body = h('textarea', { id: 'req-body', name: 'body', rows: 14, spellcheck: 'false', 'aria-describedby': 'completion-help', placeholder: '{ "query": { "match_all": {} } }' });
  const check = h('p', { id: 'body-check', class: 'muted', 'aria-live': 'polite' }, 'Empty body');
  const fields = h('div', { id: 'fields', class: 'chips', 'aria-label': 'Fields of the index' });
  const status = h('p', { id: 'resp-status', 'aria-live': 'polite' });
  const output = h('pre', { id: 'resp-body', tabindex: 0, 'aria-label': 'Response body' });
  const tableBox = h('div', { id: 'resp-table' });
  const historyList = h('ol', { id: 'history', class: 'history' });
  let indexNames: string[] = [];
  let endpointPaths: string[] = ENDPOINTS.filter((e) => !e.includes('{'));
  let fieldList: string[] = [];
  let mappingFor = '';

  const renderHistory = (list: Entry[]) =>
    fill(
      historyList,
      list.map((e) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => {
                method.value = e.method;
                path.value = e.path;
                body.value = e.body;
                onBodyInput();
                void onPathChange();
              },
            },
            `${e.method} ${e.path}`,
          ),
        ),
      ),
    );

  const onBodyInput = () => {
    const problem = bodyProblem(path.value, body.value);
    check.className = problem ? 'error' : 'muted';
    check.textContent = body.value.trim() === '' ? 'Empty body' : problem ? `Invalid JSON: ${problem}` : isNdjson(path.value) ? 'Valid NDJSON' : 'Valid JSON';
    body.setAttribute('aria-invalid', problem ? 'true' : 'false');
  };

  const insertField = (name: string) => {
    const at = body.selectionStart ?? body.value.length;
    body.value = `${body.value.slice(0, at)}"${name}"${body.value.slice(body.selectionEnd ?? at)}`;
    body.focus();
    body.selectionStart = body.selectionEnd = at + name.length + 2;
    onBodyInput();
  };

  /** Offers the fields of the index the path names (its first segment), read from `_mapping` once per index. */
  const onPathChange = async () => {
    const first = decodeURIComponent(path.value.replace(/^\//, '').split(/[/?]/)[0] ?? '');
    if (first === mappingFor) return;
    mappingFor = first;
    if (first === '' || first.startsWith('_')) {
      fieldList = [];
      fill(fields);
      return;
    }
    const res = await request('GET', `/${encodeURIComponent(first)}/_mapping`, undefined, 'application/json', { poll: true });
    if (mappingFor !== first) return;
    const names = res.status === 200 ? fieldNames(res.json) : [];
    fieldList = names;
    fill(fields, names.length ? [h('span', { class: 'muted' }, `Fields of ${first}: `), names.map((n) => h('button', { type: 'button', class: 'chip', onclick: () => insertField(n) }, n))] : null);
  };

  const loadEndpoints = async () => {
    const res = await request('GET', '/_cat/indices?format=json&h=index&s=index&expand_wildcards=all', undefined, 'application/json', { poll: true });
    const rows = Array.isArray(res.json) ? (res.json as { index?: string }[]) : [];
    indexNames = rows.map((r) => r.index ?? '').filter((n) => n !== '');
    endpointPaths = ENDPOINTS.flatMap((e) => (e.includes('{index}') ? indexNames.map((n) => e.replace('{index}', n)) : [e]));
  };

  // Completion in the path: the endpoints (with the index names) that start with what is typed.
  const pathCompletion = attachCompletion(path, {
    label: 'Endpoints',
    offer: () => {
      const typed = path.value.slice(0, path.selectionStart ?? path.value.length);
      const items = endpointPaths.filter((p) => p.startsWith(typed) && p !== typed);
      return { items, top: path.offsetHeight + 2, left: 0 };
    },
    accept: (p) => {
      path.value = p;
      path.selectionStart = path.selectionEnd = p.length;
      onBodyInput();
      void onPathChange();
    },
  });

  /** The string the caret is in on its line (after an opening quote), or null outside a string. */
  const openString = (): { start: number; typed: string } | null => {
    const at = body.selectionStart ?? 0;
    if (at !== (body.selectionEnd ?? at)) return null;
    const lineStart = body.value.lastIndexOf('\n', at - 1) + 1;
    let quote = -1;
    for (let i = lineStart; i < at; i++) {
      const c = body.value[i];
      if (c === '\\') i++;
      else if (c === '"') quote = quote < 0 ? i : -1;
    }
    return quote < 0 ? null : { start: quote + 1, typed: body.value.slice(quote + 1, at) };
  };

  // Completion in the body: inside a string, the mapping's field names that start with (then contain) what is typed.
  const bodyCompletion = attachCompletion(body, {
    label: 'Fields',
    offer: () => {
      const s = openString();
      if (s === null || fieldList.length === 0) return null;
      const t = s.typed.toLowerCase();
      const starts = fieldList.filter((f) => f.toLowerCase().startsWith(t) && f !== s.typed);
      const contains = t === '' ? [] : fieldList.filter((f) => !f.toLowerCase().startsWith(t) && f.toLowerCase().includes(t));
      return { items: [...starts, ...contains], ...caretBelow(body) };
    },
    accept: (name) => {
      const s = openString();
      if (s === null) return;
      const at = body.selectionStart ?? s.start;
      const closed = body.value[at] === '"';
      body.value = `${body.value.slice(0, s.start)}${name}${closed ? '' : '"'}${body.value.slice(at)}`;
      body.selectionStart = body.selectionEnd = s.start + name.length + 1;
      onBodyInput();
    },
  });

  const show = (res: ApiResponse, catTable: boolean) => {
    status.className = res.status >= 400 ? 'error' : 'ok';
    status.textContent = `${res.status} ${statusText(res.status)} · ${millis(res.took)}`;
    const pretty = res.json !== undefined ? JSON.stringify(res.json, null, 2) : res.text;
    output.textContent = pretty === '' ? '(no body)' : pretty;
    fill(tableBox);
    const rows = res.json;
    if (catTable && Array.isArray(rows) && rows.length > 0 && typeof rows[0] === 'object') {
      const headers = Object.keys(rows[0] as object);
      fill(tableBox, table(`${rows.length} row${rows.length === 1 ? '' : 's'}`, headers, (rows as Record<string, unknown>[]).map((r) => headers.map((k) => String(r[k] ?? '')))));
    }
  };

  const send = async (ev?: Event) => {
    ev?.preventDefault();
    let p = path.value.trim();
    if (!p.startsWith('/')) p = `/${p}`;
    const problem = bodyProblem(p, body.value);
    if (problem) {
      status.className = 'error';
      status.textContent = `Not sent: the body is not valid JSON (${problem})`;
      return;
    }
    // _cat pages come as text; the console asks for JSON to show a table, unless a format was chosen.
    const cat = /^\/_cat\//.test(p) && !/[?&]format=/.test(p);
    const sent = cat ? `${p}${p.includes('?') ? '&' : '?'}format=json` : p;
    status.className = 'muted';
    status.textContent = 'Sending…';
    const ndjson = isNdjson(p);
    const b = ndjson && body.value !== '' && !body.value.endsWith('\n') ? `${body.value}\n` : body.value;
    try {
      const res = await request(method.value, sent, method.value === 'GET' && b.trim() === '' ? undefined : b, ndjson ? 'application/x-ndjson' : 'application/json');
      show(res, cat);
    } catch (err) {
      status.className = 'error';
      status.textContent = `The request failed: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    renderHistory(remember({ method: method.value, path: p, body: body.value }));
  };

  body.addEventListener('input', () => {
    onBodyInput();
    bodyCompletion.update();
  });
  path.addEventListener('input', () => {
    onBodyInput();
    pathCompletion.update();
  });
  path.addEventListener('change', () => void onPathChange());
  const sendKeys = (ev: KeyboardEvent) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) void send(ev);
  };
  body.addEventListener('keydown', sendKeys);
  path.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') void send(ev);
  });

  const form = h(
    'form',
    { id: 'request', onsubmit: send, 'aria-label': 'Request' },
    h('div', { class: 'request-line' }, h('label', { for: 'req-method', class: 'sr-only' }, 'Method'), method, h('label', { for: 'req-path', class: 'sr-only' }, 'Path'), h('span', { class: 'completable path-box' }, path, pathCompletion.element), h('button', { type: 'submit' }, 'Send')),
    h('label', { for: 'req-body' }, 'Body (JSON; NDJSON for _bulk and _msearch) — Ctrl+Enter sends'),
    h('div', { class: 'completable' }, body, bodyCompletion.element),
    h('p', { class: 'muted', id: 'completion-help' }, 'Field names are offered as you type a string; ↑ ↓ choose, Enter or Tab takes, Escape closes, Ctrl+Space asks.'),
    check,
    fields,
  );
  fill(
    root,
    h('h1', {}, 'Console'),
    h(
      'div',
      { class: 'devtools' },
      h('div', { class: 'editor' }, form, h('h2', {}, 'History'), historyList),
      h('section', { class: 'response', 'aria-label': 'Response' }, h('h2', {}, 'Response'), status, tableBox, output),
    ),
  );
  renderHistory(loadHistory());
  void loadEndpoints();
  return () => {};
}
