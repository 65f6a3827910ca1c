/**
 * The pass-record pages, served by the pass-record service
 * (`logsearch passinfo serve`, services/passinfo/http-api.ts) at its
 * `/_console/`, calling its HTTP API on the same origin (docs/passinfo.md):
 * plate search with the matched fragments marked and filters, a plate's
 * trajectory as a time line and its landing points, traffic per day or per
 * checkpoint as a bar chart, region collision, first entries, companions,
 * trajectory similarity and day-hidden/night-out as forms; every result
 * table can be downloaded as CSV.
 */
import { json, ApiError } from './api.ts';
import { fill, h, table, type Child } from './dom.ts';
import { count } from './format.ts';

interface Pass {
  event_id: string;
  land_id: string;
  pass_time: string;
  plate: string;
  plate_category?: number;
  plate_color?: number;
  vehicle_color?: number;
  speed?: number;
}

/** `plate` with every occurrence of each fragment (case-insensitive) in a <mark>. Wildcard fragments mark nothing. */
export function highlight(plate: string, q: string): Child[] {
  const frags = q
    .split(/\s+/)
    .map((f) => f.replace(/\*+$/, ''))
    .filter((f) => f !== '' && !/[*?]/.test(f))
    .map((f) => f.toUpperCase());
  const upper = plate.toUpperCase();
  const marked = new Array<boolean>(plate.length).fill(false);
  for (const f of frags) {
    for (let i = upper.indexOf(f); i >= 0; i = upper.indexOf(f, i + 1)) for (let k = i; k < i + f.length; k++) marked[k] = true;
  }
  const out: Child[] = [];
  let i = 0;
  while (i < plate.length) {
    let j = i;
    while (j < plate.length && marked[j] === marked[i]) j++;
    out.push(marked[i] ? h('mark', {}, plate.slice(i, j)) : plate.slice(i, j));
    i = j;
  }
  return out;
}

/** RFC 4180 CSV of a header and rows. */
export function csv(headers: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [headers, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

function downloadButton(name: string, headers: readonly string[], rows: () => readonly (readonly unknown[])[]): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'download',
      onclick: () => {
        const url = URL.createObjectURL(new Blob([csv(headers, rows())], { type: 'text/csv;charset=utf-8' }));
        const a = h('a', { href: url, download: name });
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      },
    },
    `Download ${name}`,
  );
}

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));
const field = (id: string, label: string, attrs: Record<string, string | number | boolean> = {}) => {
  const input = h('input', { id, name: id, autocomplete: 'off', ...attrs });
  return { input, parts: [h('label', { for: id }, label), input] };
};
const qs = (o: Record<string, string>) => new URLSearchParams(Object.entries(o).filter(([, v]) => v.trim() !== '')).toString();

/** Bars of `rows` (label, value), longest first as given: a chart with a text alternative per bar. */
function barChart(title: string, rows: readonly { label: string; value: number }[]): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return h(
    'figure',
    { class: 'chart', id: 'traffic-chart' },
    h('figcaption', {}, title),
    h(
      'ol',
      { class: 'bars' },
      rows.map((r) => {
        const bar = h('span', { class: 'bar-fill' });
        bar.style.width = `${(r.value / max) * 100}%`;
        return h('li', { class: 'bar-row', 'aria-label': `${r.label}: ${r.value}` }, h('span', { class: 'bar-label' }, r.label), h('span', { class: 'bar-track' }, bar), h('span', { class: 'bar-value' }, count(r.value)));
      }),
    ),
  );
}

