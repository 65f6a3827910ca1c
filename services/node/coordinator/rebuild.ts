/**
 * Replay-based rebuild (DESIGN.md, "Replay-based rebuild"; docs/rebuild.md):
 * `POST /{index}/_rebuild` creates the new index with a CreateIndex event
 * that names its source. The new index owns no topic: its copies read the
 * source's log from offset 0 (index-metadata.ts, IndexLog) with the new
 * mapping and settings, on whichever nodes hold them. This module drives a
 * rebuild once created: it reports progress in a task, fails it when a copy
 * reports a document the new mapping refuses, and once the copies have
 * applied everything the log held it appends FinishRebuild, which moves the
 * alias in the same meta event (and with `delete_source` removes the source
 * index; its topic stays, the new index reads it).
 *
 * No write is lost or applied twice across the switch because there is one
 * log: a write acknowledged by the source before the switch is in the log the
 * new index reads, and a write through the alias after it is appended to the
 * same log by the new index's coordinator. The switch waits until the copies
 * applied every op the log held a moment before, so reads through the alias
 * after it see the writes acknowledged before it (all but the ones of that
 * last moment, which the copies apply within milliseconds).
 *
 * A restarted node resumes the rebuilds the cluster state still shows
 * running that it drove (`resume`): the copies reopen from their last commits
 * and go on reading the log from the offsets stored there. When the driving
 * node leaves the cluster, the master takes its rebuilds over.
 */
import { randomBytes } from 'node:crypto';
import { EsError, illegalArgument, parsingException } from '../../../shared/errors/es-errors.ts';
import { checkIndexSettingsRequest } from '../../../shared/engine/mapping/index-settings.ts';
import type { CommitLog } from '../../../shared/log/commit-log.ts';
import type { AliasAction } from '../../../shared/records/meta-event.ts';
import type { MetaService } from '../cluster/meta-service.ts';
import { createIndexMetadata, partitionsOf, routesAsLog, type IndexMetadata, type RebuildRequest } from '../cluster/index-metadata.ts';
import type { CopyAccess } from '../copies/copy-access.ts';
import type { ShardDirectory } from '../copies/shard-directory.ts';
import type { IndicesService } from '../indexer/indices-service.ts';
import type { RunningTask, TaskRegistry } from '../tasks/task-registry.ts';
import { validateNewIndexName } from '../cluster/index-resolver.ts';
import { validateAliasName } from './index-admin.ts';

export const REBUILD_ACTION = 'indices:admin/rebuild';

/** How often a rebuild looks at its copies' progress. */
const POLL_MS = 250;
/** The copies are near enough the end of the log to wait for them to reach it (then switch). */
const NEAR_END_OPS = 5_000;
/** The most a switch waits for the copies to reach the log's end before trying again. */
const CATCH_UP_WAIT_MS = 30_000;

export interface RebuildBody {
  readonly dest: { readonly index: string; readonly settings?: unknown; readonly mappings?: unknown };
  readonly alias: string | null;
  readonly deleteSource: boolean;
}

/** Where a rebuild is, as the task's status shows it. */
export interface RebuildProgress {
  phase: 'replaying' | 'switching' | 'done' | 'failed';
  /** Ops of the source's log the new index has applied (for a rebuild with another shard count: each copy reads all of them, the slowest counts). */
  opsReplayed: number;
  /** Ops of the log not yet applied. */
  opsBehind: number;
  /** Ops per second over the last seconds. */
  rate: number;
  startedAt: number;
}

export interface RebuildResult {
  readonly took: number;
  readonly source: string;
  readonly dest: string;
  readonly destUuid: string;
  readonly alias: string | null;
  readonly sourceDeleted: boolean;
  readonly opsReplayed: number;
  /** The log's end per partition when the switch was appended. */
  readonly switchOffsets: readonly number[];
}

