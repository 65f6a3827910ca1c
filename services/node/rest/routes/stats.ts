/**
 * Index stats: `GET /_stats`, `/_stats/{metric}`, `/{index}/_stats`,
 * `/{index}/_stats/{metric}` (Elasticsearch's IndicesStatsResponse: `_all`
 * primaries and totals, per index with `level=indices` (default), per copy
 * with `level=shards`). Every figure comes from the copies' shard workers at
 * the time of the request (services/node/stats).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { CommonStats, INDEX_METRICS, ALL_SECTIONS, typeMatcher, type RenderOptions, type Section } from '../../stats/common-stats.ts';
import type { CopyStatsView } from '../../stats/copy-view.ts';
import { boolParam, indicesOptions, listParam, params, query, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { unrecognized } from '../unrecognized.ts';

/** The request path without its query string (as `request.path()` in error messages). */
export function pathOf(req: FastifyRequest): string {
  const i = req.url.indexOf('?');
  return i < 0 ? req.url : req.url.slice(0, i);
}

/** `{metric}` of `/_stats/{metric}` (or of `/_nodes/stats/indices/{metric}`): the sections it turns on. */
export function indexSections(path: string, metric: string | undefined): Set<Section> {
  if (metric === undefined || metric === '' || metric === '_all') return new Set(ALL_SECTIONS);
  const names = metric.split(',').map((m) => m.trim());
  if (names.includes('_all')) throw illegalArgument(`request [${path}] contains _all and individual metrics [${metric}]`);
  const invalid = names.filter((n) => !INDEX_METRICS.has(n));
  if (invalid.length > 0) throw unrecognized(path, invalid, INDEX_METRICS.keys(), 'metric');
  const out = new Set<Section>();
  for (const n of names) for (const s of INDEX_METRICS.get(n)!) out.add(s);
  return out;
}

export function renderOptions(q: Query): RenderOptions {
  return {
    human: boolParam(q, 'human', false),
    types: typeMatcher(listParam(q, 'types') ?? null),
    segmentFileSizes: boolParam(q, 'include_segment_file_sizes', false),
  };
}

/** A copy's entry under `shards.<n>` (ShardStats.toXContent). */
function shardEntry(view: CopyStatsView, sections: ReadonlySet<Section>, opts: RenderOptions): Record<string, unknown> {
  const s = view.stats;
  const last = Math.max(-1, view.appliedOffset - 1);
  return {
    routing: { state: view.state, primary: view.primary, node: view.nodeId, relocating_node: null },
    ...new CommonStats().add(view).render(sections, opts),
    commit: {
      // The commit point is the copy's segment list and the log offset it covers: its id names both.
      id: Buffer.from(`${view.uuid}/${view.shard}/${s.committedOffset}`).toString('base64'),
      generation: s.counters.flushTotal,
      user_data: { local_checkpoint: String(s.committedOffset - 1), max_seq_no: String(s.committedOffset - 1), max_unsafe_auto_id_timestamp: '-1' },
      num_docs: s.docCount,
    },
    seq_no: { max_seq_no: last, local_checkpoint: last, global_checkpoint: last },
    shard_path: { state_path: view.dataPath, data_path: view.dataPath, is_custom_data_path: false },
  };
}

/** Expected copies of the indices: what `_shards.total` counts (unassigned ones included, as Elasticsearch does). */
export function copiesOf(metas: readonly IndexMetadata[]): number {
  return metas.reduce((n, m) => n + m.settings.numberOfShards * (m.settings.numberOfReplicas + 1), 0);
}

export function statsHandlers(node: NodeContext) {
  const indexStats = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const path = pathOf(req);
    const sections = indexSections(path, p.metric);
    const level = q.level ?? 'indices';
    if (!['cluster', 'indices', 'shards'].includes(level)) {
      throw illegalArgument(`level parameter must be one of [cluster] or [indices] or [shards] but was [${level}]`);
    }
    const opts = renderOptions(q);
    const resolved = resolveIndices(node.cluster, p.index, {
      ...indicesOptions(q),
      forbidClosed: true,
    });
    const metas = [...new Map(resolved.filter((r) => !r.meta.closed).map((r) => [r.meta.uuid, r.meta])).values()];
    const gathered = await node.nodeAdmin.copyStats(metas);
    const views = gathered.results.flat();
    const failedNodes = new Set(gathered.failedNodes.map((f) => f.node.id));
    let failed = 0;
    for (const m of metas) for (let s = 0; s < m.settings.numberOfShards; s++) failed += node.directory.routes(m, s).filter((r) => failedNodes.has(r.node.id)).length;

    const primaries = new CommonStats();
    const total = new CommonStats();
    const byIndex = new Map<string, CopyStatsView[]>();
    for (const v of views) {
      total.add(v);
      if (v.primary) primaries.add(v);
      byIndex.set(v.index, [...(byIndex.get(v.index) ?? []), v]);
    }
    const out: Record<string, unknown> = {
      _shards: { total: copiesOf(metas), successful: views.length, failed },
      _all: { primaries: primaries.render(sections, opts), total: total.render(sections, opts) },
    };
    if (level !== 'cluster') {
      const indices: Record<string, unknown> = {};
      for (const name of [...byIndex.keys()].sort()) {
        const copies = byIndex.get(name)!;
        const ip = new CommonStats();
        const it = new CommonStats();
        for (const v of copies) {
          it.add(v);
          if (v.primary) ip.add(v);
        }
        const entry: Record<string, unknown> = { primaries: ip.render(sections, opts), total: it.render(sections, opts) };
        if (level === 'shards') {
          const shards: Record<string, unknown[]> = {};
          for (const v of [...copies].sort((a, b) => a.shard - b.shard || Number(b.primary) - Number(a.primary))) {
            (shards[String(v.shard)] ??= []).push(shardEntry(v, sections, opts));
          }
          entry.shards = shards;
        }
        setOwn(indices, name, entry);
      }
      out.indices = indices;
    }
    return sendJson(reply, 200, out);
  };

  return { indexStats };
}