function plateSection(onPlate: (plate: string) => void): HTMLElement {
  const q = field('p-q', 'Plate fragments', { placeholder: 'A12 345', required: true });
  const category = field('p-category', 'Plate category', { placeholder: '1,2' });
  const land = field('p-land', 'Checkpoints', { placeholder: 'L0001,L0002' });
  const from = field('p-from', 'From', { placeholder: '2026-10-01' });
  const to = field('p-to', 'To', { placeholder: '2026-10-08 00:00:00' });
  const sort = h('select', { id: 'p-sort', name: 'sort' }, h('option', { value: 'newest' }, 'newest'), h('option', { value: 'relevance' }, 'relevance'));
  const out = h('div', { id: 'plate-results', 'aria-live': 'polite' });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const filtered = category.input.value.trim() !== '' || land.input.value.trim() !== '';
    const params = qs({ q: q.input.value, plate_category: category.input.value, land_id: land.input.value, from: from.input.value, to: to.input.value, sort: sort.value, size: '100' });
    fill(out, h('p', { class: 'muted' }, 'Searching…'));
    try {
      const r = await json<{ total: number; hits: Pass[] }>('GET', `/${filtered ? 'passes' : 'plates'}/search?${params}`);
      const headers = ['plate', 'land_id', 'pass_time', 'plate_category', 'plate_color', 'vehicle_color', 'speed', 'event_id'];
      fill(
        out,
        h('p', {}, `${count(r.total)} passes`, r.hits.length < r.total ? ` (first ${r.hits.length} shown)` : '', ' ', downloadButton('passes.csv', headers, () => r.hits.map((p) => headers.map((k) => (p as unknown as Record<string, unknown>)[k])))),
        table(
          'Passes, matched fragments marked',
          ['Plate', 'Checkpoint', 'Time', 'Category', 'Speed', ''],
          r.hits.map((p) => [
            h('span', { class: 'plate' }, highlight(p.plate, q.input.value)),
            p.land_id,
            p.pass_time,
            String(p.plate_category ?? ''),
            String(p.speed ?? ''),
            h('button', { type: 'button', class: 'link', onclick: () => onPlate(p.plate) }, 'Trajectory'),
          ]),
          { id: 'passes' },
        ),
      );
    } catch (err) {
      fill(out, h('p', { class: 'error' }, errorText(err)));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'h-plates' },
    h('h2', { id: 'h-plates' }, 'Plate search'),
    h('form', { class: 'inline', onsubmit: submit, 'aria-labelledby': 'h-plates' }, q.parts, category.parts, land.parts, from.parts, to.parts, h('label', { for: 'p-sort' }, 'Sort'), sort, h('button', { type: 'submit' }, 'Search')),
    out,
  );
}

function plateDetail(box: HTMLElement, plate: string): void {
  fill(box, h('h2', {}, `Plate ${plate}`), h('p', { class: 'muted' }, 'Loading…'));
  const p = encodeURIComponent(plate);
  Promise.all([
    json<{ total: number; passes: { land_id: string; pass_time: string; speed: number }[] }>('GET', `/plates/${p}/trajectory`),
    json<{ points: { land_id: string; count: number; first_pass: string; last_pass: string }[] }>('GET', `/plates/${p}/landing-points`),
  ]).then(
    ([t, l]) => {
      // The time line: one entry per pass, a new heading at each day.
      const items: HTMLElement[] = [];
      let day = '';
      for (const pass of t.passes) {
        const d = pass.pass_time.slice(0, 10);
        if (d !== day) items.push(h('li', { class: 'day' }, (day = d)));
        items.push(h('li', { class: 'stop' }, h('time', {}, pass.pass_time.slice(11)), ' ', h('b', {}, pass.land_id), pass.speed ? ` · ${pass.speed} km/h` : ''));
      }
      fill(
        box,
        h('h2', {}, `Plate ${plate}`),
        h('h3', {}, `Trajectory: ${count(t.total)} passes`),
        downloadButton('trajectory.csv', ['pass_time', 'land_id', 'speed'], () => t.passes.map((x) => [x.pass_time, x.land_id, x.speed])),
        h('ol', { class: 'timeline', id: 'trajectory' }, items),
        h('h3', {}, 'Landing points'),
        table('Passes per checkpoint, most first', ['Checkpoint', 'Passes', 'First', 'Last'], l.points.map((x) => [x.land_id, count(x.count), x.first_pass, x.last_pass]), { id: 'landing-points' }),
      );
    },
    (err: unknown) => fill(box, h('h2', {}, `Plate ${plate}`), h('p', { class: 'error' }, errorText(err))),
  );
}