export interface RebuildDeps {
  /** This node's id: the driver recorded in a rebuild it starts. */
  readonly nodeId: () => string;
  readonly meta: MetaService;
  readonly log: CommitLog;
  readonly indices: IndicesService;
  readonly directory: ShardDirectory;
  readonly access: CopyAccess;
  readonly tasks: TaskRegistry;
  readonly onError: (err: Error, context: string) => void;
}

interface Driven {
  readonly task: RunningTask;
  readonly progress: RebuildProgress;
  readonly done: Promise<RebuildResult>;
}

function indexUuid(): string {
  return randomBytes(16).toString('base64url');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The new index's mappings: the request's, over the source's (fields the
 * source has, mapped dynamically or not, keep their mapping unless the
 * request maps them again), so a rebuild that adds one sub-field names only it.
 */
export function destMappings(source: IndexMetadata, requested: unknown): Record<string, unknown> {
  if (requested !== undefined && requested !== null && !isObject(requested)) throw parsingException('Failed to parse [mappings], expected an object');
  const req = (requested ?? {}) as Record<string, unknown>;
  const types = Object.keys(req);
  if (types.length > 1) throw illegalArgument(`Rejecting mapping update to [${source.name}] as the final mapping would have more than 1 type: ${JSON.stringify(types)}`);
  const src = source.mapping === null ? null : { type: source.mapping.typeName ?? '_doc', body: source.mapping.toJSON() };
  if (types.length === 0) return src === null ? {} : { [src.type]: src.body };
  const type = types[0]!;
  const body = req[type];
  if (!isObject(body)) throw parsingException(`Failed to parse mapping [${type}]: Expected map for property [${type}]`);
  if (src === null) return { [type]: body };
  const srcProps = isObject(src.body.properties) ? src.body.properties : {};
  const reqProps = isObject(body.properties) ? body.properties : {};
  return { [type]: { ...src.body, ...body, properties: { ...srcProps, ...reqProps } } };
}

/** The new index's settings: the request's; the number of shards and the analysis are the source's unless the request sets them. */
export function destSettings(source: IndexMetadata, requested: unknown): Record<string, unknown> {
  if (requested !== undefined && requested !== null && !isObject(requested)) throw parsingException('Failed to parse [settings], expected an object');
  const req = { ...((requested ?? {}) as Record<string, unknown>) };
  const index = isObject(req.index) ? req.index : {};
  const hasShards = req.number_of_shards !== undefined || req['index.number_of_shards'] !== undefined || index.number_of_shards !== undefined;
  if (!hasShards) req['index.number_of_shards'] = source.settings.numberOfShards;
  // The source's analyzers, unless the request defines its own: the mapping taken over from the source names them.
  const hasAnalysis = req.analysis !== undefined || index.analysis !== undefined || Object.keys(req).some((k) => k.startsWith('index.analysis.') || k.startsWith('analysis.'));
  if (!hasAnalysis && source.settings.analysis !== undefined) req['index.analysis'] = source.settings.analysis;
  return req;
}

export class Rebuilds {
  /** Rebuilds this node drives, by the new index's uuid. */
  private readonly driven = new Map<string, Driven>();

  constructor(private readonly deps: RebuildDeps) {}

  /** Creates the new index (reading `source`'s log) and drives it to the switch. */
  async start(source: IndexMetadata, body: RebuildBody, opts: { storeResult: boolean; headers?: Readonly<Record<string, string>> }): Promise<Driven> {
    validateNewIndexName(body.dest.index);
    if (body.alias !== null) {
      validateAliasName(body.alias);
      const named = this.deps.meta.state.index(body.alias);
      if (named !== undefined) throw illegalArgument(`an index exists with the same name as the alias [${body.alias}]`);
    }
    if (source.closed) throw new EsError('index_closed_exception', 'closed', 400, { index_uuid: source.uuid, index: source.name });
    const settings = destSettings(source, body.dest.settings);
    const mappings = destMappings(source, body.dest.mappings);
    const rebuild: RebuildRequest = { sourceUuid: source.uuid, alias: body.alias, deleteSource: body.deleteSource, driver: this.deps.nodeId() };
    const event = {
      index: body.dest.index,
      uuid: indexUuid(),
      settings_json: JSON.stringify(settings),
      mappings_json: JSON.stringify(mappings),
      aliases_json: '{}',
      rebuild_json: JSON.stringify(rebuild),
    };
    checkIndexSettingsRequest(settings);
    createIndexMetadata(event, Date.now(), true, source);
    const outcome = await this.deps.meta.submit({ 'logsearch.CreateIndex': event });
    return this.drive(outcome.index!, opts);
  }

