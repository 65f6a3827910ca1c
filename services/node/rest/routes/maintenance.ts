/**
 * Index maintenance: `_flush` (and `_flush/synced`), `_forcemerge`,
 * `_cache/clear`, `_segments`, `_recovery`, `_rollover`, and `_shrink` /
 * `_split`, which this server refuses (a shard count is fixed at creation).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument, indexNotFound } from '../../../../shared/errors/es-errors.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { conditionMet, conditionName, parseRolloverBody, rolloverSource, rolloverTarget } from '../../coordinator/rollover.ts';
import { CommonStats } from '../../stats/common-stats.ts';
import type { Gathered } from '../../stats/node-admin.ts';
import { ES_VERSION } from '../../version.ts';
import { boolParam, indicesOptions, intParam, jsonBody, params, query, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { includeTypeName } from './indices.ts';
import { copiesOf } from './stats.ts';

/** BroadcastRequest's options: open indices, a closed one named explicitly is index_closed_exception. */
function targets(node: NodeContext, expr: string | undefined, q: Query): IndexMetadata[] {
  const resolved = resolveIndices(node.cluster, expr, {
    ...indicesOptions(q),
    forbidClosed: true,
  });
  return [...new Map(resolved.filter((r) => !r.meta.closed).map((r) => [r.meta.uuid, r.meta])).values()];
}

/** `_shards` of a broadcast over the copies a cluster-wide action reached. */
function shardsHeader(node: NodeContext, metas: readonly IndexMetadata[], gathered: Gathered<number>): Record<string, number> {
  const failedNodes = new Set(gathered.failedNodes.map((f) => f.node.id));
  let failed = 0;
  for (const m of metas) for (let s = 0; s < m.settings.numberOfShards; s++) failed += node.directory.routes(m, s).filter((r) => failedNodes.has(r.node.id)).length;
  return { total: copiesOf(metas), successful: gathered.results.reduce((a, b) => a + b, 0), failed };
}

