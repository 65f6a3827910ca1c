/**
 * Keeps this node's shard copies in step with the cluster state: opens the
 * copies of new indices (creating their topics), closes and removes the
 * copies of deleted ones, and re-arms refresh when settings change.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommitLog } from '../../../shared/log/commit-log.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { ShardCopy } from './shard-copy.ts';

export interface IndicesServiceOptions {
  readonly log: CommitLog;
  readonly state: ClusterState;
  readonly dataDir: string;
  readonly clusterName: string;
  readonly onError: (err: Error, context: string) => void;
}

export class IndicesService {
  private readonly copies = new Map<string, ShardCopy[]>();
  private readonly opening = new Map<string, Promise<ShardCopy[]>>();
  private reconciling: Promise<void> = Promise.resolve();

  constructor(private readonly opts: IndicesServiceOptions) {}

  topicOf(meta: Pick<IndexMetadata, 'name' | 'uuid'>): string {
    return `${this.opts.clusterName}.${meta.name}.${meta.uuid}`;
  }

  private indexDir(uuid: string): string {
    return join(this.opts.dataDir, 'indices', uuid);
  }

  /** Brings local copies in line with the cluster state; calls are serialised. */
  reconcile(): Promise<void> {
    this.reconciling = this.reconciling.then(() => this.doReconcile()).catch((err: Error) => this.opts.onError(err, 'reconcile'));
    return this.reconciling;
  }

  private async doReconcile(): Promise<void> {
    const wanted = new Map(this.opts.state.indices().map((m) => [m.uuid, m]));
    for (const [uuid, copies] of [...this.copies]) {
      if (wanted.has(uuid)) continue;
      this.copies.delete(uuid);
      await Promise.all(copies.map((c) => c.close()));
      await rm(this.indexDir(uuid), { recursive: true, force: true });
    }
    for (const meta of wanted.values()) {
      const have = this.copies.get(meta.uuid);
      if (have) {
        for (const c of have) c.scheduleRefresh();
      } else {
        await this.open(meta);
      }
    }
    await this.removeOrphans(wanted);
  }

  private open(meta: IndexMetadata): Promise<ShardCopy[]> {
    const pending = this.opening.get(meta.uuid);
    if (pending) return pending;
    const p = (async () => {
      const topic = this.topicOf(meta);
      const shards = meta.settings.numberOfShards;
      await this.opts.log.ensureTopic(topic, shards);
      const copies: ShardCopy[] = [];
      for (let s = 0; s < shards; s++) {
        copies.push(
          await ShardCopy.open({
            dir: join(this.indexDir(meta.uuid), String(s)),
            log: this.opts.log,
            topic,
            shard: s,
            meta: () => this.opts.state.indexByUuid(meta.uuid) ?? meta,
            onError: (err) => this.opts.onError(err, `[${meta.name}][${s}] apply`),
          }),
        );
      }
      for (const c of copies) c.start();
      this.copies.set(meta.uuid, copies);
      this.opening.delete(meta.uuid);
      return copies;
    })();
    this.opening.set(meta.uuid, p);
    return p;
  }

  /** Data directories of indices the cluster no longer has (deleted while this node was down). */
  private async removeOrphans(wanted: ReadonlyMap<string, IndexMetadata>): Promise<void> {
    let dirs: string[];
    try {
      dirs = await readdir(join(this.opts.dataDir, 'indices'));
    } catch {
      return;
    }
    for (const d of dirs) {
      if (!wanted.has(d)) await rm(this.indexDir(d), { recursive: true, force: true });
    }
  }

  /** The copies of an index, once open (waits for an index being opened). */
  async copiesOf(meta: IndexMetadata): Promise<ShardCopy[]> {
    const have = this.copies.get(meta.uuid);
    if (have) return have;
    await this.reconcile();
    return this.copies.get(meta.uuid) ?? this.open(meta);
  }

  copiesNow(uuid: string): ShardCopy[] | undefined {
    return this.copies.get(uuid);
  }

  async deleteTopics(metas: readonly IndexMetadata[]): Promise<void> {
    for (const m of metas) await this.opts.log.deleteTopic(this.topicOf(m));
  }

  async close(): Promise<void> {
    await this.reconciling;
    for (const copies of this.copies.values()) await Promise.all(copies.map((c) => c.close()));
    this.copies.clear();
  }
}
