/**
 * Keeps this node's shard copies in step with the cluster state and the
 * allocation: opens the copies this node hosts (creating the index topic),
 * closes and removes the copies of deleted indices and of shards moved to
 * other nodes, and re-arms refresh when settings change.
 *
 * On one node (embedded log) a node hosts every shard of every index, except
 * new shards that `cluster.routing.allocation.enable` holds back
 * (`mayOpenNew`); a shard it already held (a data directory) always opens.
 * In a cluster, `hosted` says which shards the allocation table gives this node.
 *
 * The copies of a closed index are closed (after a commit) and their files
 * kept; reopening the index opens them again from that commit.
 *
 * A copy is INITIALIZING from the moment it opens until it has applied
 * every record its partition held then (DESIGN.md 2, "copy states"), and
 * STARTED after: only started copies serve reads or count for writes.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommitLog } from '../../../shared/log/commit-log.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import { partitionsOf, type IndexMetadata } from '../cluster/index-metadata.ts';
import { ShardCopy } from './shard-copy.ts';
import type { ShardWorkers } from '../shard-worker/shard-workers.ts';
import type { SlowLog } from '../search/slow-log.ts';
import { orNullAfter } from '../timeouts.ts';

export type CopyState = 'INITIALIZING' | 'STARTED';

/** A started copy being rebuilt from the log (its worker died, a merge found a damaged file) answers no search meanwhile. */
function stateOf(e: { readonly copy: ShardCopy; readonly state: CopyState }): CopyState {
  return e.copy.rebuilding ? 'INITIALIZING' : e.state;
}

/**
 * How a copy was built when it opened (`_cat/recovery`): from the checkpoint
 * its data directory held (`existing_store`) or from offset 0
 * (`empty_store`), replaying [startOffset, targetOffset) of its partition.
 */
export interface CopyRecovery {
  readonly type: 'existing_store' | 'empty_store';
  /** The stored checkpoint the copy resumed from. */
  readonly startOffset: number;
  /** The partition's end when the copy opened: STARTED once applied up to it. */
  readonly targetOffset: number;
  readonly startTime: number;
  /** When the copy reached targetOffset; null while it catches up. */
  stopTime: number | null;
}

export interface IndicesServiceOptions {
  readonly log: CommitLog;
  readonly state: ClusterState;
  readonly dataDir: string;
  readonly clusterName: string;
  readonly onError: (err: Error, context: string) => void;
  /** The threads that hold the copies' segments. */
  readonly workers: ShardWorkers;
  /** The shard numbers of an index this node hosts; absent = all of them (one node). */
  readonly hosted?: (meta: IndexMetadata) => readonly number[];
  /**
   * One node: whether a primary this node never held may open now (the
   * allocation enable setting); absent = always. Asked again at each reconcile.
   */
  readonly mayOpenNew?: (meta: IndexMetadata) => boolean;
  /** A local copy changed state (opened, started, closed). */
  readonly onCopyState?: () => void;
  /** Something the node's log should say (a copy rebuilt from the log, and why). */
  readonly onNotice?: (message: string) => void;
  /** The node's search and indexing slow logs, handed to every copy. */
  readonly slowLog?: SlowLog;
  /** How long `close` waits for one copy's close (its final commit); default 30 s. */
  readonly copyCloseLimitMs?: number;
}

/** One copy this node holds. */
export interface HeldCopy {
  readonly meta: IndexMetadata;
  readonly shard: number;
  readonly copy: ShardCopy;
  readonly state: CopyState;
  readonly recovery: CopyRecovery;
}

interface Entry {
  readonly copy: ShardCopy;
  state: CopyState;
  readonly recovery: CopyRecovery;
  /** Resolves when the copy is STARTED. */
  readonly started: Promise<void>;
}

