/**
 * The cluster page: health, nodes, indices, the shard grid and aliases,
 * read from the node's public APIs (`_cluster/health` and `_cat/*` as JSON)
 * and read again every few seconds; actions (create or delete an index,
 * change its replicas, move an alias) ask for confirmation first.
 *
 * Log offset of a copy: the next record of its partition it will apply
 * (`seq_no.max` + 1: a record's offset is its sequence number). Lag: how
 * many records it is behind the end of its log (the partition's high
 * watermark, `/_console/api/log_ends`), so a shard whose copies are all
 * behind shows it.
 */
import { json, ApiError } from './api.ts';
import { confirmAction, fill, h, table, toast, type Child } from './dom.ts';
import { bytes, count, num } from './format.ts';

export const REFRESH_MS = 3000;
const POLL = { poll: true };

interface Health {
  cluster_name: string;
  status: string;
  number_of_nodes: number;
  number_of_data_nodes: number;
  active_primary_shards: number;
  active_shards: number;
  relocating_shards: number;
  initializing_shards: number;
  unassigned_shards: number;
}
type Row = Record<string, string | null>;

interface Snapshot {
  health: Health;
  nodes: Row[];
  indices: Row[];
  shards: Row[];
  aliases: Row[];
  /** Per index, per shard: the end of the log its copies read (its partitions' high watermarks). */
  logEnds: Map<string, number[]>;
}

interface LogEnds {
  indices: { index: string; shards: number[] }[];
}

async function load(): Promise<Snapshot> {
  const [health, nodes, indices, shards, aliases, ends] = await Promise.all([
    json<Health>('GET', '/_cluster/health', undefined, POLL),
    json<Row[]>('GET', '/_cat/nodes?format=json&full_id=true&h=id,name,ip,node.role,master,load_1m,cpu,heap.percent,ram.percent,disk.used_percent&s=name', undefined, POLL),
    json<Row[]>('GET', '/_cat/indices?format=json&bytes=b&s=index&expand_wildcards=all', undefined, POLL),
    json<Row[]>('GET', '/_cat/shards?format=json&bytes=b&h=index,shard,prirep,state,docs,store,node,id,seq_no.max', undefined, POLL),
    json<Row[]>('GET', '/_cat/aliases?format=json&s=alias', undefined, POLL),
    // Without it (a node from before this API) the lag shows as unknown; the rest of the page still works.
    json<LogEnds>('GET', '/_console/api/log_ends', undefined, POLL).catch(() => ({ indices: [] })),
  ]);
  return { health, nodes, indices, shards, aliases, logEnds: new Map(ends.indices.map((i) => [i.index, i.shards])) };
}

function healthBadge(status: string | null): HTMLElement {
  return h('span', { class: `health ${status ?? 'unknown'}` }, status ?? 'unknown');
}

function renderHealth(s: Snapshot): HTMLElement {
  const x = s.health;
  const figure = (label: string, value: Child) => h('div', { class: 'figure' }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value));
  return h(
    'section',
    { 'aria-labelledby': 'h-health', id: 'health' },
    h('h2', { id: 'h-health' }, 'Health'),
    h(
      'div',
      { class: 'figures' },
      figure('status', healthBadge(x.status)),
      figure('nodes', count(x.number_of_nodes)),
      figure('data nodes', count(x.number_of_data_nodes)),
      figure('primary shards', count(x.active_primary_shards)),
      figure('active shards', count(x.active_shards)),
      figure('initializing', count(x.initializing_shards)),
      figure('unassigned', count(x.unassigned_shards)),
    ),
  );
}

function renderNodes(s: Snapshot): HTMLElement {
  const roles = (r: string | null) => (r ?? '').split('').map((c) => ({ m: 'master', d: 'data', i: 'ingest' })[c] ?? c).join(', ');
  return h(
    'section',
    { 'aria-labelledby': 'h-nodes' },
    h('h2', { id: 'h-nodes' }, 'Nodes'),
    table(
      `${s.nodes.length} node${s.nodes.length === 1 ? '' : 's'}`,
      ['Name', 'Roles', 'Master', 'Address', 'Load (1m)', 'CPU %', 'Heap %', 'RAM %', 'Disk %'],
      s.nodes.map((n) => [n.name, roles(n['node.role']), n.master === '*' ? 'elected' : '', n.ip, n.load_1m, n.cpu, n['heap.percent'], n['ram.percent'], n['disk.used_percent']]),
      { id: 'nodes' },
    ),
  );
}

