/**
 * The `_cat` table, as Elasticsearch's Table and RestTable build and print
 * it. Each `_cat` endpoint is a module in this folder holding one column
 * table (columns declared with Elasticsearch's attribute strings:
 * `alias:dc,docsCount;default:false;text-align:right;desc:...`) and the
 * rows it fills; this module prints any of them:
 *
 * - `help`: name | aliases | description of every column;
 * - `h=a,b*` picks columns by name, alias or wildcard (shown under the name
 *   asked for), `pri` adds the `pri.` sibling of each column that has one;
 *   without `h`, the default columns (`ts=false` drops epoch and timestamp);
 * - `s=a,b:desc` sorts (by the cells' values: numbers as numbers, sizes by
 *   bytes, times by duration; empty cells first);
 * - `v` prints the header line;
 * - `bytes=b|kb|mb|gb|tb|pb`, `time=d|h|m|s|ms|micros|nanos` and
 *   `size=|k|m|g|t|p` print sizes, times and counts in one unit;
 * - `format=json|yaml` (or an `Accept` header naming one) prints objects of
 *   text values instead of aligned text.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import YAML from 'yaml';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import { byteSizeIn, format1Decimals, formatByteSize } from '../../../../shared/engine/mapping/byte-size-value.ts';
import { formatTimeValue, timeValueIn } from '../../../../shared/engine/mapping/time-value.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import { boolParam, query, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';

/** ByteSizeValue. */
export class Bytes {
  constructor(readonly bytes: number) {}
}

/** TimeValue, in milliseconds. */
export class Millis {
  constructor(readonly ms: number) {}
}

/** SizeValue: a count printed with `k`, `m`, ... */
export class Count {
  constructor(readonly n: number) {}
}

export type Cell = string | number | boolean | Bytes | Millis | Count | null;

export interface Column<R> {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly desc: string;
  readonly shownByDefault: boolean;
  readonly alignRight: boolean;
  /** `sibling:pri`: `?pri` adds `pri.<name>` next to it when `h` names it. */
  readonly sibling: string | null;
  readonly value: (row: R) => Cell;
}

/**
 * A column as Elasticsearch declares it: `table.addCell(name, attrs)`, the
 * attributes `alias`, `default`, `text-align`, `sibling` and `desc`.
 */
export function col<R>(name: string, attrs: string, value: (row: R) => Cell): Column<R> {
  const a = new Map<string, string>();
  for (const part of attrs.split(';')) {
    const i = part.indexOf(':');
    if (i > 0) a.set(part.slice(0, i), part.slice(i + 1));
  }
  return {
    name,
    aliases: a.get('alias')?.split(',') ?? [],
    desc: a.get('desc') ?? 'not available',
    shownByDefault: a.get('default') !== 'false',
    alignRight: a.get('text-align') === 'right',
    sibling: a.get('sibling') ?? null,
    value,
  };
}

interface Shown<R> {
  readonly column: Column<R>;
  /** The header printed: the name or alias the request asked for. */
  readonly display: string;
}

const TIMESTAMP_COLUMNS = new Set(['epoch', 'timestamp']);

function shownColumns<R>(columns: readonly Column<R>[], q: Query): Shown<R>[] {
  const showTs = boolParam(q, 'ts', true);
  const keepTs = (c: Column<R>) => showTs || !TIMESTAMP_COLUMNS.has(c.name);
  if (q.h === undefined) return columns.filter((c) => c.shownByDefault && keepTs(c)).map((c) => ({ column: c, display: c.name }));
  const byName = new Map(columns.map((c) => [c.name, c]));
  // Wildcards expand to the columns whose name or an alias matches; each column once (RestTable.expandHeadersFromRequest).
  const wanted: string[] = [];
  for (const h of q.h.split(',').map((s) => s.trim()).filter((s) => s.length > 0)) {
    if (h.includes('*')) {
      for (const c of columns) if (simpleMatch(h, c.name) || c.aliases.some((a) => simpleMatch(h, a))) if (!wanted.includes(c.name)) wanted.push(c.name);
    } else if (!wanted.includes(h)) wanted.push(h);
  }
  const out: Shown<R>[] = [];
  for (const w of wanted) {
    let shown: Shown<R> | null = null;
    const exact = byName.get(w);
    if (exact) shown = { column: exact, display: w };
    else for (const c of columns) if (c.aliases.includes(w)) shown = { column: c, display: w };
    if (shown === null || !keepTs(shown.column)) continue;
    out.push(shown);
    const sib = shown.column.sibling;
    if (sib !== null && boolParam(q, sib, false)) {
      const sibling = byName.get(`${sib}.${shown.column.name}`);
      if (sibling) out.push({ column: sibling, display: `${sib}.${shown.display}` });
    }
  }
  return out;
}

/** Table.getAliasMap: names and aliases to column names (`s` takes either). */
function sortKey<R>(columns: readonly Column<R>[], key: string): Column<R> {
  for (const c of columns) if (c.name === key || c.aliases.includes(key)) return c;
  throw illegalArgument(`Unable to sort by unknown sort key \`${key}\``);
}

