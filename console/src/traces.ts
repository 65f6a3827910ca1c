/**
 * The traces page: the node's recent traces (`/_console/api/traces`,
 * services/node/rest/routes/console-traces.ts) searchable by path, status,
 * duration and index, and one trace as a waterfall: each span a bar on the
 * trace's time line, children under their parent, attributes (log offsets,
 * shard, index) on demand. `#/traces/{id}` opens a trace directly. Beside
 * them, the recent entries of every node's search and indexing slow logs
 * (`/_console/api/slow_log`), each opening the trace of the request it served.
 */
import { json, request } from './api.ts';
import { fill, h, table } from './dom.ts';
import { millis } from './format.ts';

interface Summary {
  traceId: string;
  name: string;
  startMs: number;
  durationMs: number;
  spans: number;
  error: boolean;
  path: string | null;
  status: number | null;
  indices: string[];
}
interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startMs: number;
  durationMs: number;
  status: number;
  statusMessage: string | null;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  node: string;
}
interface TraceAnswer {
  enabled: boolean;
  reason?: string;
  found?: boolean;
  spans?: SpanRecord[];
  jaeger_url?: string | null;
  /** Nodes that answered: how many spans of the trace each holds (`buffer` false: it keeps none). */
  nodes?: { name: string; spans: number; buffer: boolean }[];
  /** Nodes that did not answer in time, or failed. */
  failed_nodes?: { name: string; reason: string }[];
  error?: { reason?: string };
}
interface SlowEntry {
  timestamp: number;
  level: string;
  kind: string;
  index: string;
  shard: number;
  node: string;
  tookMs: number;
  traceId: string | null;
  count: number;
  source: string | null;
}
interface SlowAnswer {
  entries: SlowEntry[];
  failed_nodes: { name: string; reason: string }[];
}
const PHASE: Record<string, string> = { query: 'search query', fetch: 'search fetch', index: 'indexing' };

/** The slow logs' recent entries, newest first, each with a link to its trace. */
async function showSlow(box: HTMLElement): Promise<void> {
  try {
    const a = await json<SlowAnswer>('GET', '/_console/api/slow_log?size=20', undefined, { poll: true });
    const failed = a.failed_nodes.length ? h('p', { class: 'error' }, a.failed_nodes.map((f) => `${f.name} did not answer: ${f.reason}`).join('; ')) : null;
    if (a.entries.length === 0) {
      fill(box, h('p', { class: 'muted' }, 'No slow requests logged (the thresholds are the index settings index.search.slowlog.threshold.* and index.indexing.slowlog.threshold.index.*).'), failed);
      return;
    }
    fill(
      box,
      table(
        'Slow requests, newest first',
        ['When', 'Node', 'Level', 'Phase', 'Shard', 'Took', 'Trace'],
        a.entries.map((e) => [
          new Date(e.timestamp).toLocaleTimeString('en-GB'),
          e.node,
          e.level.toUpperCase(),
          PHASE[e.kind] ?? e.kind,
          `${e.index}[${e.shard}]`,
          millis(e.tookMs),
          e.traceId === null ? '–' : h('a', { href: `#/traces/${e.traceId}`, title: e.source ?? undefined }, `trace ${e.traceId.slice(0, 8)}`),
        ]),
        { id: 'slow-log' },
      ),
      failed,
    );
  } catch (err) {
    fill(box, h('p', { class: 'error' }, err instanceof Error ? err.message : String(err)));
  }
}

interface ListAnswer {
  enabled: boolean;
  reason?: string;
  capacity?: number;
  spans_seen?: number;
  traces: Summary[];
}