async function act(what: string, fn: () => Promise<unknown>, after: () => void): Promise<void> {
  try {
    await fn();
    toast(what);
  } catch (err) {
    toast(err instanceof ApiError ? err.message : String(err), 'error');
  }
  after();
}

function replicasDialog(index: string, current: number, refresh: () => void): void {
  const input = h('input', { type: 'number', min: 0, max: 100, value: current, id: 'replicas-input', name: 'replicas', required: true });
  const dialog = h(
    'dialog',
    { class: 'confirm', 'aria-label': `Replicas of ${index}` },
    h(
      'form',
      { method: 'dialog' },
      h('p', {}, `Number of replicas of ${index} (now ${current}):`),
      h('label', { for: 'replicas-input' }, 'Replicas '),
      input,
      h('div', { class: 'buttons' }, h('button', { value: 'cancel', type: 'submit', formnovalidate: true }, 'Cancel'), h('button', { value: 'set', type: 'submit' }, 'Set replicas')),
    ),
  );
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (dialog.returnValue !== 'set') return;
    const n = Number(input.value);
    void act(`${index}: ${n} replica${n === 1 ? '' : 's'}`, () => json('PUT', `/${encodeURIComponent(index)}/_settings`, { index: { number_of_replicas: n } }), refresh);
  });
  document.body.appendChild(dialog);
  dialog.showModal();
}

interface TaskAnswer {
  completed: boolean;
  task: { status?: { phase?: string; ops_replayed?: number; ops_behind?: number; ops_per_second?: number; eta_in_millis?: number } };
  response?: { dest?: string; alias?: string | null; ops_replayed?: number; took?: number };
  error?: { type?: string; reason?: string };
}

/** The rebuilds started from this page, followed through `_tasks/{id}` until they end. */
const tasksBox = h('section', { id: 'tasks', 'aria-label': 'Rebuild tasks', 'aria-live': 'polite' });