function compareCells(a: Cell, b: Cell): number {
  if (a === null && b === null) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const num = (v: Cell): number | null =>
    typeof v === 'number' ? v : v instanceof Bytes ? v.bytes : v instanceof Millis ? v.ms : v instanceof Count ? v.n : null;
  const na = num(a);
  const nb = num(b);
  if (na !== null && nb !== null && Object.getPrototypeOf(a) === Object.getPrototypeOf(b)) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = String(render(a, {}));
  const sb = String(render(b, {}));
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function rowOrder<R>(columns: readonly Column<R>[], rows: readonly R[], q: Query): number[] {
  const order = rows.map((_, i) => i);
  if (q.s === undefined || q.s === '') return order;
  const keys = q.s.split(',').map((raw) => {
    const s = raw.trim();
    const desc = s.endsWith(':desc');
    const name = desc ? s.slice(0, -5) : s.endsWith(':asc') ? s.slice(0, -4) : s;
    return { column: sortKey(columns, name), desc };
  });
  const cells = keys.map((k) => rows.map((r) => k.column.value(r)));
  return order.sort((x, y) => {
    for (let k = 0; k < keys.length; k++) {
      const c = compareCells(cells[k]![x]!, cells[k]![y]!);
      if (c !== 0) return keys[k]!.desc ? -c : c;
    }
    return 0;
  });
}

/** RestTable.renderValue: a cell as text, in the units the request asks for; null stays null. */
function render(v: Cell, q: Query): string | null {
  if (v === null) return null;
  if (v instanceof Bytes) {
    const unit = q.bytes;
    const inUnit = unit === undefined ? null : byteSizeIn(v.bytes, unit);
    return inUnit === null ? formatByteSize(v.bytes) : String(inUnit);
  }
  if (v instanceof Millis) {
    const unit = q.time;
    const inUnit = unit === undefined ? null : timeValueIn(v.ms, unit);
    return inUnit === null ? formatTimeValue(v.ms) : String(inUnit);
  }
  if (v instanceof Count) return renderCount(v.n, q.size);
  return String(v);
}

const COUNT_UNITS = ['', 'k', 'm', 'g', 't', 'p'];

function renderCount(n: number, unit: string | undefined): string {
  if (unit !== undefined) {
    const i = COUNT_UNITS.indexOf(unit);
    if (i >= 0) return String(Math.trunc(n / 1000 ** i));
  }
  for (let i = COUNT_UNITS.length - 1; i > 0; i--) if (n >= 1000 ** i) return format1Decimals(n / 1000 ** i, COUNT_UNITS[i]!);
  return format1Decimals(n, '');
}

/** The format asked for with `format=` or, failing that, the `Accept` header (RestTable.buildResponse). */
function outputFormat(req: FastifyRequest, q: Query): 'text' | 'json' | 'yaml' {
  const f = (q.format ?? String(req.headers.accept ?? '')).toLowerCase();
  if (f === 'json' || f.startsWith('application/json')) return 'json';
  if (f === 'yaml' || f.startsWith('application/yaml')) return 'yaml';
  return 'text';
}

function pad(text: string, width: number, right: boolean, last: boolean): string {
  if (text.length >= width) return text;
  if (right) return ' '.repeat(width - text.length) + text;
  // The last column is not padded (no trailing blanks).
  return last ? text : text + ' '.repeat(width - text.length);
}

/** Help: one line per column, `name | aliases | description`, each padded to its width. */
function helpText<R>(columns: readonly Column<R>[]): string {
  const rows = columns.map((c) => [c.name, c.aliases.join(','), c.desc]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ') + '\n').join('');
}

/** Prints `rows` through `columns` as the request asks (see the module comment). */
export function sendCat<R>(req: FastifyRequest, reply: FastifyReply, columns: readonly Column<R>[], rows: readonly R[]): FastifyReply {
  const q = query(req);
  if (boolParam(q, 'help', false)) return reply.code(200).type('text/plain; charset=UTF-8').send(helpText(columns));
  const shown = shownColumns(columns, q);
  const order = rowOrder(columns, rows, q);
  const cells = order.map((i) => shown.map((s) => render(s.column.value(rows[i]!), q)));
  const format = outputFormat(req, q);
  if (format !== 'text') {
    const objects = cells.map((row) => {
      const o: Record<string, string | null> = {};
      shown.forEach((s, i) => setOwn(o, s.display, row[i]!));
      return o;
    });
    if (format === 'json') return sendJson(reply, 200, objects);
    return reply.code(200).type('application/yaml').send(`---\n${YAML.stringify(objects)}`);
  }
  const verbose = boolParam(q, 'v', false);
  const widths = shown.map((s, i) => Math.max(verbose ? s.display.length : 0, ...cells.map((row) => (row[i] ?? '').length)));
  const lines: string[] = [];
  const last = shown.length - 1;
  if (verbose) lines.push(shown.map((s, i) => pad(s.display, widths[i]!, s.column.alignRight, i === last)).join(' '));
  for (const row of cells) lines.push(row.map((cell, i) => pad(cell ?? '', widths[i]!, shown[i]!.column.alignRight, i === last)).join(' '));
  return reply
    .code(200)
    .type('text/plain; charset=UTF-8')
    .send(lines.map((l) => l + '\n').join(''));
}
