/**
 * Realtime document reads (GET, HEAD, _source, _mget): route to the shard
 * that owns the id and read a started copy's doc store, which sees every
 * op that copy applied.
 */
import { illegalArgument, indexNotFound, isEsError, noShardAvailable, type EsError } from '../../../shared/errors/es-errors.ts';
import { shardForDocument } from '../../../shared/routing/shard-routing.ts';
import type { DocState } from '../../../shared/engine/store/doc-state.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardDirectory } from '../copies/shard-directory.ts';
import type { CopyAccess, CopyRead } from '../copies/copy-access.ts';
import { resolveIndices } from '../cluster/index-resolver.ts';

export interface GetRequest {
  readonly index: string;
  /** `_all` or null matches any type. */
  readonly type: string | null;
  readonly id: string;
  readonly routing: string | null;
  /** Expected version: a mismatch is a 409 as in Elasticsearch. */
  readonly version: number | null;
  /**
   * false = read what searches see (`realtime=false`): a document written
   * after the last refresh is not visible yet. Default true.
   */
  readonly realtime?: boolean;
  /** Which copies to read (`preference`); default: rotate over the started copies. */
  readonly preference?: string | null;
}

export interface GetResult {
  readonly meta: IndexMetadata;
  readonly type: string;
  readonly id: string;
  /** Null when not found. */
  readonly doc: DocState | null;
}

export class DocReader {
  constructor(
    private readonly state: ClusterState,
    private readonly directory: ShardDirectory,
    private readonly access: CopyAccess,
  ) {}

  /** Reads from the started copies in read order; a copy that fails is retried on the next. */
  private async readFromSomeCopy(meta: IndexMetadata, shard: number, id: string, preference: string | null): Promise<CopyRead> {
    const order = this.directory.readOrder(meta, shard, preference);
    if (order.length === 0) throw noShardAvailable(meta.name, shard);
    let last: unknown;
    for (const route of order) {
      try {
        return await this.access.get(route, meta, shard, id);
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /** The single index a GET addresses (an alias must point to exactly one). */
  resolveOne(index: string): { meta: IndexMetadata; aliasRouting: string | null } {
    const resolved = resolveIndices(this.state, index, { allowNoIndices: false, forbidClosed: true });
    if (resolved.length === 0) throw indexNotFound(index);
    if (resolved.length > 1) {
      throw illegalArgument(
        `Alias [${index}] has more than one indices associated with it [[${resolved.map((r) => r.meta.name).join(', ')}]], can't execute a single index op`,
      );
    }
    const r = resolved[0];
    return { meta: r.meta, aliasRouting: r.direct ? null : (r.viaAliases[0]?.indexRouting ?? null) };
  }

  /**
   * Many GETs (`_mget`): the ids of one shard are read together, in one
   * request to one copy, instead of one request each. A request that fails
   * (a missing index, no copy) is an error in its place.
   */
  async getMany(reqs: readonly GetRequest[]): Promise<(GetResult | EsError)[]> {
    const out = new Array<GetResult | EsError>(reqs.length);
    const resolved = new Map<string, { meta: IndexMetadata; aliasRouting: string | null } | EsError>();
    const groups = new Map<string, { meta: IndexMetadata; shard: number; preference: string | null; items: { at: number; type: string; id: string; realtime: boolean }[] }>();
    for (let i = 0; i < reqs.length; i++) {
      const req = reqs[i]!;
      let r = resolved.get(req.index);
      if (r === undefined) {
        try {
          r = this.resolveOne(req.index);
        } catch (err) {
          if (!isEsError(err)) throw err;
          r = err;
        }
        resolved.set(req.index, r);
      }
      if (isEsError(r)) {
        out[i] = r;
        continue;
      }
      const { meta, aliasRouting } = r;
      const typeName = meta.mapping?.typeName ?? req.type ?? '_doc';
      const type = req.type === null || req.type === '_all' ? typeName : req.type;
      if (req.type !== null && req.type !== '_all' && meta.mapping?.typeName !== req.type) {
        out[i] = { meta, type, id: req.id, doc: null };
        continue;
      }
      const shard = shardForDocument(req.id, req.routing ?? aliasRouting, meta.settings);
      const preference = req.preference ?? null;
      const key = `${meta.uuid}/${shard}/${preference ?? ''}`;
      let g = groups.get(key);
      if (g === undefined) {
        g = { meta, shard, preference, items: [] };
        groups.set(key, g);
      }
      g.items.push({ at: i, type, id: req.id, realtime: req.realtime !== false });
    }
    await Promise.all(
      [...groups.values()].map(async (g) => {
        try {
          await this.directory.ready(g.meta);
          const read = await this.readManyFromSomeCopy(g.meta, g.shard, g.items.map((it) => it.id), g.preference);
          g.items.forEach((it, j) => {
            let doc = read.docs[j] && !read.docs[j].deleted ? read.docs[j] : null;
            if (doc && !it.realtime && doc.seqNo >= read.refreshedOffset) doc = null;
            out[it.at] = { meta: g.meta, type: it.type, id: it.id, doc };
          });
        } catch (err) {
          if (!isEsError(err)) throw err;
          for (const it of g.items) out[it.at] = err;
        }
      }),
    );
    return out;
  }

  /**
   * The version states (and sources) of `ids` on one shard as a copy of this
   * node sees them (another node's when this one holds none), once that copy
   * applied its partition of the log below `appliedUpTo`: every op up to
   * that offset counts, tombstones included (`_reindex` replayed from the
   * log, reindex-replay.ts).
   */
  async shardStates(meta: IndexMetadata, shard: number, ids: readonly string[], appliedUpTo: number): Promise<(DocState | undefined)[]> {
    const order = this.directory.readOrder(meta, shard, '_local');
    if (order.length === 0) throw noShardAvailable(meta.name, shard);
    let last: unknown;
    for (const route of order) {
      try {
        if (!(await this.access.waitApplied(route, meta, shard, appliedUpTo, 60_000))) throw noShardAvailable(meta.name, shard);
        return (await this.access.getMany(route, meta, shard, ids)).docs;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  private async readManyFromSomeCopy(meta: IndexMetadata, shard: number, ids: readonly string[], preference: string | null): Promise<{ docs: (DocState | undefined)[]; refreshedOffset: number }> {
    const order = this.directory.readOrder(meta, shard, preference);
    if (order.length === 0) throw noShardAvailable(meta.name, shard);
    let last: unknown;
    for (const route of order) {
      try {
        return await this.access.getMany(route, meta, shard, ids);
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  async get(req: GetRequest): Promise<GetResult> {
    const { meta, aliasRouting } = this.resolveOne(req.index);
    const typeName = meta.mapping?.typeName ?? req.type ?? '_doc';
    const type = req.type === null || req.type === '_all' ? typeName : req.type;
    if (req.type !== null && req.type !== '_all' && meta.mapping?.typeName !== req.type) {
      return { meta, type, id: req.id, doc: null };
    }
    const routing = req.routing ?? aliasRouting;
    const shard = shardForDocument(req.id, routing, meta.settings);
    await this.directory.ready(meta);
    const read = await this.readFromSomeCopy(meta, shard, req.id, req.preference ?? null);
    let doc = read.doc && !read.doc.deleted ? read.doc : null;
    // The refreshed view does not hold earlier versions of a changed document,
    // so a document changed since the last refresh reads as not found.
    if (doc && req.realtime === false && doc.seqNo >= read.refreshedOffset) doc = null;
    return { meta, type, id: req.id, doc };
  }
}