function followTask(taskId: string, source: string, dest: string, refresh: () => void): void {
  const bar = h('progress', { max: 100, 'aria-label': `Rebuild of ${source} into ${dest}` });
  const text = h('span', { class: 'task-status' }, 'starting…');
  const row = h('div', { class: 'task', 'data-task': taskId }, h('b', {}, `Rebuild ${source} → ${dest}`), ' ', h('code', {}, taskId), ' ', bar, ' ', text);
  tasksBox.prepend(row);
  const poll = async (): Promise<void> => {
    let t: TaskAnswer;
    try {
      t = await json<TaskAnswer>('GET', `/_tasks/${encodeURIComponent(taskId)}`, undefined, POLL);
    } catch (err) {
      text.textContent = `cannot read the task: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    const st = t.task.status ?? {};
    const replayed = st.ops_replayed ?? 0;
    const behind = st.ops_behind ?? 0;
    if (t.completed) {
      bar.value = 100;
      if (t.error) {
        row.classList.add('error');
        text.textContent = `failed: ${t.error.type ?? ''} ${t.error.reason ?? ''}`;
      } else {
        const r = t.response ?? {};
        text.textContent = `done: ${count(r.ops_replayed ?? replayed)} ops replayed${r.alias ? `, alias ${r.alias} → ${r.dest ?? dest}` : ''}`;
      }
      refresh();
      return;
    }
    bar.value = replayed + behind > 0 ? (replayed / (replayed + behind)) * 100 : 0;
    const eta = st.eta_in_millis === undefined ? '' : `, about ${Math.ceil(st.eta_in_millis / 1000)} s left`;
    text.textContent = `${st.phase ?? 'running'}: ${count(replayed)} replayed, ${count(behind)} behind, ${count(st.ops_per_second ?? 0)}/s${eta}`;
    setTimeout(() => void poll(), 1000);
  };
  void poll();
}

/** Rebuild from the log into a new index (POST /{index}/_rebuild, docs/rebuild.md), then follow its task. */
function rebuildDialog(index: string, aliases: string[], refresh: () => void): void {
  const dest = h('input', { id: 'rebuild-dest', name: 'dest', required: true, value: `${index}-rebuilt`, autocomplete: 'off' });
  const shards = h('input', { id: 'rebuild-shards', name: 'shards', type: 'number', min: 1, max: 1024, placeholder: 'same' });
  const alias = h('select', { id: 'rebuild-alias', name: 'alias' }, h('option', { value: '' }, '(none)'), aliases.map((a) => h('option', { value: a }, a)));
  const mappings = h('textarea', { id: 'rebuild-mappings', name: 'mappings', rows: 5, spellcheck: 'false', placeholder: '{ "_doc": { "properties": { ... } } } (empty: the same mapping)' });
  const problem = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { method: 'dialog' },
    h('p', {}, `Rebuild ${index} from its log into a new index (with a new mapping or number of shards), then move an alias to it.`),
    h('label', { for: 'rebuild-dest' }, 'New index'),
    dest,
    h('label', { for: 'rebuild-shards' }, 'Shards'),
    shards,
    h('label', { for: 'rebuild-alias' }, 'Move alias'),
    alias,
    h('label', { for: 'rebuild-mappings', class: 'block' }, 'Mappings (JSON)'),
    mappings,
    problem,
    h('div', { class: 'buttons' }, h('button', { value: 'cancel', type: 'submit', formnovalidate: true }, 'Cancel'), h('button', { value: 'rebuild', type: 'submit' }, 'Start rebuild')),
  );
  const dialog = h('dialog', { class: 'confirm wide', 'aria-label': `Rebuild ${index}` }, form);
  form.addEventListener('submit', (ev) => {
    const submitter = (ev as SubmitEvent).submitter as HTMLButtonElement | null;
    if (submitter?.value !== 'rebuild' || mappings.value.trim() === '') return;
    try {
      JSON.parse(mappings.value);
    } catch (err) {
      ev.preventDefault();
      problem.textContent = `The mappings are not valid JSON: ${(err as Error).message}`;
    }
  });
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (dialog.returnValue !== 'rebuild') return;
    const target = dest.value.trim();
    const body: Record<string, unknown> = { dest: { index: target } };
    const d = body.dest as Record<string, unknown>;
    if (shards.value !== '') d.settings = { number_of_shards: Number(shards.value) };
    if (mappings.value.trim() !== '') d.mappings = JSON.parse(mappings.value);
    if (alias.value !== '') body.alias = alias.value;
    json<{ task: string }>('POST', `/${encodeURIComponent(index)}/_rebuild?wait_for_completion=false`, body).then(
      (a) => {
        toast(`Rebuild of ${index} started (task ${a.task})`);
        followTask(a.task, index, target, refresh);
      },
      (err: unknown) => toast(err instanceof Error ? err.message : String(err), 'error'),
    );
  });
  document.body.appendChild(dialog);
  dialog.showModal();
}

function renderIndices(s: Snapshot, refresh: () => void): HTMLElement {
  const rows = s.indices.map((i) => {
    const name = i.index ?? '';
    const replicas = num(i.rep) ?? 0;
    return [
      h('span', { class: 'index-name' }, name),
      healthBadge(i.health),
      i.status,
      i.pri,
      i.rep,
      count(num(i['docs.count'])),
      count(num(i['docs.deleted'])),
      bytes(num(i['store.size'])),
      h(
        'span',
        { class: 'actions' },
        h('button', { type: 'button', 'aria-label': `Change replicas of ${name}`, onclick: () => replicasDialog(name, replicas, refresh) }, 'Replicas…'),
        h('button', { type: 'button', 'aria-label': `Rebuild ${name}`, onclick: () => rebuildDialog(name, s.aliases.filter((a) => a.index === name).map((a) => a.alias ?? ''), refresh) }, 'Rebuild…'),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Delete index ${name}`,
            onclick: async () => {
              if (await confirmAction(`Delete the index ${name} and all its documents? This cannot be undone.`, `Delete ${name}`))
                void act(`Deleted ${name}`, () => json('DELETE', `/${encodeURIComponent(name)}`), refresh);
            },
          },
          'Delete…',
        ),
      ),
    ];
  });
  return h(
    'section',
    { 'aria-labelledby': 'h-indices' },
    h('h2', { id: 'h-indices' }, 'Indices'),
    table(`${s.indices.length} ind${s.indices.length === 1 ? 'ex' : 'ices'}`, ['Index', 'Health', 'Status', 'Primaries', 'Replicas', 'Docs', 'Deleted', 'Size', 'Actions'], rows, {
      id: 'indices',
    }),
  );
}