/** Spans depth-first from the roots, each with its depth; children by start time. */
export function ordered(spans: readonly SpanRecord[]): { span: SpanRecord; depth: number }[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | null, SpanRecord[]>();
  for (const s of spans) {
    const parent = s.parentSpanId !== null && ids.has(s.parentSpanId) ? s.parentSpanId : null;
    const list = children.get(parent) ?? [];
    list.push(s);
    children.set(parent, list);
  }
  const out: { span: SpanRecord; depth: number }[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => a.startMs - b.startMs)) {
      out.push({ span: s, depth });
      walk(s.spanId, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

function waterfall(spans: SpanRecord[]): HTMLElement {
  const start = Math.min(...spans.map((s) => s.startMs));
  const end = Math.max(...spans.map((s) => s.startMs + s.durationMs));
  const total = Math.max(end - start, 0.001);
  const rows = ordered(spans).map(({ span, depth }) => {
    const bar = h('div', { class: `bar${span.status === 2 ? ' error' : ''}` });
    bar.style.left = `${((span.startMs - start) / total) * 100}%`;
    bar.style.width = `${Math.max((span.durationMs / total) * 100, 0.3)}%`;
    const label = h('span', { class: 'span-name', title: span.name }, span.name);
    label.style.paddingLeft = `${depth * 1.1}em`;
    const attrs = Object.entries(span.attributes).map(([k, v]) => h('div', {}, h('code', {}, k), ' ', String(v)));
    const a = span.attributes;
    const first = a['logsearch.offset.first'];
    const last = a['logsearch.offset.last'];
    const where = typeof a['logsearch.index'] === 'string' ? `${String(a['logsearch.index'])}[${String(a['logsearch.shard'] ?? '')}]` : null;
    const meta = [
      millis(span.durationMs),
      where,
      first === undefined ? null : first === last || last === undefined ? `offset ${String(first)}` : `offsets ${String(first)}–${String(last)}`,
      span.node || null,
    ].filter((x) => x !== null);
    return h(
      'li',
      { class: 'span-row', 'data-name': span.name },
      h(
        'details',
        {},
        h(
          'summary',
          {},
          label,
          h('span', { class: 'span-meta' }, meta.join(' · ')),
          h('span', { class: 'track' }, bar),
        ),
        h('div', { class: 'attrs' }, attrs, span.statusMessage ? h('div', { class: 'error' }, span.statusMessage) : null, span.links.length ? h('div', {}, `links: ${span.links.map((l) => l.traceId).join(', ')}`) : null),
      ),
    );
  });
  return h('ol', { class: 'waterfall', id: 'waterfall', 'aria-label': 'Spans of the trace' }, rows);
}

/** Where the spans came from: each node that answered with its count, and the nodes that did not answer. */
function sources(t: TraceAnswer): HTMLElement {
  const answered = (t.nodes ?? []).map((n) => (n.buffer ? `${n.name} (${n.spans})` : `${n.name} (keeps no spans)`));
  const failed = t.failed_nodes ?? [];
  return h(
    'div',
    { id: 'trace-nodes' },
    h('p', { class: 'muted' }, `Spans from ${answered.join(', ') || 'no node'}`),
    failed.length
      ? h(
          'ul',
          { class: 'error', id: 'trace-failed-nodes', 'aria-label': 'Nodes that did not answer' },
          failed.map((f) => h('li', {}, `${f.name} did not answer: ${f.reason}`)),
        )
      : null,
  );
}

async function showTrace(box: HTMLElement, id: string): Promise<void> {
  fill(box, h('p', { class: 'muted' }, 'Loading the trace…'));
  try {
    const res = await request('GET', `/_console/api/traces/${encodeURIComponent(id)}`);
    const t = (res.json ?? {}) as TraceAnswer;
    if (res.status === 404 && t.enabled) {
      fill(box, h('p', { class: 'error' }, `Trace ${id} is not (or no longer) held by any node`), sources(t));
      return;
    }
    if (res.status >= 400) throw new Error(t.error?.reason ?? `HTTP ${res.status}`);
    if (!t.enabled) {
      fill(box, h('p', { class: 'muted' }, t.reason ?? 'This node keeps no traces.'));
      return;
    }
    const spans = t.spans ?? [];
    const jaeger = t.jaeger_url ? h('a', { href: t.jaeger_url, id: 'jaeger-link', target: '_blank', rel: 'noopener' }, 'Open in Jaeger') : null;
    fill(
      box,
      h('h2', {}, `Trace ${id}`),
      h('p', { class: 'muted' }, `${spans.length} span${spans.length === 1 ? '' : 's'}`, jaeger ? ' · ' : null, jaeger),
      sources(t),
      waterfall(spans),
    );
  } catch (err) {
    fill(box, h('p', { class: 'error' }, err instanceof Error ? err.message : String(err)));
  }
}

export function tracesPage(root: HTMLElement, traceId?: string): () => void {
  const path = h('input', { id: 'f-path', name: 'path', placeholder: '/_bulk', autocomplete: 'off' });
  const status = h('input', { id: 'f-status', name: 'status', placeholder: '200, 4xx', size: 6, autocomplete: 'off' });
  const duration = h('input', { id: 'f-duration', name: 'min_duration', placeholder: '10ms', size: 6, autocomplete: 'off' });
  const index = h('input', { id: 'f-index', name: 'index', autocomplete: 'off' });
  const info = h('p', { class: 'muted', id: 'traces-info' });
  const list = h('div', { id: 'traces-list' });
  const detail = h('section', { id: 'trace', 'aria-label': 'Trace' });

  const search = async (ev?: Event) => {
    ev?.preventDefault();
    const q = new URLSearchParams();
    if (path.value.trim()) q.set('path', path.value.trim());
    if (status.value.trim()) q.set('status', status.value.trim());
    if (duration.value.trim()) q.set('min_duration', duration.value.trim());
    if (index.value.trim()) q.set('index', index.value.trim());
    try {
      const a = await json<ListAnswer>('GET', `/_console/api/traces?${q.toString()}`);
      if (!a.enabled) {
        info.textContent = a.reason ?? 'This node keeps no traces.';
        fill(list);
        return;
      }
      info.textContent = `${a.traces.length} trace${a.traces.length === 1 ? '' : 's'} (the node keeps its last ${a.capacity} spans; ${a.spans_seen} seen)`;
      fill(
        list,
        table(
          'Recent traces, newest first',
          ['When', 'Request', 'Status', 'Duration', 'Spans', 'Indices'],
          a.traces.map((t) => [
            new Date(t.startMs).toLocaleTimeString('en-GB'),
            h('a', { href: `#/traces/${t.traceId}`, class: t.error ? 'error' : '', title: t.name }, t.path === null ? t.name : `${t.name.split(' ')[0]} ${t.path}`),
            t.status === null ? '' : String(t.status),
            millis(t.durationMs),
            String(t.spans),
            t.indices.join(', '),
          ]),
          { id: 'traces' },
        ),
      );
    } catch (err) {
      info.textContent = err instanceof Error ? err.message : String(err);
    }
  };

  const form = h(
    'form',
    { class: 'inline', onsubmit: search, 'aria-label': 'Search traces' },
    h('label', { for: 'f-path' }, 'Path'),
    path,
    h('label', { for: 'f-status' }, 'Status'),
    status,
    h('label', { for: 'f-duration' }, 'Slower than'),
    duration,
    h('label', { for: 'f-index' }, 'Index'),
    index,
    h('button', { type: 'submit' }, 'Search'),
  );
  const slow = h('div', { id: 'slow-requests' });
  fill(
    root,
    h('h1', {}, 'Traces'),
    form,
    info,
    h('div', { class: 'traces' }, list, detail),
    h('section', { 'aria-labelledby': 'h-slow' }, h('h2', { id: 'h-slow' }, 'Slow requests'), slow),
  );
  void search();
  void showSlow(slow);
  if (traceId) void showTrace(detail, traceId);
  else fill(detail, h('p', { class: 'muted' }, 'Choose a trace to see its spans.'));
  return () => {};
}