  /** The rebuild of the index with this uuid this node drives, if any. */
  get(uuid: string): Driven | undefined {
    return this.driven.get(uuid);
  }

  /**
   * Drives the rebuilds the cluster state shows running that this node does
   * not drive yet: those it started before a restart, and with `adopt` (the
   * master; a single node) those whose driver is not `alive` or unknown.
   * So a rebuild goes on when its driving node leaves the cluster.
   */
  resume(opts: { adopt: boolean; alive: (nodeId: string) => boolean }): void {
    const self = this.deps.nodeId();
    for (const meta of this.deps.meta.state.indices()) {
      const r = meta.rebuild;
      if (r?.state !== 'running' || this.driven.has(meta.uuid)) continue;
      const own = r.driver === self;
      const orphaned = r.driver === null || !opts.alive(r.driver);
      if (!own && !(opts.adopt && orphaned)) continue;
      const d = this.drive(meta, { storeResult: true });
      d.done.catch((err: Error) => this.deps.onError(err, `rebuild of [${r.sourceName}] into [${meta.name}]`));
    }
  }

  private drive(dest: IndexMetadata, opts: { storeResult: boolean; headers?: Readonly<Record<string, string>> }): Driven {
    const r = dest.rebuild!;
    const progress: RebuildProgress = { phase: 'replaying', opsReplayed: 0, opsBehind: 0, rate: 0, startedAt: Date.now() };
    const task = this.deps.tasks.register({
      action: REBUILD_ACTION,
      description: `rebuild [${r.sourceName}] into [${dest.name}]${r.alias !== null ? ` and move alias [${r.alias}]` : ''}`,
      cancellable: true,
      status: () => statusOf(progress),
      headers: opts.headers,
    });
    const done = this.run(dest, task, progress).then(
      (result) => {
        this.deps.tasks.finish(task, { response: renderRebuildResult(result) }, opts.storeResult);
        return result;
      },
      (err: unknown) => {
        progress.phase = 'failed';
        const error = err instanceof EsError ? err : illegalArgument(err instanceof Error ? err.message : String(err));
        this.deps.tasks.finish(task, { error }, opts.storeResult);
        throw error;
      },
    );
    done
      .catch(() => undefined)
      .finally(() => {
        this.driven.delete(dest.uuid);
      });
    const d: Driven = { task, progress, done };
    this.driven.set(dest.uuid, d);
    return d;
  }

  private current(uuid: string): IndexMetadata {
    const m = this.deps.meta.state.indexByUuid(uuid);
    if (m === undefined) throw illegalArgument(`the index being rebuilt [${uuid}] was deleted`);
    return m;
  }

  private async run(initial: IndexMetadata, task: RunningTask, progress: RebuildProgress): Promise<RebuildResult> {
    const started = Date.now();
    const r = initial.rebuild!;
    await this.deps.directory.ready(initial);
    const samples: { at: number; replayed: number }[] = [];
    for (;;) {
      const dest = this.current(initial.uuid);
      if (dest.rebuild?.state !== 'running') throw illegalArgument(`the rebuild of [${r.sourceName}] into [${dest.name}] ended: ${dest.rebuild?.failure ?? 'done elsewhere'}`);
      if (task.cancelled !== null) return this.fail(dest, `cancelled: ${task.cancelled}`);
      const refused = this.refusal(dest);
      if (refused !== null) return this.fail(dest, refused);
      const p = await this.measure(dest);
      const now = Date.now();
      samples.push({ at: now, replayed: p.replayed });
      while (samples.length > 2 && now - samples[0]!.at > 5_000) samples.shift();
      const first = samples[0]!;
      progress.opsReplayed = p.replayed;
      progress.opsBehind = p.behind;
      progress.rate = now > first.at ? ((p.replayed - first.replayed) * 1000) / (now - first.at) : 0;
      if (p.behind <= NEAR_END_OPS) {
        progress.phase = 'switching';
        const ends = await this.logEnds(dest);
        if (await this.appliedUpTo(dest, ends, CATCH_UP_WAIT_MS)) {
          const again = this.refusal(dest);
          if (again !== null) return this.fail(dest, again);
          if (task.cancelled !== null) return this.fail(dest, `cancelled: ${task.cancelled}`);
          return this.switchOver(dest, started, progress, ends);
        }
        progress.phase = 'replaying';
      }
      await new Promise((res) => setTimeout(res, POLL_MS));
    }
  }

