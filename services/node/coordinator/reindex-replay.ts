/**
 * `_reindex` of one whole index, read from the source's log instead of by
 * scroll (docs/rebuild.md, "`_reindex` of a whole index"). The result is
 * Elasticsearch's `_reindex`, not a rebuild: each document the source holds
 * is written once into the destination, through the normal write path, in
 * its last state; deleted documents are not copied. Only the reading
 * differs: no search, no scroll context, no fetch phase.
 *
 * Per partition of the source's log (one per shard), read up to its end at
 * the moment of the request:
 * 1. one pass over the log's `_id`s (no source decoded) records, per id, the
 *    offset and kind of its last op: a Map for one partition at a time, so
 *    memory is bounded by the largest shard, not the index;
 * 2. the ids, a page at a time, are looked up on a copy of the shard (this
 *    node's when it holds one) once it applied the log up to that end: its
 *    version map says whether the document lives, its version and routing,
 *    and the source comes out of its segments, the bytes a GET returns. The
 *    log alone cannot say: an op in it may have failed when applied (a
 *    version conflict, `op_type: create` of an existing id), and an update's
 *    result is computed when it is applied.
 *
 * A document written again after the request started (its state's `_seq_no`
 * is past the end read) is copied as it is then (left out when its last op
 * before the start was a delete); an id first written after the start is
 * not in the ids read, so it is not copied, like a scroll's snapshot.
 */
import { docOpRoute } from '../../../shared/records/doc-op.ts';
import type { CommitLog } from '../../../shared/log/commit-log.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { routesAsLog, type IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardDirectory } from '../copies/shard-directory.ts';
import type { DocReader } from './doc-reader.ts';
import type { HitPages } from './bulk-by-scroll.ts';
import type { PageHit } from './hit-page.ts';

/** Records per read of the log. */
const LOG_READ = 5000;

export interface ReindexReplayDeps {
  readonly log: CommitLog;
  readonly topicOf: (meta: IndexMetadata) => string;
  readonly directory: ShardDirectory;
  readonly reader: DocReader;
}

/** How many `_reindex` requests this process copied by replay (a counter tests and operators can read). */
export const reindexReplayCounters = { started: 0, documents: 0 };

/** Why an index cannot be copied from its log (then `_reindex` copies it by scroll), or null when it can. */
export function replayRefusal(meta: IndexMetadata): string | null {
  if (meta.closed) return 'the index is closed';
  // A rebuilt index reading another index's log with another shard count: its shards are not the log's partitions.
  if (!routesAsLog(meta)) return 'the index reads a log partitioned for another shard count';
  return null;
}

/** The log's history does not start at offset 0 (a retention cut it): copy by scroll instead. */
export class LogHistoryIncomplete extends Error {}

export class ReindexReplay implements HitPages {
  /** Documents found live so far, in the partitions read to the end. */
  private counted = 0;
  /** Per shard not yet read: the copies' document counts, as an estimate of its documents. */
  private readonly estimates: number[];
  private ends: number[] = [];

  constructor(
    private readonly deps: ReindexReplayDeps,
    private readonly meta: IndexMetadata,
    private readonly pageSize: number,
  ) {
    this.estimates = Array.from({ length: meta.settings.numberOfShards }, (_, s) => {
      const primary = deps.directory.routes(meta, s).find((r) => r.primary);
      return primary?.docCount ?? 0;
    });
  }

  /** Records where the log ends now: what the copy reads (writes after this are not copied). */
  async snapshot(): Promise<void> {
    const topic = this.deps.topicOf(this.meta);
    this.ends = await Promise.all(Array.from({ length: this.meta.log.partitions }, (_, p) => this.deps.log.highWatermark(topic, p)));
    // The first record must be at offset 0, or the history before it is gone: found now, before the task starts.
    for (let p = 0; p < this.ends.length; p++) {
      if (this.ends[p]! === 0) continue;
      const first = await this.deps.log.read(topic, p, 0, 1);
      if (first[0]?.offset !== 0) throw new LogHistoryIncomplete(`partition ${p} of [${this.meta.name}]'s log starts at offset ${first[0]?.offset}`);
    }
    reindexReplayCounters.started++;
  }

  total(): number {
    return this.counted + this.estimates.reduce((n, e) => n + e, 0);
  }

  async *pages(): AsyncGenerator<PageHit[]> {
    let page: PageHit[] = [];
    for (let shard = 0; shard < this.meta.settings.numberOfShards; shard++) {
      const last = await this.lastOps(shard);
      let ids: string[] = [];
      let live = 0;
      const lookUp = async function* (this: ReindexReplay): AsyncGenerator<PageHit[]> {
        for (const hit of await this.liveDocs(shard, ids, last)) {
          page.push(hit);
          live++;
          if (page.length === this.pageSize) {
            const full = page;
            page = [];
            yield full;
          }
        }
        ids = [];
      }.bind(this);
      for (const id of last.keys()) {
        ids.push(id);
        if (ids.length === this.pageSize) yield* lookUp();
      }
      if (ids.length > 0) yield* lookUp();
      this.estimates[shard] = 0;
      this.counted += live;
    }
    if (page.length > 0) yield page;
  }

  /** Per id of the shard's partition, its last op before the end: the offset, negative (-offset - 1) for a delete. */
  private async lastOps(shard: number): Promise<Map<string, number>> {
    const topic = this.deps.topicOf(this.meta);
    const end = this.ends[shard]!;
    const last = new Map<string, number>();
    let next = 0;
    while (next < end) {
      const records = await this.deps.log.read(topic, shard, next, Math.min(LOG_READ, end - next));
      if (records.length === 0) throw new EsError('exception', `the log of [${this.meta.name}] partition ${shard} ended at ${next}, before ${end}`, 500);
      for (const r of records) {
        if (r.offset >= end) break;
        const { id, op } = docOpRoute(r.value);
        last.set(id, op === 'DELETE' ? -r.offset - 1 : r.offset);
      }
      next = records[records.length - 1]!.offset + 1;
    }
    return last;
  }

  /** The documents among `ids` the source holds, as hits: state, version and routing from a copy's version map, the stored source. */
  private async liveDocs(shard: number, ids: readonly string[], last: ReadonlyMap<string, number>): Promise<PageHit[]> {
    const end = this.ends[shard]!;
    const states = await this.deps.reader.shardStates(this.meta, shard, ids, end);
    const type = this.meta.mapping?.typeName ?? '_doc';
    const out: PageHit[] = [];
    ids.forEach((id, i) => {
      const s = states[i];
      if (s === undefined || s.deleted || s.source === null) return;
      // Written again since the request started: copied as it is now, unless a delete was its last op before.
      if (s.seqNo >= end && last.get(id)! < 0) return;
      out.push({ _index: this.meta.name, _type: type, _id: id, _version: s.version, ...(s.routing !== null ? { _routing: s.routing } : {}), source: s.source });
    });
    reindexReplayCounters.documents += out.length;
    return out;
  }
}
