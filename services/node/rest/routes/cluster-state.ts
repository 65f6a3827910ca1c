/**
 * `GET /_cluster/state[/{metric}[/{index}]]` (version, master_node, blocks,
 * nodes, metadata with templates, indices and stored scripts, routing_table,
 * routing_nodes, customs), `GET /_cluster/pending_tasks` and
 * `GET|POST /_cluster/allocation/explain`, in Elasticsearch 6.8's shapes.
 * The metadata is the meta log applied (cluster/cluster-state.ts); the
 * routing is the allocation as the shard directory sees it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { EsError, illegalArgument } from '../../../../shared/errors/es-errors.ts';
import { formatByteSize } from '../../../../shared/engine/mapping/byte-size-value.ts';
import { formatTimeValue } from '../../../../shared/engine/mapping/time-value.ts';
import { getOwn, setOwn } from '../../../../shared/json/own-keys.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import type { CopyRoute } from '../../copies/shard-directory.ts';
import { renderTemplate } from '../../cluster/index-templates.ts';
import { enableDecision } from '../../cluster/allocation.ts';
import { allocationEnableFor } from '../../cluster/allocation-settings.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { boolParam, jsonBody, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { mappingsBody } from './indices.ts';
import { indexSettingsFlat, renderFlatOrNested } from './settings.ts';

const METRICS = ['version', 'master_node', 'blocks', 'nodes', 'metadata', 'routing_table', 'routing_nodes', 'customs'] as const;
type Metric = (typeof METRICS)[number];

/** A stable id of 22 URL-safe characters (Elasticsearch's UUIDs), derived from what it names. */
function derivedId(...parts: (string | number)[]): string {
  return createHash('sha1').update(parts.join('/')).digest('base64url').slice(0, 22);
}

/** A copy's ShardRouting as the cluster state prints it. */
function shardRouting(meta: IndexMetadata, shard: number, route: CopyRoute | null, primary: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    state: route === null ? 'UNASSIGNED' : route.state,
    primary,
    node: route?.node.id ?? null,
    relocating_node: null,
    shard,
    index: meta.name,
  };
  if (route === null || route.state === 'INITIALIZING') {
    out.recovery_source = { type: route?.recovery?.type === 'existing_store' ? 'EXISTING_STORE' : primary ? 'EMPTY_STORE' : 'PEER' };
  }
  if (route !== null) out.allocation_id = { id: derivedId(meta.uuid, shard, route.node.id) };
  else {
    out.unassigned_info = {
      reason: primary ? 'INDEX_CREATED' : 'REPLICA_ADDED',
      at: new Date(meta.creationDate).toISOString(),
      delayed: false,
      allocation_status: 'no_attempt',
    };
  }
  return out;
}