  /** The first refusal a copy reported (a document the new mapping refuses): this node's copies, the others' as their status says. */
  private refusal(dest: IndexMetadata): string | null {
    for (let s = 0; s < dest.settings.numberOfShards; s++) {
      for (const route of this.deps.directory.routes(dest, s)) {
        const failure = route.local?.rebuildFailure ?? route.rebuildFailure ?? null;
        if (failure !== null) return `[${dest.name}] refused ${failure}`;
      }
    }
    return null;
  }

  private async logEnds(dest: IndexMetadata): Promise<number[]> {
    const topic = this.deps.indices.topicOf(dest);
    return Promise.all(Array.from({ length: dest.log.partitions }, (_, p) => this.deps.log.highWatermark(topic, p)));
  }

  /** Ops replayed and behind: per shard from its primary's applied offsets, against the log's ends. */
  private async measure(dest: IndexMetadata): Promise<{ replayed: number; behind: number }> {
    const ends = await this.logEnds(dest);
    const own = routesAsLog(dest);
    let replayed = own ? 0 : Infinity;
    let behind = 0;
    for (let s = 0; s < dest.settings.numberOfShards; s++) {
      const target = partitionsOf(dest, s).reduce((n, p) => n + ends[p]!, 0);
      const primary = this.deps.directory.routes(dest, s).find((c) => c.primary);
      const applied = primary?.local?.appliedOffset ?? primary?.recovery?.appliedOffset ?? 0;
      if (own) {
        replayed += applied;
        behind += Math.max(0, target - applied);
      } else {
        replayed = Math.min(replayed, applied);
        behind = Math.max(behind, target - applied);
      }
    }
    return { replayed: Number.isFinite(replayed) ? replayed : 0, behind };
  }

  /** True once every assigned copy of every shard applied the log up to `ends`, false after `timeoutMs`. */
  private async appliedUpTo(dest: IndexMetadata, ends: readonly number[], timeoutMs: number): Promise<boolean> {
    const waits: Promise<boolean>[] = [];
    for (let s = 0; s < dest.settings.numberOfShards; s++) {
      const routes = this.deps.directory.routes(dest, s);
      if (routes.length === 0) return false;
      for (const route of routes) {
        for (const p of partitionsOf(dest, s)) {
          waits.push(this.deps.access.waitApplied(route, dest, s, ends[p]!, timeoutMs, 'none', p).catch(() => false));
        }
      }
    }
    return (await Promise.all(waits)).every(Boolean);
  }

