/** Every REST route of a node, by API family. */
import type { FastifyInstance } from 'fastify';
import type { Node } from '../../node.ts';
import { registerClusterRoutes } from './cluster.ts';
import { registerIndexRoutes } from './indices.ts';
import { registerAliasRoutes } from './aliases.ts';
import { registerDocumentRoutes } from './documents.ts';
import { registerBulkRoutes } from './bulk.ts';
import { registerSearchRoutes } from './search.ts';

export function registerRoutes(app: FastifyInstance, node: Node): void {
  registerClusterRoutes(app, node);
  registerSearchRoutes(app, node);
  registerBulkRoutes(app, node);
  registerAliasRoutes(app, node);
  registerIndexRoutes(app, node);
  registerDocumentRoutes(app, node);
}