function trafficSection(): HTMLElement {
  const by = h('select', { id: 't-by', name: 'by' }, h('option', { value: 'day' }, 'per day'), h('option', { value: 'checkpoint' }, 'per checkpoint'));
  const land = field('t-land', 'Checkpoints', { placeholder: 'all' });
  const from = field('t-from', 'From', { placeholder: '2026-10-01' });
  const to = field('t-to', 'To', { placeholder: '2026-10-31' });
  const out = h('div', { id: 'traffic' });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    try {
      const r = await json<{ total: number; rows: { land_id?: string; day?: string; count: number }[] }>('GET', `/traffic?${qs({ by: by.value, land_id: land.input.value, from: from.input.value, to: to.input.value })}`);
      const rows = r.rows.map((x) => ({ label: x.day ?? x.land_id ?? '', value: x.count }));
      fill(
        out,
        barChart(`${count(r.total)} passes ${by.value === 'day' ? 'per day' : 'per checkpoint'}`, by.value === 'checkpoint' ? rows.slice(0, 50) : rows),
        downloadButton('traffic.csv', [by.value === 'day' ? 'day' : 'land_id', 'count'], () => rows.map((x) => [x.label, x.value])),
      );
    } catch (err) {
      fill(out, h('p', { class: 'error' }, errorText(err)));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'h-traffic' },
    h('h2', { id: 'h-traffic' }, 'Traffic'),
    h('form', { class: 'inline', onsubmit: submit, 'aria-labelledby': 'h-traffic' }, h('label', { for: 't-by' }, 'Count'), by, land.parts, from.parts, to.parts, h('button', { type: 'submit' }, 'Count')),
    out,
  );
}

function collisionSection(): HTMLElement {
  const regions = h('textarea', { id: 'c-regions', name: 'regions', rows: 3, required: true, placeholder: 'L0001,L0002@2026-10-10 08:00:00/2026-10-10 10:00:00\nL0101@2026-10-11/2026-10-12' });
  const out = h('div', { id: 'collision' });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const parsed = regions.value
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .map((l) => {
        const [ids = '', range = ''] = l.split('@');
        const [from = '', to = ''] = range.split('/');
        return { land_id: ids.split(',').map((s) => s.trim()).filter((s) => s !== ''), from: from.trim(), to: to.trim() };
      });
    try {
      const r = await json<{ total: number; plates: { plate: string; counts: number[] }[] }>('POST', '/region-collision', { regions: parsed, size: 1000 });
      const headers = ['plate', ...parsed.map((_, i) => `region_${i + 1}`)];
      fill(
        out,
        h('p', {}, `${count(r.total)} plates seen in every region `, downloadButton('collision.csv', headers, () => r.plates.map((p) => [p.plate, ...p.counts]))),
        table('Plates in every region, passes per region', headers, r.plates.map((p) => [p.plate, ...p.counts.map(String)]), { id: 'collision-plates' }),
      );
    } catch (err) {
      fill(out, h('p', { class: 'error' }, errorText(err)));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'h-collision' },
    h('h2', { id: 'h-collision' }, 'Region collision'),
    h('form', { onsubmit: submit, 'aria-labelledby': 'h-collision' }, h('label', { for: 'c-regions', class: 'block' }, 'Regions, one a line: checkpoints@from/to'), regions, h('button', { type: 'submit' }, 'Find plates')),
    out,
  );
}

function dayNightSection(): HTMLElement {
  const from = field('d-from', 'From day', { placeholder: '2026-10-01', required: true });
  const to = field('d-to', 'To day', { placeholder: '2026-10-08', required: true });
  const night = field('d-night', 'Night', { placeholder: '22:00-06:00' });
  const day = field('d-day', 'Day', { placeholder: '06:00-22:00' });
  const out = h('div', { id: 'day-night' });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    try {
      const r = await json<{ days: { day: string; total: number; plates: { plate: string; night_passes: number }[] }[] }>(
        'GET',
        `/day-night?${qs({ from: from.input.value, to: to.input.value, night: night.input.value, day: day.input.value })}`,
      );
      const rows = r.days.flatMap((d) => d.plates.map((p) => [d.day, p.plate, p.night_passes] as const));
      fill(
        out,
        h('p', {}, `${count(rows.length)} plates seen at night but not by day `, downloadButton('day-night.csv', ['day', 'plate', 'night_passes'], () => rows)),
        table('Day-hidden, night-out plates', ['Day', 'Plate', 'Night passes'], rows.map((x) => [x[0], x[1], String(x[2])]), { id: 'day-night-plates' }),
      );
    } catch (err) {
      fill(out, h('p', { class: 'error' }, errorText(err)));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'h-daynight' },
    h('h2', { id: 'h-daynight' }, 'Day-hidden, night-out'),
    h('form', { class: 'inline', onsubmit: submit, 'aria-labelledby': 'h-daynight' }, from.parts, to.parts, night.parts, day.parts, h('button', { type: 'submit' }, 'Find plates')),
    out,
  );
}

