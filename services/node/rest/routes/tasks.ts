/**
 * The tasks API (RestListTasksAction, RestGetTaskAction,
 * RestCancelTasksAction): `GET /_tasks`, `GET /_tasks/{task_id}`,
 * `POST /_tasks/_cancel` and `POST /_tasks/{task_id}/_cancel`. A node lists
 * its own tasks from its registry (tasks/task-registry.ts) and asks the
 * other nodes of the cluster for theirs over HTTP; a task id names the node
 * that runs it, so a get or cancel of another node's task is sent there.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError, illegalArgument, isEsError } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership.ts';
import { parseTaskId, taskNotFound, type RunningTask, type TaskInfoJson } from '../../tasks/task-registry.ts';
import { boolParam, params, query, timeParam, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';

/** TransportGetTaskAction's default wait for `wait_for_completion=true`. */
const DEFAULT_WAIT_MS = 30_000;

const LIST_ACTION = 'cluster:monitor/tasks/lists';

/** The node filter of `?nodes=` (ids, names, `_local`, `_all`, `*`). */
function nodeFilter(node: NodeContext, q: Query): (n: NodeInfo) => boolean {
  const spec = q.nodes ?? q.node_id;
  if (spec === undefined || spec === '' || spec === '_all' || spec === '*') return () => true;
  const parts = spec.split(',');
  return (n) => parts.some((p) => p === n.id || p === n.name || (p === '_local' && n.id === node.nodeId));
}

function nodeHeader(n: NodeInfo): Record<string, unknown> {
  const host = n.httpAddress.split(':')[0] ?? n.httpAddress;
  return { name: n.name, transport_address: n.transportAddress, host, ip: host, roles: n.data ? ['master', 'data', 'ingest'] : ['master', 'ingest'] };
}

function splitList(v: string | undefined): string[] | undefined {
  return v === undefined || v === '' ? undefined : v.split(',');
}

/** Renders task infos in the grouping `group_by` asks for (`nodes` by default, `parents`, `none`). */
function grouped(groupBy: string, byNode: readonly { node: NodeInfo; tasks: TaskInfoJson[] }[]): Record<string, unknown> {
  if (groupBy === 'none') return { tasks: byNode.flatMap((b) => b.tasks) };
  if (groupBy === 'parents') {
    const all = byNode.flatMap((b) => b.tasks);
    const ids = new Set(all.map((t) => `${String(t.node)}:${String(t.id)}`));
    const out: Record<string, TaskInfoJson> = {};
    for (const t of all) {
      const parent = t.parent_task_id as string | undefined;
      if (parent !== undefined && ids.has(parent)) continue;
      out[`${String(t.node)}:${String(t.id)}`] = { ...t };
    }
    for (const t of all) {
      const parent = t.parent_task_id as string | undefined;
      if (parent === undefined || !ids.has(parent)) continue;
      const p = out[parent];
      if (p) ((p.children as TaskInfoJson[] | undefined) ?? (p.children = [])).push(t);
    }
    return { tasks: out };
  }
  if (groupBy !== 'nodes') throw illegalArgument(`Unknown group_by value [${groupBy}]; expected one of [nodes, parents, none]`);
  const nodes: Record<string, unknown> = {};
  for (const b of byNode) {
    const tasks: Record<string, TaskInfoJson> = {};
    for (const t of b.tasks) tasks[`${String(t.node)}:${String(t.id)}`] = t;
    nodes[b.node.id] = { ...nodeHeader(b.node), tasks };
  }
  return { nodes };
}

/** ListTasksResponse of this node's `tasks` (`_rethrottle`, `_cancel`). */
export function listTasksResponse(node: NodeContext, tasks: readonly RunningTask[], q: Query): Record<string, unknown> {
  const detailed = boolParam(q, 'detailed', false);
  const self = node.directory.self;
  return grouped(q.group_by ?? 'nodes', tasks.length === 0 ? [] : [{ node: self, tasks: tasks.map((t) => t.info(detailed)) }]);
}

/** A request to another node's tasks API; its JSON answer, or an EsError. */
async function askNode(n: NodeInfo, method: string, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`http://${n.httpAddress}${path}`, { method });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status >= 400) {
    const e = body.error as { type?: string; reason?: string } | undefined;
    throw new EsError(e?.type ?? 'exception', e?.reason ?? `node [${n.name}] answered ${res.status}`, res.status);
  }
  return body;
}

function failedNode(n: NodeInfo, err: unknown): Record<string, unknown> {
  const reason = err instanceof Error ? err.message : String(err);
  return { type: 'failed_node_exception', reason: `Failed node [${n.id}]`, node_id: n.id, caused_by: { type: isEsError(err) ? err.type : 'connect_transport_exception', reason } };
}

