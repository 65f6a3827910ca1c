/**
 * `GET /_cat/thread_pool[/{thread_pool_patterns}]` (RestThreadPoolAction):
 * each node's pools (`_nodes/stats` thread_pool: the shard workers under
 * Elasticsearch's pool names), one row per node and pool.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { splitExpression } from '../../cluster/index-resolver.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import { params } from '../params.ts';
import { col, sendCat, type Column } from './table.ts';
import { catNodes, hostOf, portOf } from './sources.ts';

interface Pool {
  readonly threads: number;
  readonly queue: number;
  readonly active: number;
  readonly rejected: number;
  readonly largest: number;
  readonly completed: number;
}

interface Row {
  readonly node: NodeInfo;
  readonly local: boolean;
  readonly name: string;
  readonly pool: Pool;
}

const COLUMNS: Column<Row>[] = [
  col('node_name', 'default:true;alias:nn;desc:node name', (r) => r.node.name),
  col('node_id', 'default:false;alias:id;desc:persistent node id', (r) => r.node.id),
  col('ephemeral_node_id', 'default:false;alias:eid;desc:ephemeral node id', (r) => r.node.id),
  col('pid', 'default:false;alias:p;desc:process id', (r) => (r.local ? process.pid : null)),
  col('host', 'default:false;alias:h;desc:host name', (r) => hostOf(r.node.transportAddress)),
  col('ip', 'default:false;alias:i;desc:ip address', (r) => hostOf(r.node.transportAddress)),
  col('port', 'default:false;alias:po;desc:bound transport port', (r) => portOf(r.node.transportAddress)),
  col('name', 'default:true;alias:n;desc:thread pool name', (r) => r.name),
  col('type', 'alias:t;default:false;desc:thread pool type', () => 'fixed'),
  col('active', 'alias:a;default:true;text-align:right;desc:number of active threads', (r) => r.pool.active),
  col('pool_size', 'alias:psz;default:false;text-align:right;desc:number of threads', (r) => r.pool.threads),
  col('queue', 'alias:q;default:true;text-align:right;desc:number of tasks currently in queue', (r) => r.pool.queue),
  col('queue_size', 'alias:qs;default:false;text-align:right;desc:maximum number of tasks permitted in queue', () => -1),
  col('rejected', 'alias:r;default:true;text-align:right;desc:number of rejected tasks', (r) => r.pool.rejected),
  col('largest', 'alias:l;default:false;text-align:right;desc:highest number of seen active threads', (r) => r.pool.largest),
  col('completed', 'alias:c;default:false;text-align:right;desc:number of completed tasks', (r) => r.pool.completed),
  col('core', 'alias:cr;default:false;text-align:right;desc:core number of threads in a scaling thread pool', () => null),
  col('max', 'alias:mx;default:false;text-align:right;desc:maximum number of threads in a scaling thread pool', () => null),
  col('size', 'alias:sz;default:false;text-align:right;desc:number of threads in a fixed thread pool', (r) => r.pool.threads),
  col('keep_alive', 'alias:ka;default:false;text-align:right;desc:thread keep alive time', () => null),
];

export function catThreadPool(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const patterns = splitExpression(params(req).thread_pool_patterns ?? '*').map((p) => (p === '_all' ? '*' : p));
    const nodes = catNodes(node);
    const statsReq = { metrics: ['thread_pool' as const], indexSections: [], level: 'node' as const, human: false, types: null, segmentFileSizes: false };
    const gathered = await node.nodeAdmin.onNodes(nodes, 'node_stats', statsReq, () => node.localNodeStats(statsReq));
    const rows: Row[] = [];
    for (const n of nodes) {
      const pools = (gathered.byNode.get(n.id) as { thread_pool?: Record<string, Pool> } | undefined)?.thread_pool ?? {};
      for (const name of Object.keys(pools).sort()) {
        if (patterns.some((p) => simpleMatch(p, name))) rows.push({ node: n, local: n.id === node.nodeId, name, pool: pools[name]! });
      }
    }
    return sendCat(req, reply, COLUMNS, rows);
  };
}
