/**
 * `GET /_cat/tasks` (RestTasksAction): the tasks every node runs now (the
 * task registry: by-query and reindex requests, searches, bulks), one row
 * each; `detailed` adds their descriptions, `actions`, `nodes` and
 * `parent_task_id` filter them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { selectNodes } from '../../cluster/node-selector.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import { ES_VERSION } from '../../version.ts';
import { boolParam, query } from '../params.ts';
import { Millis, col, sendCat, type Column } from './table.ts';
import { hostOf, portOf, epochAndTime } from './sources.ts';

interface TaskJson {
  readonly node: string;
  readonly id: number;
  readonly type: string;
  readonly action: string;
  readonly description?: string;
  readonly start_time_in_millis: number;
  readonly running_time_in_nanos: number;
  readonly parent_task_id?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

interface Row {
  readonly task: TaskJson;
  readonly node: NodeInfo;
}

function columns(detailed: boolean): Column<Row>[] {
  const cols: Column<Row>[] = [
    col('id', 'default:false;desc:id of the task with the node', (r) => r.task.id),
    col('action', 'alias:ac;desc:task action', (r) => r.task.action),
    col('task_id', 'alias:ti;desc:unique task id', (r) => `${r.task.node}:${r.task.id}`),
    col('parent_task_id', 'alias:pti;desc:parent task id', (r) => r.task.parent_task_id ?? '-'),
    col('type', 'alias:ty;desc:task type', (r) => r.task.type),
    col('start_time', 'alias:start;desc:start time in ms', (r) => r.task.start_time_in_millis),
    col('timestamp', 'alias:ts,hms,hhmmss;desc:start time in HH:MM:SS', (r) => epochAndTime(r.task.start_time_in_millis).timestamp),
    col('running_time_ns', 'default:false;alias:time;desc:running time ns', (r) => r.task.running_time_in_nanos),
    col('running_time', 'default:true;alias:time;desc:running time', (r) => new Millis(r.task.running_time_in_nanos / 1e6)),
    col('node_id', 'default:false;alias:ni;desc:unique node id', (r) => r.node.id),
    col('ip', 'default:true;alias:i;desc:ip address', (r) => hostOf(r.node.transportAddress)),
    col('port', 'default:false;alias:po;desc:bound transport port', (r) => portOf(r.node.transportAddress)),
    col('node', 'default:true;alias:n;desc:node name', (r) => r.node.name),
    col('version', 'default:false;alias:v;desc:es version', () => ES_VERSION.number),
    col('x_opaque_id', 'default:false;alias:x;desc:X-Opaque-ID header', (r) => r.task.headers?.['X-Opaque-Id'] ?? null),
  ];
  if (detailed) cols.push(col('description', 'default:true;alias:desc;desc:task action', (r) => r.task.description ?? null));
  return cols;
}

export function catTasks(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const detailed = boolParam(q, 'detailed', false);
    const nodes = selectNodes(q.nodes ?? q.node_id, node.directory.nodes(), node.info, node.directory.master());
    const gathered = await node.nodeAdmin.onNodes(nodes, 'tasks', { detailed }, async () => node.nodeAdmin.localTasks(detailed));
    const actions = q.actions?.split(',') ?? null;
    const rows: Row[] = [];
    for (const n of nodes) {
      for (const task of (gathered.byNode.get(n.id) ?? []) as unknown as TaskJson[]) {
        if (actions !== null && !actions.some((a) => simpleMatch(a, task.action))) continue;
        if (q.parent_task_id !== undefined && task.parent_task_id !== q.parent_task_id) continue;
        rows.push({ task, node: n });
      }
    }
    rows.sort((a, b) => a.task.start_time_in_millis - b.task.start_time_in_millis || a.task.id - b.task.id);
    return sendCat(req, reply, columns(detailed), rows);
  };
}
