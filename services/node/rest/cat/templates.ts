/** `GET /_cat/templates[/{name}]` (RestTemplatesAction): the index templates, by name. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { IndexTemplate } from '../../cluster/index-templates.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import { params } from '../params.ts';
import { col, sendCat } from './table.ts';

const COLUMNS = [
  col<IndexTemplate>('name', 'alias:n;desc:template name', (t) => t.name),
  // A Java List's toString.
  col<IndexTemplate>('index_patterns', 'alias:t;desc:template index patterns', (t) => `[${t.indexPatterns.join(', ')}]`),
  col<IndexTemplate>('order', 'alias:o,p;desc:template application order/priority number', (t) => t.order),
  col<IndexTemplate>('version', 'alias:v;desc:version', (t) => t.version),
];

export function catTemplates(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const name = params(req).name;
    const rows = [...node.cluster.templates().values()]
      .filter((t) => name === undefined || simpleMatch(name, t.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    return sendCat(req, reply, COLUMNS, rows);
  };
}
