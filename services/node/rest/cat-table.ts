/**
 * The `_cat` output: aligned text columns (`?v` adds headers, `?h=a,b`
 * selects columns) or JSON objects (`?format=json`).
 */
import type { FastifyReply } from 'fastify';
import type { Query } from './params.ts';
import { sendJson } from './reply.ts';

export interface CatColumn<R = null> {
  readonly name: string;
  readonly value: (row: R) => string;
  /** Shown only when `?h=` names it (Elasticsearch's non-default columns). */
  readonly hidden?: boolean;
}

export function renderCat<R>(reply: FastifyReply, q: Query, columns: readonly CatColumn<R>[], rows: readonly R[]): FastifyReply {
  let cols = columns.filter((c) => c.hidden !== true);
  if (q.h) {
    const wanted = q.h.split(',');
    cols = wanted.map((w) => columns.find((c) => c.name === w)).filter((c): c is CatColumn<R> => c !== undefined);
  }
  const cells = rows.map((r) => cols.map((c) => c.value(r)));
  if (q.format === 'json') {
    return sendJson(reply, 200, cells.map((row) => Object.fromEntries(cols.map((c, i) => [c.name, row[i]]))));
  }
  const verbose = q.v !== undefined && q.v !== 'false';
  const table = verbose ? [cols.map((c) => c.name), ...cells] : cells;
  const widths = cols.map((_, i) => Math.max(0, ...table.map((row) => row[i].length)));
  const text = table.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join(' ').trimEnd() + '\n').join('');
  return reply.code(200).type('text/plain; charset=UTF-8').send(text);
}