interface Copy {
  readonly primary: boolean;
  readonly state: string;
  readonly docs: number | null;
  readonly store: number | null;
  readonly offset: number | null;
  readonly lag: number | null;
  readonly nodeId: string | null;
}

/** Rows index/shard, columns nodes (and unassigned copies), each cell the copies a node holds. */
function renderShards(s: Snapshot): HTMLElement {
  const shards = new Map<string, { index: string; shard: number; copies: Copy[] }>();
  for (const r of s.shards) {
    const key = `${r.index}\u0000${r.shard}`;
    let e = shards.get(key);
    if (!e) shards.set(key, (e = { index: r.index ?? '', shard: num(r.shard) ?? 0, copies: [] }));
    const seq = num(r['seq_no.max']);
    e.copies.push({
      primary: r.prirep === 'p',
      state: r.state ?? 'UNKNOWN',
      docs: num(r.docs),
      store: num(r.store),
      offset: seq === null ? null : seq + 1,
      lag: null,
      nodeId: r.id,
    });
  }
  for (const e of shards.values()) {
    const end = s.logEnds.get(e.index)?.[e.shard];
    // The end is read beside the offsets, not at the same instant: a copy may have applied a record appended since.
    e.copies = e.copies.map((c) => ({ ...c, lag: c.offset === null || end === undefined ? null : Math.max(0, end - c.offset) }));
  }
  const ordered = [...shards.values()].sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : a.shard - b.shard));
  const columns: { id: string | null; label: string }[] = [...s.nodes.map((n) => ({ id: n.id, label: n.name ?? '' })), { id: null, label: 'unassigned' }];
  const cell = (copies: Copy[]) =>
    copies.map((c) =>
      h(
        'div',
        { class: `copy ${c.primary ? 'primary' : 'replica'} ${c.state.toLowerCase()}`, title: c.primary ? 'primary' : 'replica' },
        h('b', {}, c.primary ? 'P' : 'R'),
        ` ${c.state}`,
        c.state === 'UNASSIGNED'
          ? null
          : h('span', { class: 'copy-figures' }, `${count(c.docs)} docs · ${bytes(c.store)} · offset ${count(c.offset)} · lag ${count(c.lag)}`),
      ),
    );
  const rows = ordered.map((e) => [
    h('th', { scope: 'row' }, `${e.index} / ${e.shard}`),
    ...columns.map((col) => h('td', {}, cell(e.copies.filter((c) => c.nodeId === col.id)))),
  ]);
  return h(
    'section',
    { 'aria-labelledby': 'h-shards' },
    h('h2', { id: 'h-shards' }, 'Shards'),
    h(
      'table',
      { id: 'shard-grid', class: 'grid' },
      h('caption', {}, `${s.shards.length} shard cop${s.shards.length === 1 ? 'y' : 'ies'}: P primary, R replica; offset = next log record the copy applies, lag = records behind the end of its log`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Index / shard'), columns.map((c) => h('th', { scope: 'col' }, c.label)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, r))),
    ),
  );
}

function renderAliases(s: Snapshot): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'h-aliases' },
    h('h2', { id: 'h-aliases' }, 'Aliases'),
    table(
      `${s.aliases.length} alias${s.aliases.length === 1 ? '' : 'es'}`,
      ['Alias', 'Index', 'Filter', 'Index routing', 'Search routing'],
      s.aliases.map((a) => [a.alias, a.index, a.filter, a['routing.index'], a['routing.search']]),
      { id: 'aliases' },
    ),
  );
}