export class IndicesService {
  /** By index uuid, then shard number. */
  private readonly copies = new Map<string, Map<number, Entry>>();
  private reconciling: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly opts: IndicesServiceOptions) {}

  /** The node's slow logs (the console lists their recent entries). */
  get slowLog(): SlowLog | null {
    return this.opts.slowLog ?? null;
  }

  /** The topic an index's copies read and its writes go to: its log owner's (itself, or the index it was rebuilt from). */
  topicOf(meta: Pick<IndexMetadata, 'log'>): string {
    return `${this.opts.clusterName}.${meta.log.ownerName}.${meta.log.ownerUuid}`;
  }

  private indexDir(uuid: string): string {
    return join(this.opts.dataDir, 'indices', uuid);
  }

  private async hostedShards(meta: IndexMetadata): Promise<readonly number[]> {
    if (this.opts.hosted) return this.opts.hosted(meta);
    const all = Array.from({ length: meta.settings.numberOfShards }, (_, i) => i);
    if (this.opts.mayOpenNew === undefined || this.opts.mayOpenNew(meta)) return all;
    // Held back: only the shards this node already has (open, or their files from before a restart).
    const held = this.copies.get(meta.uuid);
    let onDisk: Set<string>;
    try {
      onDisk = new Set(await readdir(this.indexDir(meta.uuid)));
    } catch {
      onDisk = new Set();
    }
    return all.filter((s) => held?.has(s) || onDisk.has(String(s)));
  }

  /** Brings local copies in line with the cluster state and allocation; calls are serialised. */
  reconcile(): Promise<void> {
    this.reconciling = this.reconciling.then(() => this.doReconcile()).catch((err: Error) => this.opts.onError(err, 'reconcile'));
    return this.reconciling;
  }

  private async doReconcile(): Promise<void> {
    if (this.closed) return;
    const wanted = new Map(this.opts.state.indices().map((m) => [m.uuid, m]));
    for (const [uuid, shards] of [...this.copies]) {
      const meta = wanted.get(uuid);
      // A closed index keeps its data but not its copies: they commit and stop, and `_open` opens them again.
      if (meta?.closed) {
        for (const e of shards.values()) await e.copy.close(true);
        this.copies.delete(uuid);
        this.opts.onCopyState?.();
        continue;
      }
      const keep = new Set(meta ? await this.hostedShards(meta) : []);
      for (const [s, e] of [...shards]) {
        if (keep.has(s)) continue;
        shards.delete(s);
        await e.copy.close(false);
        await rm(join(this.indexDir(uuid), String(s)), { recursive: true, force: true });
        this.opts.onCopyState?.();
      }
      if (!meta) {
        this.copies.delete(uuid);
        await rm(this.indexDir(uuid), { recursive: true, force: true });
      }
    }
    for (const meta of wanted.values()) {
      if (meta.closed) continue;
      const have = this.copies.get(meta.uuid);
      for (const e of have?.values() ?? []) e.copy.scheduleRefresh();
      const missing = (await this.hostedShards(meta)).filter((s) => !have?.has(s));
      if (missing.length > 0 || !have) await this.open(meta, missing);
    }
    await this.removeOrphans(wanted);
  }

  private async open(meta: IndexMetadata, shards: readonly number[]): Promise<void> {
    const topic = this.topicOf(meta);
    await this.opts.log.ensureTopic(topic, meta.log.partitions);
    let byShard = this.copies.get(meta.uuid);
    if (!byShard) {
      byShard = new Map();
      this.copies.set(meta.uuid, byShard);
    }
    // Copies open in parallel, each in its worker: an open maps and checks the copy's segment files.
    await Promise.all(shards.map((s) => this.openCopy(meta, topic, s, byShard!)));
    this.opts.onCopyState?.();
  }

  private async openCopy(meta: IndexMetadata, topic: string, s: number, byShard: Map<number, Entry>): Promise<void> {
    const startTime = Date.now();
    const copy = await ShardCopy.open({
      dir: join(this.indexDir(meta.uuid), String(s)),
      log: this.opts.log,
      topic,
      shard: s,
      partitions: partitionsOf(meta, s),
      logPartitions: meta.log.partitions,
      meta: () => this.opts.state.indexByUuid(meta.uuid) ?? meta,
      workers: this.opts.workers,
      onError: (err) => this.opts.onError(err, `[${meta.name}][${s}] apply`),
      onNotice: this.opts.onNotice,
      slowLog: this.opts.slowLog,
    });
    // Started = everything the partitions held when the copy opened applied, and searchable.
    const targets = await Promise.all(copy.partitions.map(async (p) => [p, await this.opts.log.highWatermark(topic, p)] as const));
    // Offsets summed over the partitions the copy reads (one, but for a rebuilt index with another shard count).
    const target = targets.reduce((n, [p, t]) => n + Math.max(t, copy.appliedOffsetOf(p)), 0);
    const startOffset = copy.appliedOffset;
    const recovery: CopyRecovery = {
      type: copy.opened.recovery === 'existing_store' ? 'existing_store' : 'empty_store',
      startOffset,
      targetOffset: target,
      startTime,
      stopTime: null,
    };
    copy.start();
    const entry: Entry = {
      copy,
      state: 'INITIALIZING',
      recovery,
      started: Promise.all(targets.map(([p, t]) => copy.waitForApplied(t, p))).then(async () => {
        // The replayed ops are in the indexing buffer: searchable before the copy counts as started.
        copy.refresh();
        await copy.segmentsSettled();
        copy.caughtUpAtOpen();
        entry.state = 'STARTED';
        recovery.stopTime = Date.now();
        this.opts.onCopyState?.();
      }),
    };
    byShard.set(s, entry);
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

  /**
   * This node's copies of an index by shard number, once open (waits for a
   * reconcile in progress). Sparse in a cluster: only hosted shards.
   */
  async copiesOf(meta: IndexMetadata): Promise<ReadonlyMap<number, ShardCopy>> {
    if (!this.copies.has(meta.uuid)) await this.reconcile();
    return this.copiesNow(meta.uuid);
  }

  copiesNow(uuid: string): ReadonlyMap<number, ShardCopy> {
    const out = new Map<number, ShardCopy>();
    for (const [s, e] of this.copies.get(uuid) ?? []) out.set(s, e.copy);
    return out;
  }

  /** This node's copy of a shard and its state, if it holds one. */
  held(uuid: string, shard: number): { copy: ShardCopy; state: CopyState; recovery: CopyRecovery; started: Promise<void> } | undefined {
    const e = this.copies.get(uuid)?.get(shard);
    return e === undefined ? undefined : { ...e, state: stateOf(e) };
  }

  /** Every copy this node holds. */
  allHeld(): HeldCopy[] {
    const out: HeldCopy[] = [];
    for (const [uuid, shards] of this.copies) {
      const meta = this.opts.state.indexByUuid(uuid);
      if (!meta) continue;
      for (const [shard, e] of shards) out.push({ meta, shard, copy: e.copy, state: stateOf(e), recovery: e.recovery });
    }
    return out;
  }

  /** Deletes the topics of deleted indices, but not one an index still reads (the source of a rebuild shares its log). */
  async deleteTopics(metas: readonly IndexMetadata[]): Promise<void> {
    const stillRead = new Set(this.opts.state.indices().map((m) => this.topicOf(m)));
    for (const topic of new Set(metas.map((m) => this.topicOf(m)))) {
      if (!stillRead.has(topic)) await this.opts.log.deleteTopic(topic);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.reconciling;
    const closing: Promise<void>[] = [];
    for (const shards of this.copies.values()) {
      for (const e of shards.values()) closing.push(this.closeWithinLimit(e));
    }
    await Promise.all(closing);
    this.copies.clear();
  }

  /**
   * A copy that does not close within the limit (a stuck task in its worker)
   * would hold the node's stop forever, silently. Past the limit the stop goes
   * on without the copy's final commit, which loses nothing: the next start
   * replays the log after the copy's last durable commit.
   */
  private async closeWithinLimit(e: Entry): Promise<void> {
    const limit = this.opts.copyCloseLimitMs ?? 30_000;
    const closed = await orNullAfter(e.copy.close().then(() => true), limit);
    if (closed === null) {
      this.opts.onNotice?.(
        `shard copy [${e.copy.indexName}][${e.copy.shard}] did not close within ${limit} ms; stopping without its final commit (the next start replays the log after its last commit)`,
      );
    }
  }
}
