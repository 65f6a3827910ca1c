/** `GET /_cat/aliases[/{name}]` (RestAliasAction): one row per alias of each index, closed ones included. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { AliasMetadata } from '../../cluster/index-metadata.ts';
import { splitExpression } from '../../cluster/index-resolver.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import { params } from '../params.ts';
import { col, sendCat } from './table.ts';
import { catIndices } from './sources.ts';

interface Row {
  readonly index: string;
  readonly alias: AliasMetadata;
}

const COLUMNS = [
  col<Row>('alias', 'alias:a;desc:alias name', (r) => r.alias.alias),
  col<Row>('index', 'alias:i,idx;desc:index alias points to', (r) => r.index),
  col<Row>('filter', 'alias:f,fi;desc:filter', (r) => (r.alias.filter === null || r.alias.filter === undefined ? '-' : '*')),
  col<Row>('routing.index', 'alias:ri,routingIndex;desc:index routing', (r) => r.alias.indexRouting ?? '-'),
  col<Row>('routing.search', 'alias:rs,routingSearch;desc:search routing', (r) => r.alias.searchRouting ?? '-'),
];

export function catAliases(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const name = params(req).name;
    const patterns = name === undefined ? null : splitExpression(name).map((p) => (p === '_all' ? '*' : p));
    const rows: Row[] = [];
    for (const m of catIndices(node, undefined)) {
      for (const alias of [...m.aliases.values()].sort((a, b) => (a.alias < b.alias ? -1 : 1))) {
        if (patterns === null || patterns.some((p) => simpleMatch(p, alias.alias))) rows.push({ index: m.name, alias });
      }
    }
    return sendCat(req, reply, COLUMNS, rows);
  };
}