/** Forms that stay put while the tables refresh: create an index, move (or add) an alias. */
function renderForms(refresh: () => void, indexNames: () => string[]): HTMLElement {
  const name = h('input', { id: 'new-index', name: 'index', required: true, placeholder: 'logs-2026.11', autocomplete: 'off' });
  const shards = h('input', { id: 'new-shards', name: 'shards', type: 'number', min: 1, max: 1024, value: 1, required: true });
  const replicas = h('input', { id: 'new-replicas', name: 'replicas', type: 'number', min: 0, max: 100, value: 1, required: true });
  const create = h(
    'form',
    {
      class: 'inline',
      'aria-labelledby': 'h-create',
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        const index = name.value.trim();
        if (!(await confirmAction(`Create the index ${index} with ${shards.value} shard(s) and ${replicas.value} replica(s)?`, `Create ${index}`))) return;
        await act(
          `Created ${index}`,
          () => json('PUT', `/${encodeURIComponent(index)}`, { settings: { number_of_shards: Number(shards.value), number_of_replicas: Number(replicas.value) } }),
          refresh,
        );
        name.value = '';
      },
    },
    h('h3', { id: 'h-create' }, 'Create an index'),
    h('label', { for: 'new-index' }, 'Name'),
    name,
    h('label', { for: 'new-shards' }, 'Shards'),
    shards,
    h('label', { for: 'new-replicas' }, 'Replicas'),
    replicas,
    h('button', { type: 'submit' }, 'Create…'),
  );
  const alias = h('input', { id: 'alias-name', name: 'alias', required: true, autocomplete: 'off' });
  const target = h('input', { id: 'alias-target', name: 'target', required: true, list: 'index-names', autocomplete: 'off' });
  const list = h('datalist', { id: 'index-names' });
  target.addEventListener('focus', () => fill(list, indexNames().map((n) => h('option', { value: n }))));
  const move = h(
    'form',
    {
      class: 'inline',
      'aria-labelledby': 'h-alias',
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        const a = alias.value.trim();
        const to = target.value.trim();
        const current = await json<Row[]>('GET', `/_cat/aliases/${encodeURIComponent(a)}?format=json`, undefined, POLL).catch(() => [] as Row[]);
        const from = current.map((r) => r.index ?? '').filter((i) => i !== '' && i !== to);
        const question = from.length ? `Move the alias ${a} from ${from.join(', ')} to ${to}?` : `Point the alias ${a} at ${to}?`;
        if (!(await confirmAction(question, from.length ? 'Move alias' : 'Add alias'))) return;
        const actions = [...from.map((index) => ({ remove: { index, alias: a } })), { add: { index: to, alias: a } }];
        await act(`Alias ${a} → ${to}`, () => json('POST', '/_aliases', { actions }), refresh);
      },
    },
    h('h3', { id: 'h-alias' }, 'Move an alias'),
    h('label', { for: 'alias-name' }, 'Alias'),
    alias,
    h('label', { for: 'alias-target' }, 'To index'),
    target,
    list,
    h('button', { type: 'submit' }, 'Move…'),
  );
  return h('section', { class: 'forms', 'aria-label': 'Actions' }, create, move);
}

/** Mounts the page; returns what stops its timer. */
export function clusterPage(root: HTMLElement): () => void {
  const status = h('p', { class: 'muted', id: 'updated', 'aria-live': 'off' }, 'Loading…');
  const live = h('div', { id: 'cluster-live' });
  let last: Snapshot | null = null;
  let timer: number | undefined;
  let stopped = false;
  const refresh = async (): Promise<void> => {
    clearTimeout(timer);
    try {
      const s = await load();
      if (stopped) return;
      last = s;
      const name = document.getElementById('cluster-name');
      if (name) name.textContent = s.health.cluster_name;
      fill(live, renderHealth(s), renderNodes(s), renderIndices(s, () => void refresh()), renderShards(s), renderAliases(s));
      status.textContent = `Updated ${new Date().toLocaleTimeString('en-GB')} · every ${REFRESH_MS / 1000} s`;
    } catch (err) {
      status.textContent = `Could not read the cluster: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (!stopped) timer = window.setTimeout(() => void refresh(), REFRESH_MS);
  };
  fill(root, h('h1', {}, 'Cluster'), status, tasksBox, live, renderForms(() => void refresh(), () => (last ? last.indices.map((i) => i.index ?? '') : [])));
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