function firstEntriesSection(): HTMLElement {
  const land = field('e-land', 'Entry checkpoints', { placeholder: 'all designated' });
  const from = field('e-from', 'From', { placeholder: '2026-10-01' });
  const to = field('e-to', 'To', { placeholder: '2026-10-31' });
  const out = h('div', { id: 'first-entries' });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    try {
      const r = await json<{ total: number; look_back_days: number; entry_checkpoints: string[]; entries: { plate: string; land_id: string; pass_time: string; previous_pass_time: string | null }[] }>(
        'GET',
        `/first-entries?${qs({ land_id: land.input.value, from: from.input.value, to: to.input.value, size: '1000' })}`,
      );
      const headers = ['plate', 'land_id', 'pass_time', 'previous_pass_time'];
      fill(
        out,
        h('p', {}, `${count(r.total)} first entries at ${r.entry_checkpoints.join(', ')} (no pass in the ${r.look_back_days} days before) `, downloadButton('first-entries.csv', headers, () => r.entries.map((e) => [e.plate, e.land_id, e.pass_time, e.previous_pass_time]))),
        table('First entries, oldest first', ['Plate', 'Checkpoint', 'Time', 'Previous pass'], r.entries.map((e) => [e.plate, e.land_id, e.pass_time, e.previous_pass_time ?? '–']), { id: 'first-entry-rows' }),
      );
    } catch (err) {
      fill(out, h('p', { class: 'error' }, errorText(err)));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'h-entries' },
    h('h2', { id: 'h-entries' }, 'First entry into the city'),
    h('form', { class: 'inline', onsubmit: submit, 'aria-labelledby': 'h-entries' }, land.parts, from.parts, to.parts, h('button', { type: 'submit' }, 'List entries')),
    out,
  );
}

function companionsSection(): HTMLElement {
  const plate = field('m-plate', 'Plate', { required: true });
  const from = field('m-from', 'From', { placeholder: '2026-10-05', required: true });
  const to = field('m-to', 'To', { placeholder: '2026-10-06', required: true });
  const tolerance = field('m-tolerance', 'Within (s)', { type: 'number', min: 1, placeholder: '60' });
  const other = field('m-other', 'Compare with plate', {});
  const out = h('div', { id: 'companions' });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const range = { from: from.input.value, to: to.input.value, tolerance: tolerance.input.value };
    try {
      if (other.input.value.trim() !== '') {
        const r = await json<{ lcs: number; length_a: number; length_b: number; similarity: number }>('GET', `/similarity?${qs({ plate_a: plate.input.value, plate_b: other.input.value, ...range })}`);
        fill(out, h('p', { id: 'similarity' }, `Similarity ${r.similarity}: ${r.lcs} shared visits in order, of ${r.length_a} and ${r.length_b}`));
        return;
      }
      const r = await json<{ target_passes: number; candidates: number; companions: { plate: string; checkpoints: number; passes: number; lcs: number; similarity: number }[] }>(
        'GET',
        `/plates/${encodeURIComponent(plate.input.value.trim())}/companions?${qs(range)}`,
      );
      const headers = ['plate', 'checkpoints', 'passes', 'lcs', 'similarity'];
      fill(
        out,
        h('p', {}, `${r.companions.length} companions of ${r.target_passes} passes (${count(r.candidates)} candidates) `, downloadButton('companions.csv', headers, () => r.companions.map((c) => [c.plate, c.checkpoints, c.passes, c.lcs, c.similarity]))),
        table('Companions, most shared checkpoints first', ['Plate', 'Checkpoints', 'Passes', 'Shared in order', 'Similarity'], r.companions.map((c) => [c.plate, String(c.checkpoints), String(c.passes), String(c.lcs), String(c.similarity)]), { id: 'companion-rows' }),
      );
    } catch (err) {
      fill(out, h('p', { class: 'error' }, errorText(err)));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'h-companions' },
    h('h2', { id: 'h-companions' }, 'Companions and trajectory similarity'),
    h('form', { class: 'inline', onsubmit: submit, 'aria-labelledby': 'h-companions' }, plate.parts, from.parts, to.parts, tolerance.parts, other.parts, h('button', { type: 'submit' }, 'Find')),
    out,
  );
}

export function passesPage(root: HTMLElement): () => void {
  const detail = h('section', { id: 'plate-detail', 'aria-label': 'Plate' });
  fill(
    root,
    h('h1', {}, 'Pass records'),
    h('div', { class: 'passes' }, h('div', {}, plateSection((plate) => plateDetail(detail, plate)), trafficSection()), detail),
    collisionSection(),
    firstEntriesSection(),
    companionsSection(),
    dayNightSection(),
  );
  return () => {};
}
