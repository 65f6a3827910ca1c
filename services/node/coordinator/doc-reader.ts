/**
 * Realtime document reads (GET, HEAD, _source, _mget): route to the shard
 * that owns the id and read its doc store, which sees every applied op.
 */
import { illegalArgument, indexNotFound } from '../../../shared/errors/es-errors.ts';
import { shardForDocument } from '../../../shared/routing/shard-routing.ts';
import type { DocState } from '../../../shared/engine/store/doc-store.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { IndicesService } from '../indexer/indices-service.ts';
import { resolveIndices } from './index-resolver.ts';

export interface GetRequest {
  readonly index: string;
  /** `_all` or null matches any type. */
  readonly type: string | null;
  readonly id: string;
  readonly routing: string | null;
  /** Expected version: a mismatch is a 409 as in Elasticsearch. */
  readonly version: number | null;
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
    private readonly indices: IndicesService,
  ) {}

  /** The single index a GET addresses (an alias must point to exactly one). */
  resolveOne(index: string): { meta: IndexMetadata; aliasRouting: string | null } {
    const resolved = resolveIndices(this.state, index, { allowNoIndices: false });
    if (resolved.length === 0) throw indexNotFound(index);
    if (resolved.length > 1) {
      throw illegalArgument(
        `Alias [${index}] has more than one indices associated with it [[${resolved.map((r) => r.meta.name).join(', ')}]], can't execute a single index op`,
      );
    }
    const r = resolved[0];
    return { meta: r.meta, aliasRouting: r.viaAliases[0]?.searchRouting ?? null };
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
    const copies = await this.indices.copiesOf(meta);
    const state = await copies[shard].get(req.id);
    const doc = state && !state.deleted ? state : null;
    return { meta, type, id: req.id, doc };
  }
}