  private async switchOver(dest: IndexMetadata, started: number, progress: RebuildProgress, ends: readonly number[]): Promise<RebuildResult> {
    const r = dest.rebuild!;
    const source = this.deps.meta.state.indexByUuid(r.sourceUuid);
    const actions: AliasAction[] = [];
    const base = { filter_json: null, index_routing: null, search_routing: null, is_write_index: null, must_exist: false };
    if (r.alias !== null) {
      const held = source?.aliases.get(r.alias);
      if (source !== undefined && held !== undefined) actions.push({ ...base, kind: 'REMOVE', index: source.uuid, alias: r.alias });
      actions.push({
        ...base,
        kind: 'ADD',
        index: dest.uuid,
        alias: r.alias,
        // The alias keeps what it had on the source (filter, routing, write index).
        filter_json: held?.filter ? JSON.stringify(held.filter) : null,
        index_routing: held?.indexRouting ?? null,
        search_routing: held?.searchRouting ?? null,
        is_write_index: held?.isWriteIndex ?? null,
      });
    }
    if (r.deleteSource && source !== undefined) actions.push({ ...base, kind: 'REMOVE_INDEX', index: source.uuid, alias: null });
    // What the copies applied is searchable before the alias moves, not up to a refresh interval later.
    await this.refreshCopies(dest);
    await this.submitSwitch(dest, actions);
    if (r.deleteSource) await this.deps.indices.reconcile();
    // Ops acknowledged just before the switch: applied, and searchable, before the rebuild answers.
    const after = this.current(dest.uuid);
    await this.appliedUpTo(after, await this.logEnds(after), CATCH_UP_WAIT_MS);
    await this.refreshCopies(after);
    const m = await this.measure(after);
    progress.phase = 'done';
    progress.opsReplayed = m.replayed;
    progress.opsBehind = m.behind;
    return {
      took: Date.now() - started,
      source: r.sourceName,
      dest: dest.name,
      destUuid: dest.uuid,
      alias: r.alias,
      sourceDeleted: r.deleteSource && source !== undefined,
      opsReplayed: m.replayed,
      switchOffsets: ends,
    };
  }

  /**
   * Appends the switch. The master adopts a rebuild whose driver is missing
   * from a membership view, which a slow driver can be for a moment: then both
   * replay, and the second FinishRebuild is refused. When the one that won
   * switched (state `done`), that switch is this rebuild's too.
   */
  private async submitSwitch(dest: IndexMetadata, actions: AliasAction[]): Promise<void> {
    try {
      await this.deps.meta.submit({ 'logsearch.FinishRebuild': { index: dest.uuid, failure: null, actions } });
    } catch (err) {
      if (this.deps.meta.state.indexByUuid(dest.uuid)?.rebuild?.state !== 'done') throw err;
    }
  }

  /** Refreshes every copy of `dest`. */
  private async refreshCopies(dest: IndexMetadata): Promise<void> {
    const refreshes: Promise<unknown>[] = [];
    for (let s = 0; s < dest.settings.numberOfShards; s++) {
      for (const route of this.deps.directory.routes(dest, s)) refreshes.push(this.deps.access.refresh(route, dest, s).catch(() => false));
    }
    await Promise.all(refreshes);
  }

  /** Records the failure (the alias and the source stay as they were) and deletes the new index. */
  private async fail(dest: IndexMetadata, reason: string): Promise<never> {
    await this.deps.meta.submit({ 'logsearch.FinishRebuild': { index: dest.uuid, failure: reason, actions: [] } });
    await this.deps.meta.submit({ 'logsearch.DeleteIndex': { indices: [dest.uuid] } });
    await this.deps.indices.reconcile();
    throw illegalArgument(`rebuild of [${dest.rebuild?.sourceName}] into [${dest.name}] failed: ${reason}`);
  }
}

function statusOf(p: RebuildProgress): Record<string, unknown> {
  const eta = p.rate > 0 ? Math.round((p.opsBehind / p.rate) * 1000) : null;
  return {
    phase: p.phase,
    ops_replayed: p.opsReplayed,
    ops_behind: p.opsBehind,
    ops_per_second: Math.round(p.rate),
    eta_in_millis: p.phase === 'done' ? 0 : eta,
  };
}

export function renderRebuildResult(r: RebuildResult): Record<string, unknown> {
  return {
    took: r.took,
    timed_out: false,
    source: r.source,
    dest: r.dest,
    dest_uuid: r.destUuid,
    alias: r.alias,
    source_deleted: r.sourceDeleted,
    ops_replayed: r.opsReplayed,
    switch_offsets: r.switchOffsets,
    failures: [],
  };
}