export function maintenanceHandlers(node: NodeContext) {
  /** `_flush`: every applied op committed to segment files; a restart then replays none of them. */
  const flush = async (req: FastifyRequest, reply: FastifyReply) => {
    const metas = targets(node, params(req).index, query(req));
    const { total, successful } = await node.flush(metas);
    return sendJson(reply, 200, { _shards: { total, successful, failed: 0 } });
  };

  /** `_flush/synced`: a commit is what a synced flush marks; answered per index as Elasticsearch does. */
  const syncedFlush = async (req: FastifyRequest, reply: FastifyReply) => {
    const metas = targets(node, params(req).index, query(req));
    const out: Record<string, unknown> = {};
    let total = 0;
    let successful = 0;
    for (const m of metas) {
      const r = await node.flush([m]);
      total += r.total;
      successful += r.successful;
      setOwn(out, m.name, { total: r.total, successful: r.successful, failed: 0 });
    }
    return sendJson(reply, 200, { _shards: { total, successful, failed: 0 }, ...out });
  };

  const forceMerge = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const metas = targets(node, params(req).index, q);
    const gathered = await node.nodeAdmin.forceMerge(metas, {
      maxNumSegments: intParam(q, 'max_num_segments') ?? -1,
      onlyExpungeDeletes: boolParam(q, 'only_expunge_deletes', false),
      flush: boolParam(q, 'flush', true),
    });
    return sendJson(reply, 200, { _shards: shardsHeader(node, metas, gathered) });
  };

  /** `_cache/clear`: the filter caches (Elasticsearch's query cache); there is no request or field data cache to clear. */
  const clearCache = async (req: FastifyRequest, reply: FastifyReply) => {
    const metas = targets(node, params(req).index, query(req));
    const gathered = await node.nodeAdmin.clearCache(metas);
    return sendJson(reply, 200, { _shards: shardsHeader(node, metas, gathered) });
  };

  const segments = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const metas = targets(node, params(req).index, q);
    const gathered = await node.nodeAdmin.segments(metas);
    const copies = gathered.results.flat();
    const indices: Record<string, { shards: Record<string, unknown[]> }> = {};
    for (const c of [...copies].sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : a.shard - b.shard))) {
      const entry = (Object.hasOwn(indices, c.index) ? indices[c.index] : undefined) ?? { shards: {} };
      setOwn(indices, c.index, entry);
      const segs: Record<string, unknown> = {};
      for (const s of c.segments) {
        segs[`_${s.id.toString(36)}`] = {
          generation: s.id,
          num_docs: s.numDocs,
          deleted_docs: s.maxDoc - s.numDocs,
          size_in_bytes: s.sizeInBytes,
          memory_in_bytes: s.memoryInBytes,
          committed: s.committed,
          search: true,
          version: ES_VERSION.lucene_version,
          compound: false,
        };
      }
      (entry.shards[String(c.shard)] ??= []).push({
        routing: { state: c.state, primary: c.primary, node: c.nodeId },
        num_committed_segments: c.segments.filter((s) => s.committed).length,
        num_search_segments: c.segments.length,
        segments: segs,
      });
    }
    const failedNodes = new Set(gathered.failedNodes.map((f) => f.node.id));
    let failed = 0;
    for (const m of metas) for (let s = 0; s < m.settings.numberOfShards; s++) failed += node.directory.routes(m, s).filter((r) => failedNodes.has(r.node.id)).length;
    return sendJson(reply, 200, { _shards: { total: copiesOf(metas), successful: copies.length, failed }, indices });
  };

  /**
   * `_recovery`: each copy's build when it opened, from its checkpoint
   * (EXISTING_STORE) or from offset 0 (EMPTY_STORE), by replaying its log
   * partition; Elasticsearch's translog figures count the records.
   */
  const recovery = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const activeOnly = boolParam(q, 'active_only', false);
    const metas = targets(node, params(req).index, q);
    const now = Date.now();
    const out: Record<string, unknown> = {};
    for (const m of [...metas].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const shards: unknown[] = [];
      for (let s = 0; s < m.settings.numberOfShards; s++) {
        for (const route of node.directory.routes(m, s)) {
          const r = route.recovery;
          if (r === null || (activeOnly && r.stopTime !== null)) continue;
          const total = r.targetOffset - r.startOffset;
          const done = Math.max(0, Math.min(r.appliedOffset, r.targetOffset) - r.startOffset);
          const elapsed = (r.stopTime ?? now) - r.startTime;
          const host = route.node.transportAddress.slice(0, route.node.transportAddress.lastIndexOf(':'));
          shards.push({
            id: s,
            type: r.type.toUpperCase(),
            stage: r.stopTime === null ? 'TRANSLOG' : 'DONE',
            primary: route.primary,
            start_time_in_millis: r.startTime,
            ...(r.stopTime === null ? {} : { stop_time_in_millis: r.stopTime }),
            total_time_in_millis: elapsed,
            source: {},
            target: { id: route.node.id, host, transport_address: route.node.transportAddress, ip: host, name: route.node.name },
            index: {
              size: { total_in_bytes: 0, reused_in_bytes: 0, recovered_in_bytes: 0, percent: '0.0%' },
              files: { total: 0, reused: 0, recovered: 0, percent: '0.0%' },
              total_time_in_millis: 0,
              source_throttle_time_in_millis: 0,
              target_throttle_time_in_millis: 0,
            },
            translog: {
              recovered: done,
              total,
              percent: `${(total === 0 ? 100 : (100 * done) / total).toFixed(1)}%`,
              total_on_start: total,
              total_time_in_millis: elapsed,
            },
            verify_index: { check_index_time_in_millis: 0, total_time_in_millis: 0 },
          });
        }
      }
      if (shards.length > 0 || !activeOnly) setOwn(out, m.name, { shards });
    }
    return sendJson(reply, 200, out);
  };

  const rollover = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const body = parseRolloverBody(jsonBody(req));
    const dryRun = boolParam(q, 'dry_run', false);
    const { meta: source, explicitWriteIndex } = rolloverSource(node.cluster, p.alias);
    const target = rolloverTarget(node.cluster, source, p.new_index);
    // The conditions read the write index's primaries as searches see them now.
    const gathered = await node.nodeAdmin.copyStats([source]);
    const primaries = new CommonStats();
    for (const v of gathered.results.flat()) if (v.primary) primaries.add(v);
    const figures = { ageMs: Date.now() - source.creationDate, docs: primaries.docCount, bytes: primaries.storeBytes };
    const results: Record<string, boolean> = {};
    for (const c of body.conditions) results[conditionName(c)] = conditionMet(c, figures);
    const met = body.conditions.length === 0 || Object.values(results).some(Boolean);
    const answer = { old_index: source.name, new_index: target, rolled_over: false, dry_run: dryRun, conditions: results };
    if (dryRun || !met) return sendJson(reply, 200, { acknowledged: false, shards_acknowledged: false, ...answer });
    let mappings = body.mappings;
    if (!includeTypeName(q) && mappings && typeof mappings === 'object' && Object.keys(mappings).length > 0) mappings = { _doc: mappings };
    await node.admin.createIndex(target, { settings: body.settings, mappings, aliases: body.aliases });
    const alias = p.alias;
    const actions = explicitWriteIndex
      ? [{ add: { index: target, alias, is_write_index: true } }, { add: { index: source.name, alias, is_write_index: false } }]
      : [{ add: { index: target, alias } }, { remove: { index: source.name, alias } }];
    await node.admin.updateAliases({ actions });
    return sendJson(reply, 200, { acknowledged: true, shards_acknowledged: true, ...answer, rolled_over: true });
  };

  /** `_shrink` and `_split` need a new shard count over the same data; a copy here is a view of one log partition, so they are refused. */
  const resize = (kind: '_shrink' | '_split') => async (req: FastifyRequest, reply: FastifyReply) => {
    void reply;
    const p = params(req);
    if (!node.cluster.index(p.index)) throw indexNotFound(p.index);
    throw illegalArgument(
      `[${kind}] is not supported: the shard count of [${p.index}] was fixed at creation (each shard is a partition of its log). ` +
        `Create [${p.target}] with the shard count you want and reindex into it (POST /_reindex).`,
    );
  };

  return { flush, syncedFlush, forceMerge, clearCache, segments, recovery, rollover, shrink: resize('_shrink'), split: resize('_split') };
}