export function taskHandlers(node: NodeContext) {
  const list = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const detailed = boolParam(q, 'detailed', false);
    const groupBy = q.group_by ?? 'nodes';
    if (!['nodes', 'parents', 'none'].includes(groupBy)) throw illegalArgument(`Unknown group_by value [${groupBy}]; expected one of [nodes, parents, none]`);
    const filter = { actions: splitList(q.actions), parentTaskId: q.parent_task_id };
    const wanted = nodeFilter(node, q);
    return node.tasks.run({ action: LIST_ACTION, description: '', cancellable: false }, async () => {
      if (boolParam(q, 'wait_for_completion', false)) {
        const deadline = Date.now() + timeParam(q, 'timeout', DEFAULT_WAIT_MS);
        const waiting = node.tasks.list(filter).filter((t) => t.action !== LIST_ACTION);
        await Promise.all(waiting.map((t) => node.tasks.waitFor(t.id, Math.max(0, deadline - Date.now()))));
      }
      const byNode: { node: NodeInfo; tasks: TaskInfoJson[] }[] = [];
      const failures: Record<string, unknown>[] = [];
      await Promise.all(
        node.directory
          .nodes()
          .filter(wanted)
          .map(async (n) => {
            if (n.id === node.nodeId) {
              byNode.push({ node: n, tasks: node.tasks.list(filter).map((t) => t.info(detailed)) });
              return;
            }
            const qs = new URLSearchParams({ nodes: n.id, group_by: 'none', detailed: String(detailed) });
            if (q.actions) qs.set('actions', q.actions);
            if (q.parent_task_id) qs.set('parent_task_id', q.parent_task_id);
            try {
              const body = await askNode(n, 'GET', `/_tasks?${qs.toString()}`);
              byNode.push({ node: n, tasks: (body.tasks as TaskInfoJson[] | undefined) ?? [] });
            } catch (err) {
              failures.push(failedNode(n, err));
            }
          }),
      );
      byNode.sort((a, b) => (a.node.id < b.node.id ? -1 : 1));
      const out: Record<string, unknown> = {};
      if (failures.length > 0) out.node_failures = failures;
      Object.assign(out, grouped(groupBy, byNode.filter((b) => b.tasks.length > 0 || groupBy !== 'nodes')));
      return sendJson(reply, 200, out);
    });
  };

  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const text = params(req).task_id;
    const { nodeId, id } = parseTaskId(text);
    if (nodeId !== node.nodeId) {
      const other = node.directory.nodes().find((n) => n.id === nodeId);
      if (other === undefined) throw taskNotFound(text);
      const qs = new URLSearchParams();
      if (q.wait_for_completion !== undefined) qs.set('wait_for_completion', q.wait_for_completion);
      if (q.timeout !== undefined) qs.set('timeout', q.timeout);
      return sendJson(reply, 200, await askNode(other, 'GET', `/_tasks/${encodeURIComponent(text)}?${qs.toString()}`));
    }
    const running = node.tasks.get(id);
    if (running !== undefined && boolParam(q, 'wait_for_completion', false)) {
      const snapshot = running.info(true);
      const r = await node.tasks.waitFor(id, timeParam(q, 'timeout', DEFAULT_WAIT_MS));
      if (r === undefined) throw new EsError('timeout_exception', `Timed out waiting for completion of [${running.action}]`, 408);
      // A task that kept no result answers with what it looked like when it ended (TransportGetTaskAction).
      return sendJson(reply, 200, r === null ? { completed: true, task: snapshot } : { completed: true, ...r });
    }
    if (running !== undefined) return sendJson(reply, 200, { completed: false, task: running.info(true) });
    const stored = node.tasks.result(id);
    if (stored === undefined) throw taskNotFound(text);
    return sendJson(reply, 200, { completed: true, ...stored });
  };

  const cancel = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const text = params(req).task_id;
    if (text !== undefined) {
      const { nodeId, id } = parseTaskId(text);
      if (nodeId !== node.nodeId) {
        const other = node.directory.nodes().find((n) => n.id === nodeId);
        if (other === undefined) throw new EsError('resource_not_found_exception', `task [${text}] is not found`, 404);
        return sendJson(reply, 200, await askNode(other, 'POST', `/_tasks/${encodeURIComponent(text)}/_cancel`));
      }
      const task = node.tasks.get(id);
      if (task === undefined) throw new EsError('resource_not_found_exception', `task [${text}] is not found`, 404);
      if (!task.cancellable) throw illegalArgument(`task [${text}] doesn't support cancellation`);
      task.cancel('by user request');
      return sendJson(reply, 200, listTasksResponse(node, [task], q));
    }
    const tasks = node.tasks.list({ actions: splitList(q.actions), parentTaskId: q.parent_task_id }).filter((t) => t.cancellable);
    for (const t of tasks) t.cancel('by user request');
    return sendJson(reply, 200, listTasksResponse(node, tasks, q));
  };

  return { list, get, cancel };
}