export function clusterStateHandlers(node: NodeContext) {
  /** Every copy of every shard of `metas`: assigned ones, then as many unassigned as the index wants. */
  const routings = (metas: readonly IndexMetadata[]) => {
    const out: { meta: IndexMetadata; shard: number; routing: Record<string, unknown> }[] = [];
    for (const m of metas) {
      if (m.closed) continue;
      for (let s = 0; s < m.settings.numberOfShards; s++) {
        const routes = node.directory.routes(m, s);
        for (const r of routes) out.push({ meta: m, shard: s, routing: shardRouting(m, s, r, r.primary) });
        let primaryMissing = !routes.some((r) => r.primary);
        for (let u = node.directory.unassigned(m, s); u > 0; u--) {
          out.push({ meta: m, shard: s, routing: shardRouting(m, s, null, primaryMissing) });
          primaryMissing = false;
        }
      }
    }
    return out;
  };

  const state = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const metricParam = p.metric ?? '_all';
    const metrics = new Set<Metric>();
    for (const m of metricParam.split(',').map((x) => x.trim())) {
      if (m === '_all') for (const all of METRICS) metrics.add(all);
      else if ((METRICS as readonly string[]).includes(m)) metrics.add(m as Metric);
      else throw illegalArgument(`Unknown metric [${m}]`);
    }
    const flat = boolParam(q, 'flat_settings', false);
    const cluster = node.cluster;
    const filtered = p.index !== undefined;
    const metas = (
      filtered ? resolveIndices(cluster, p.index, { ignoreUnavailable: true, expandWildcards: { open: true, closed: true } }).map((r) => r.meta) : cluster.indices()
    ).sort((a, b) => (a.name < b.name ? -1 : 1));
    const unique = [...new Map(metas.map((m) => [m.uuid, m])).values()];
    const master = node.directory.master();
    const body: Record<string, unknown> = { cluster_uuid: node.clusterUuid };
    if (metrics.has('version')) {
      body.version = cluster.version;
      body.state_uuid = derivedId(node.clusterUuid, cluster.version, cluster.appliedOffset);
    }
    if (metrics.has('master_node')) body.master_node = master?.id ?? null;
    if (metrics.has('blocks')) {
      const blocks: Record<string, unknown> = {};
      for (const m of unique) {
        if (m.closed) setOwn(blocks, m.name, { '4': { description: 'index closed', retryable: false, levels: ['read', 'write'] } });
      }
      body.blocks = Object.keys(blocks).length === 0 ? {} : { indices: blocks };
    }
    if (metrics.has('nodes')) {
      const nodes: Record<string, unknown> = {};
      for (const n of node.directory.nodes()) {
        setOwn(nodes, n.id, { name: n.name, ephemeral_id: derivedId(n.id, n.transportAddress), transport_address: n.transportAddress, attributes: n.attributes ?? {} });
      }
      body.nodes = nodes;
    }
    if (metrics.has('metadata')) {
      const templates: Record<string, unknown> = {};
      // Asked for some indices, Elasticsearch leaves the templates out.
      if (!filtered) {
        for (const [name, t] of [...cluster.templates()].sort(([a], [b]) => (a < b ? -1 : 1))) setOwn(templates, name, renderTemplate(t, { flatSettings: flat, includeTypeName: true }));
      }
      const indices: Record<string, unknown> = {};
      for (const m of unique) {
        const primaryTerms: Record<string, number> = {};
        const inSync: Record<string, string[]> = {};
        for (let s = 0; s < m.settings.numberOfShards; s++) {
          primaryTerms[String(s)] = 1;
          inSync[String(s)] = m.closed ? [] : node.directory.routes(m, s).map((r) => derivedId(m.uuid, s, r.node.id));
        }
        setOwn(indices, m.name, {
          version: m.mappingVersion + 1,
          mapping_version: Math.max(1, m.mappingVersion),
          settings_version: 1,
          state: m.closed ? 'close' : 'open',
          settings: renderFlatOrNested(indexSettingsFlat(m), flat),
          mappings: mappingsBody(m),
          aliases: [...m.aliases.keys()].sort(),
          primary_terms: primaryTerms,
          in_sync_allocations: inSync,
        });
      }
      const metadata: Record<string, unknown> = { cluster_uuid: node.clusterUuid, templates, indices, 'index-graveyard': { tombstones: [] } };
      if (!filtered && cluster.storedScripts.size > 0) {
        const scripts: Record<string, unknown> = {};
        for (const [id, s] of cluster.storedScripts) setOwn(scripts, id, { lang: s.lang, source: s.source });
        metadata.stored_scripts = scripts;
      }
      body.metadata = metadata;
    }
    const copies = metrics.has('routing_table') || metrics.has('routing_nodes') ? routings(unique) : [];
    if (metrics.has('routing_table')) {
      const indices: Record<string, { shards: Record<string, unknown[]> }> = {};
      for (const c of copies) {
        const entry = getOwn(indices, c.meta.name) ?? { shards: {} };
        setOwn(indices, c.meta.name, entry);
        (entry.shards[String(c.shard)] ??= []).push(c.routing);
      }
      body.routing_table = { indices };
    }
    if (metrics.has('routing_nodes')) {
      const nodes: Record<string, unknown[]> = {};
      for (const n of node.directory.nodes()) if (n.data) setOwn(nodes, n.id, []);
      const unassigned: unknown[] = [];
      for (const c of copies) {
        const at = c.routing.node as string | null;
        if (at === null) unassigned.push(c.routing);
        else (getOwn(nodes, at) ?? setNew(nodes, at)).push(c.routing);
      }
      body.routing_nodes = { unassigned, nodes };
    }
    if (metrics.has('customs')) {
      body.snapshots = { snapshots: [] };
      body.restore = { snapshots: [] };
      body.snapshot_deletions = { snapshot_deletions: [] };
    }
    // The state's size as Elasticsearch reports it: serialized and compressed.
    const compressed = deflateRawSync(Buffer.from(JSON.stringify(body))).length;
    const head: Record<string, unknown> = { cluster_name: node.config.clusterName };
    if (boolParam(q, 'human', false)) head.compressed_size = formatByteSize(compressed);
    head.compressed_size_in_bytes = compressed;
    return sendJson(reply, 200, { ...head, ...body });
  };

  /** `_cluster/pending_tasks`: the cluster changes this node appended to the meta log and has not applied yet. */
  const pendingTasks = async (req: FastifyRequest, reply: FastifyReply) => {
    const human = boolParam(query(req), 'human', false);
    const now = Date.now();
    const tasks = node.meta.pendingTasks().map((t) => ({
      insert_order: t.insertOrder,
      priority: t.priority,
      source: t.source,
      executing: false,
      ...(human ? { time_in_queue: formatTimeValue(now - t.since) } : {}),
      time_in_queue_millis: now - t.since,
    }));
    return sendJson(reply, 200, { tasks });
  };

  /**
   * `_cluster/allocation/explain`: why a copy is where it is, or why it is
   * unassigned. Copies are placed by the master's assigner (each shard's
   * copies on distinct data nodes); a replica without a node of its own
   * stays unassigned, as in Elasticsearch's same-shard decider.
   */
  const allocationExplain = async (req: FastifyRequest, reply: FastifyReply) => {
    const b = (jsonBody(req) ?? {}) as { index?: unknown; shard?: unknown; primary?: unknown; current_node?: unknown };
    let target: { meta: IndexMetadata; shard: number; primary: boolean } | null = null;
    if (b.index === undefined) {
      // No shard named: the first unassigned one, as Elasticsearch explains by default.
      for (const m of node.cluster.indices()) {
        if (m.closed) continue;
        for (let s = 0; s < m.settings.numberOfShards && target === null; s++) {
          if (node.directory.unassigned(m, s) > 0) target = { meta: m, shard: s, primary: !node.directory.routes(m, s).some((r) => r.primary) };
        }
        if (target) break;
      }
      if (target === null) {
        throw illegalArgument(
          'unable to find any unassigned shards to explain [ClusterAllocationExplainRequest[useAnyUnassignedShard=true,includeYesDecisions?=false]',
        );
      }
    } else {
      if (typeof b.index !== 'string' || typeof b.shard !== 'number' || typeof b.primary !== 'boolean') {
        throw new EsError('action_request_validation_exception', 'Validation Failed: 1: index must be specified;2: shard must be specified;3: primary must be specified;', 400);
      }
      const meta = resolveIndices(node.cluster, b.index, { allowNoIndices: false })[0]!.meta;
      if (b.shard < 0 || b.shard >= meta.settings.numberOfShards) throw illegalArgument(`No shard was specified in the request which means the response should explain a randomly-chosen unassigned shard, but there are no unassigned shards in this cluster.`);
      target = { meta, shard: b.shard, primary: b.primary };
    }
    const { meta, shard, primary } = target;
    const routes = node.directory.routes(meta, shard);
    const route = routes.find((r) => r.primary === primary) ?? null;
    const out: Record<string, unknown> = { index: meta.name, shard, primary, current_state: route === null ? 'unassigned' : route.state.toLowerCase() };
    if (route === null) {
      const holders = new Set(routes.map((r) => r.node.id));
      // The deciders that say no whatever the node, in Elasticsearch's order (replica_after_primary_active, enable, ...).
      const everywhere: { decider: string; decision: 'NO'; explanation: string }[] = [];
      if (!primary && !routes.some((r) => r.primary && r.state === 'STARTED')) {
        everywhere.push({ decider: 'replica_after_primary_active', decision: 'NO', explanation: 'primary shard for this replica is not yet active' });
      }
      const { enable, fromIndexSetting } = allocationEnableFor(meta, node.settings);
      const enableNo = enableDecision(enable, primary, primary && node.directory.freshShard(meta, shard), fromIndexSetting);
      if (enableNo !== null) everywhere.push({ decider: 'enable', decision: 'NO', explanation: enableNo });
      out.unassigned_info = { reason: primary ? 'INDEX_CREATED' : 'REPLICA_ADDED', at: new Date(meta.creationDate).toISOString(), last_allocation_status: 'no_attempt' };
      out.can_allocate = 'no';
      out.allocate_explanation = 'cannot allocate because allocation is not permitted to any of the nodes';
      out.node_allocation_decisions = node.directory
        .nodes()
        .filter((n) => n.data)
        .map((n) => ({
          node_id: n.id,
          node_name: n.name,
          transport_address: n.transportAddress,
          node_decision: 'no',
          deciders: holders.has(n.id)
            ? [
                ...everywhere,
                {
                  decider: 'same_shard',
                  decision: 'NO',
                  explanation: `the shard cannot be allocated to the same node on which a copy of the shard already exists [[${meta.name}][${shard}], node[${n.id}], [${routes.find((r) => r.node.id === n.id)?.primary ? 'P' : 'R'}], s[STARTED], a[id=${derivedId(meta.uuid, shard, n.id)}]]`,
                },
              ]
            : everywhere.length > 0
              ? everywhere
              : [{ decider: 'allocation', decision: 'NO', explanation: 'the master assigns each copy of a shard to a distinct data node; this node was not chosen' }],
        }));
    } else {
      out.current_node = { id: route.node.id, name: route.node.name, transport_address: route.node.transportAddress };
      out.can_remain_on_current_node = 'yes';
      out.can_rebalance_cluster = 'no';
      out.can_rebalance_cluster_decisions = [
        { decider: 'rebalance_only_when_active', decision: 'NO', explanation: 'copies move only when the membership changes; the master keeps the allocation sticky' },
      ];
      out.rebalance_explanation = 'rebalancing is not allowed';
    }
    return sendJson(reply, 200, out);
  };

  return { state, pendingTasks, allocationExplain };
}

function setNew(nodes: Record<string, unknown[]>, id: string): unknown[] {
  const list: unknown[] = [];
  setOwn(nodes, id, list);
  return list;
}
