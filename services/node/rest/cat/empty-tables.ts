/**
 * `_cat` pages of things this server does not have: plugins, field data
 * caches, snapshot repositories. Each answers with Elasticsearch's columns
 * (so `help` and `v` print them) and no rows, as Elasticsearch does on a
 * cluster without them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { col, sendCat } from './table.ts';

const PLUGINS = [
  col<never>('id', 'default:false;desc:unique node id', () => null),
  col<never>('name', 'alias:n;desc:node name', () => null),
  col<never>('component', 'alias:c;desc:component', () => null),
  col<never>('version', 'alias:v;desc:component version', () => null),
  col<never>('description', 'alias:d;default:false;desc:plugin details', () => null),
];

const FIELDDATA = [
  col<never>('id', 'desc:node id', () => null),
  col<never>('host', 'alias:h;desc:host name', () => null),
  col<never>('ip', 'desc:ip address', () => null),
  col<never>('node', 'alias:n;desc:node name', () => null),
  col<never>('field', 'alias:f;desc:field name', () => null),
  col<never>('size', 'text-align:right;desc:field data usage', () => null),
];

const REPOSITORIES = [col<never>('id', 'alias:id,repoId;desc:unique repository id', () => null), col<never>('type', 'alias:t,type;text-align:right;desc:repository type', () => null)];

/**
 * `_cat/plugins`: none are installed. `_cat/fielddata`: text fields never
 * load field data here (aggregating on one is refused), keyword doc values
 * live in segment files. `_cat/repositories`: snapshots are not supported.
 */
export const catPlugins = () => async (req: FastifyRequest, reply: FastifyReply) => sendCat(req, reply, PLUGINS, []);
export const catFielddata = () => async (req: FastifyRequest, reply: FastifyReply) => sendCat(req, reply, FIELDDATA, []);
export const catRepositories = () => async (req: FastifyRequest, reply: FastifyReply) => sendCat(req, reply, REPOSITORIES, []);
