/**
 * The searchable half of one shard copy, in its worker thread: the index's
 * mapping and analyzers, the copy's ShardIndex (buffer, segments, merges),
 * its filter cache and the views pinned by open search contexts.
 */
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import type { ParsedDocument } from '../../../shared/engine/mapping/types.ts';
import { ShardIndex } from '../../../shared/engine/segment/shard-index.ts';
import type { SearcherSnapshot } from '../../../shared/engine/segment/types.ts';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import type { PinnedContext, PinnedContexts, SearchMeta } from '../search/local-shard-client.ts';
import { readChangeBatch, type ChangeVisitor } from './change-batch.ts';
import type { CopyMeta, SegmentStats } from './protocol.ts';

const EMPTY_DOC: ParsedDocument = { fields: [], dynamicUpdate: null };

/** CopyMeta turned back into the engine's objects. */
export interface WorkerIndexMeta extends SearchMeta {
  readonly uuid: string;
  readonly mappingVersion: number;
}

export function indexMetaOf(m: CopyMeta, previous: WorkerIndexMeta | null): WorkerIndexMeta {
  // Analyzers come from settings that never change after creation: keep the built registry.
  const analyzers = previous?.analyzers ?? AnalysisRegistry.fromIndexSettings(m.settings.analysis, { maxNgramDiff: m.settings.maxNgramDiff });
  let mapping = previous?.mapping ?? null;
  if (previous === null || previous.mappingVersion !== m.mappingVersion) {
    mapping =
      m.mappingJson === null || m.typeName === null
        ? null
        : Mapping.fromJSON(m.typeName, JSON.parse(m.mappingJson), { analyzerExists: (n: string) => analyzers.get(n) !== undefined });
  }
  return { name: m.name, uuid: m.uuid, settings: m.settings, mapping, mappingVersion: m.mappingVersion, analyzers };
}

export class CopySegments implements ChangeVisitor {
  readonly segments: ShardIndex;
  readonly filterCache = new FilterCache();
  /** Views pinned by this copy's open search contexts, by the node's context id. */
  readonly contexts: PinnedContexts;
  private readonly pinned = new Map<number, PinnedContext>();
  private mergeScheduled = false;
  private closed = false;

  constructor(
    readonly shard: number,
    public meta: WorkerIndexMeta,
    private readonly onStats: (stats: SegmentStats) => void,
    private readonly onError: (context: string, err: unknown) => void,
  ) {
    this.segments = new ShardIndex(meta.analyzers);
    const pinned = this.pinned;
    this.contexts = {
      get: (id) => pinned.get(id),
      pin: (id, ctx) => void pinned.set(id, ctx),
      drop: (id) => void pinned.delete(id),
    };
  }

  /** Drops a pinned view; false when this copy had none under that id. */
  dropContext(id: number): boolean {
    return this.pinned.delete(id);
  }

  applyChanges(bytes: Uint8Array): void {
    readChangeBatch(bytes, this);
  }

  index(id: string, version: number, seqNo: number, routing: string | null, source: Buffer, mayReplace: boolean): void {
    this.segments.index({ id, version, seqNo, routing, source, parsed: this.parse(source) }, mayReplace);
  }

  delete(id: string): void {
    this.segments.delete(id);
  }

  private parse(source: Buffer): ParsedDocument {
    const mapping = this.meta.mapping;
    if (mapping === null) return EMPTY_DOC;
    try {
      return mapping.parse(JSON.parse(source.toString('utf8')) as Record<string, unknown>);
    } catch {
      // The coordinator validated the document against the mapping before
      // appending it; a failure here means the mapping changed in between.
      // The document stays stored and retrievable, only unsearchable by field.
      return EMPTY_DOC;
    }
  }

  refresh(): void {
    if (this.segments.refresh()) this.onStats(this.stats());
    this.scheduleMerge();
  }

  acquireSnapshot(): SearcherSnapshot {
    return this.segments.acquireSnapshot();
  }

  stats(): SegmentStats {
    const s = this.segments;
    return { docCount: s.docCount, deletedCount: s.deletedCount, sizeInBytes: s.sizeInBytes, segmentCount: s.segmentCount };
  }

  /** Merges after the messages already queued (searches waiting behind a refresh go first). */
  private scheduleMerge(): void {
    if (this.mergeScheduled) return;
    this.mergeScheduled = true;
    setImmediate(() => {
      this.mergeScheduled = false;
      if (this.closed) return;
      try {
        if (this.segments.maybeMerge()) this.onStats(this.stats());
      } catch (err) {
        this.onError('merge', err);
      }
    });
  }

  close(): void {
    this.closed = true;
    this.pinned.clear();
  }
}
