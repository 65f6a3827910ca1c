/**
 * `_update_by_query`, `_delete_by_query` and `_reindex`, as Elasticsearch's
 * reindex module runs them (AbstractAsyncBulkByScrollAction): a scroll over
 * the matching documents, and for each page one bulk request of writes that
 * carry the version each hit was read at, so a document changed in between
 * is a version conflict instead of a lost write. Pages run one after the
 * other (optionally throttled to `requests_per_second`), as a task that can
 * be listed, cancelled and rethrottled; `slices` runs several scrolls side
 * by side, each a child task.
 *
 * Everything here is awaits between a search page and a bulk: the node
 * answers other requests between them, and the writes go through the same
 * log and apply step as any other write (scripts of `_update_by_query` run
 * in the apply step of every copy, docs/scripts.md).
 */
import { EsError, isEsError, renderError } from '../../../shared/errors/es-errors.ts';
import type { ScriptRecord } from '../../../shared/records/doc-op.ts';
import type { RunningTask, TaskRegistry } from '../tasks/task-registry.ts';
import type { SearchCoordinator, SearchRequest } from './search-coordinator.ts';
import type { WriteCoordinator, WriteItemResult, WriteOptions, WriteRequest } from './write-coordinator.ts';
import { readHitPage, type PageHit } from './hit-page.ts';

export type BulkByScrollKind = 'update' | 'delete' | 'reindex';

/** ES action names, as tasks show them. */
export const BY_SCROLL_ACTIONS: Readonly<Record<BulkByScrollKind, string>> = {
  update: 'indices:data/write/update/byquery',
  delete: 'indices:data/write/delete/byquery',
  reindex: 'indices:data/write/reindex',
};

/** AbstractBulkByScrollRequest.DEFAULT_SCROLL_SIZE and DEFAULT_SCROLL_TIMEOUT. */
export const DEFAULT_SCROLL_SIZE = 1000;
export const DEFAULT_SCROLL_KEEP_ALIVE_MS = 5 * 60_000;

/** The write each hit becomes (`_reindex` builds it from the hit; the by-query kinds from the request). */
export type HitToWrite = (hit: PageHit) => WriteRequest | 'noop' | EsError;

/**
 * Hits read some other way than by a scroll: `_reindex` of a whole index,
 * read from the source's log (reindex-replay.ts).
 */
export interface HitPages {
  /** The documents to copy: those of the partitions read so far, and an estimate of the others. */
  total(): number;
  /** Pages of the request's page size (the last one smaller). */
  pages(): AsyncIterable<PageHit[]>;
}

/**
 * Bulk requests a replayed `_reindex` keeps in flight while it reads the next
 * page, unthrottled and when no version conflict can stop it: the copies
 * index one page while the next is read.
 */
export const PAGES_IN_FLIGHT = 3;

export interface BulkByScrollRequest {
  readonly kind: BulkByScrollKind;
  /** The scroll's first search (size = scroll_size, scroll keep-alive set). */
  readonly search: SearchRequest;
  /** Documents to act on at most (`size` / `max_docs`), or null for all. */
  readonly maxDocs: number | null;
  readonly abortOnVersionConflict: boolean;
  readonly write: WriteOptions;
  readonly toWrite: HitToWrite;
  /** The hits need their `_source` (`_reindex`). */
  readonly withSource: boolean;
  readonly requestsPerSecond: number;
  /** Indices to refresh when done (`refresh=true`), by expression. */
  readonly refresh: string | null;
  readonly description: string;
  readonly script: ScriptRecord | null;
  /** Read the hits from these pages instead of by `search` (no slices, no `maxDocs`). */
  readonly pages?: HitPages;
  /** Bulk requests of `pages` in flight at once (1: each page written before the next is read, as a scroll's). */
  readonly pagesInFlight?: number;
}

/** BulkByScrollTask.Status: the progress and the final counts. */
export interface BulkByScrollStatus {
  sliceId?: number;
  total: number;
  updated: number;
  created: number;
  deleted: number;
  batches: number;
  versionConflicts: number;
  noops: number;
  throttledMillis: number;
  requestsPerSecond: number;
  throttledUntilMillis: number;
  canceled: string | null;
}

export interface BulkFailure {
  readonly index: string;
  readonly type: string;
  readonly id: string | null;
  readonly error: EsError;
}

export interface BulkByScrollResult {
  readonly took: number;
  readonly timedOut: boolean;
  readonly status: BulkByScrollStatus;
  readonly slices: BulkByScrollStatus[];
  readonly failures: BulkFailure[];
  readonly searchFailures: Record<string, unknown>[];
}

function newStatus(rps: number, sliceId?: number): BulkByScrollStatus {
  return { sliceId, total: 0, updated: 0, created: 0, deleted: 0, batches: 0, versionConflicts: 0, noops: 0, throttledMillis: 0, requestsPerSecond: rps, throttledUntilMillis: 0, canceled: null };
}

/** Which status fields a response shows (`_update_by_query` has no `created`, `_delete_by_query` neither that nor `updated`). */
export function renderStatus(s: BulkByScrollStatus, kind: BulkByScrollKind, slices: readonly BulkByScrollStatus[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.sliceId !== undefined) out.slice_id = s.sliceId;
  out.total = s.total;
  if (kind !== 'delete') out.updated = s.updated;
  if (kind === 'reindex') out.created = s.created;
  out.deleted = s.deleted;
  out.batches = s.batches;
  out.version_conflicts = s.versionConflicts;
  out.noops = s.noops;
  out.retries = { bulk: 0, search: 0 };
  out.throttled_millis = s.throttledMillis;
  out.requests_per_second = Number.isFinite(s.requestsPerSecond) ? s.requestsPerSecond : -1;
  if (s.canceled !== null) out.canceled = s.canceled;
  out.throttled_until_millis = s.throttledUntilMillis;
  if (slices.length > 0) out.slices = slices.map((x) => renderStatus(x, kind));
  return out;
}

/** BulkByScrollResponse.toXContent. */
export function renderResult(r: BulkByScrollResult, kind: BulkByScrollKind): Record<string, unknown> {
  return {
    took: r.took,
    timed_out: r.timedOut,
    ...renderStatus(r.status, kind, r.slices),
    failures: [
      ...r.failures.map((f) => {
        const cause = renderError(f.error).error as Record<string, unknown>;
        delete cause.root_cause;
        return { index: f.index, type: f.type, id: f.id, cause, status: f.error.status };
      }),
      ...r.searchFailures,
    ],
  };
}

/** The response's HTTP status: the highest of its failures' (BulkIndexByScrollResponseContentListener). */
export function resultStatus(r: BulkByScrollResult): number {
  let status = r.timedOut ? 408 : 200;
  for (const f of r.failures) status = Math.max(status, f.error.status);
  for (const f of r.searchFailures) status = Math.max(status, Number(f.status ?? 500));
  return status;
}

/** What a task of this kind needs of the node. */
export interface BulkByScrollDeps {
  readonly search: SearchCoordinator;
  readonly writes: WriteCoordinator;
  readonly tasks: TaskRegistry;
  readonly refresh: (expr: string) => Promise<void>;
}

/** One slice's scroll: its status object is shared with the task (live progress). */
class SliceWorker {
  readonly failures: BulkFailure[] = [];
  readonly searchFailures: Record<string, unknown>[] = [];
  timedOut = false;

  constructor(
    private readonly deps: BulkByScrollDeps,
    private readonly req: BulkByScrollRequest,
    readonly status: BulkByScrollStatus,
    private readonly task: RunningTask,
  ) {}

  private async throttle(batchSize: number, started: number): Promise<void> {
    const rps = this.status.requestsPerSecond;
    if (!Number.isFinite(rps) || rps <= 0) return;
    // Elasticsearch waits so that the batch's documents take 1/rps second each, counting the time the batch took.
    const wait = (batchSize / rps) * 1000 - (Date.now() - started);
    if (wait <= 0) return;
    this.status.throttledUntilMillis = wait;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.task.onCancel(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.status.throttledMillis += Math.round(wait);
    this.status.throttledUntilMillis = 0;
  }

  async run(): Promise<void> {
    if (this.req.pages !== undefined) return this.runPages(this.req.pages);
    const req = this.req;
    let scrollId: string | null = null;
    try {
      let page = await this.deps.search.search(req.search);
      scrollId = (page.body._scroll_id as string | undefined) ?? null;
      const total = (page.body.hits as { total: number }).total;
      this.status.total = req.maxDocs === null ? total : Math.min(total, req.maxDocs);
      this.noteShardFailures(page.body);
      let done = 0;
      for (;;) {
        if (this.task.cancelled !== null) {
          this.status.canceled = this.task.cancelled;
          return;
        }
        let hits = readHitPage((page.body.hits as { hits: unknown }).hits, req.withSource);
        if (hits.length === 0) return;
        if (req.maxDocs !== null) hits = hits.slice(0, Math.max(0, req.maxDocs - done));
        if (hits.length === 0) return;
        const started = Date.now();
        this.status.batches++;
        const stop = await this.applyBatch(hits);
        done += hits.length;
        if (stop || (req.maxDocs !== null && done >= req.maxDocs)) return;
        await this.throttle(hits.length, started);
        if (scrollId === null) return;
        page = { body: await this.deps.search.scroll(scrollId, req.search.scrollKeepAliveMs), warnings: [] };
        scrollId = (page.body._scroll_id as string | undefined) ?? scrollId;
        this.noteShardFailures(page.body);
      }
    } finally {
      if (scrollId !== null) await this.deps.search.clearScroll([scrollId]).catch(() => 0);
    }
  }

  /**
   * The pages of a replayed `_reindex`: as a scroll's, but a few bulk
   * requests in flight at once when unthrottled (every id is written once,
   * so the order of the writes does not matter).
   */
  private async runPages(src: HitPages): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let stop = false;
    let failed: unknown = null;
    this.status.total = src.total();
    try {
      for await (const hits of src.pages()) {
        if (this.task.cancelled !== null) {
          this.status.canceled = this.task.cancelled;
          break;
        }
        if (stop) break;
        const started = Date.now();
        this.status.batches++;
        const write: Promise<void> = this.applyBatch(hits).then(
          (s) => {
            if (s) stop = true;
          },
          (err: unknown) => {
            failed ??= err;
            stop = true;
          },
        );
        const tracked = write.finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
        const depth = Number.isFinite(this.status.requestsPerSecond) ? 1 : (this.req.pagesInFlight ?? 1);
        while (inFlight.size >= depth) await Promise.race(inFlight);
        this.status.total = src.total();
        if (stop) break;
        await this.throttle(hits.length, started);
      }
    } finally {
      await Promise.all(inFlight);
    }
    if (failed !== null) throw failed;
    if (this.task.cancelled !== null) this.status.canceled = this.task.cancelled;
    else if (!stop) this.status.total = src.total();
  }

  private noteShardFailures(body: Record<string, unknown>): void {
    const shards = body._shards as { failures?: Record<string, unknown>[] } | undefined;
    for (const f of shards?.failures ?? []) this.searchFailures.push({ ...f, status: (f.reason as { status?: number } | undefined)?.status ?? 500 });
    if (body.timed_out === true) this.timedOut = true;
  }

  /** Writes one page; true when the request must stop (a failure, or a conflict with conflicts=abort). */
  private async applyBatch(hits: readonly PageHit[]): Promise<boolean> {
    const writes: WriteRequest[] = [];
    const of: PageHit[] = [];
    for (const hit of hits) {
      const w = this.req.toWrite(hit);
      if (w === 'noop') {
        this.status.noops++;
        continue;
      }
      if (w instanceof EsError) {
        this.failures.push({ index: hit._index, type: hit._type, id: hit._id, error: w });
        continue;
      }
      writes.push(w);
      of.push(hit);
    }
    if (this.failures.length > 0) return true;
    if (writes.length === 0) return false;
    const results = await this.deps.writes.bulk(writes, { ...this.req.write, refresh: 'false' });
    let stop = false;
    results.forEach((r, i) => {
      if (r.ok) {
        this.count(r);
        return;
      }
      // BulkRequest.validate: a request that is invalid fails as a whole, not as an item.
      if (r.error.type === 'action_request_validation_exception') throw r.error;
      if (r.error.type === 'version_conflict_engine_exception') {
        this.status.versionConflicts++;
        if (!this.req.abortOnVersionConflict) return;
      }
      this.failures.push({ index: r.index, type: r.type, id: r.id ?? of[i]!._id, error: r.error });
      stop = true;
    });
    return stop;
  }

  private count(r: WriteItemResult & { ok: true }): void {
    switch (r.result) {
      case 'created':
        this.status.created++;
        break;
      case 'updated':
        this.status.updated++;
        break;
      case 'deleted':
        this.status.deleted++;
        break;
      case 'noop':
        this.status.noops++;
        break;
      case 'not_found':
        // A delete of a document another request deleted meanwhile: Elasticsearch counts it as deleted.
        this.status.deleted++;
        break;
    }
  }
}

function mergeStatuses(kind: BulkByScrollKind, parts: readonly BulkByScrollStatus[], rps: number): BulkByScrollStatus {
  const out = newStatus(rps);
  for (const p of parts) {
    out.total += p.total;
    out.updated += p.updated;
    out.created += p.created;
    out.deleted += p.deleted;
    out.batches += p.batches;
    out.versionConflicts += p.versionConflicts;
    out.noops += p.noops;
    out.throttledMillis += p.throttledMillis;
    out.throttledUntilMillis = Math.max(out.throttledUntilMillis, p.throttledUntilMillis);
    if (p.canceled !== null) out.canceled = p.canceled;
  }
  void kind;
  return out;
}

export interface StartedBulkByScroll {
  readonly task: RunningTask;
  readonly done: Promise<BulkByScrollResult>;
}

/**
 * Starts the request as a task. `slices` > 1 splits the scroll (each slice a
 * child task with its own `slice` in the search); the result merges them.
 */
export function startBulkByScroll(
  deps: BulkByScrollDeps,
  req: BulkByScrollRequest,
  slices: number,
  opts: { storeResult: boolean; headers?: Record<string, string> },
): StartedBulkByScroll {
  const start = Date.now();
  const statuses: BulkByScrollStatus[] = slices > 1 ? Array.from({ length: slices }, (_, i) => newStatus(req.requestsPerSecond / slices, i)) : [newStatus(req.requestsPerSecond)];
  const rps = { value: req.requestsPerSecond };
  const task = deps.tasks.register({
    action: BY_SCROLL_ACTIONS[req.kind],
    description: req.description,
    cancellable: true,
    headers: opts.headers,
    status: () => renderStatus(slices > 1 ? mergeStatuses(req.kind, statuses, rps.value) : statuses[0]!, req.kind, slices > 1 ? statuses : []),
  });
  const rethrottle = (value: number) => {
    rps.value = value;
    for (const s of statuses) s.requestsPerSecond = slices > 1 ? value / slices : value;
  };
  rethrottles.set(task.taskId, rethrottle);
  const done = (async (): Promise<BulkByScrollResult> => {
    const workers: SliceWorker[] = [];
    const childTasks: RunningTask[] = [];
    try {
      if (slices > 1) {
        await Promise.all(
          statuses.map(async (status, i) => {
            const child = deps.tasks.register({ action: BY_SCROLL_ACTIONS[req.kind], description: req.description, cancellable: true, parentTaskId: task.taskId, status: () => renderStatus(status, req.kind) });
            childTasks.push(child);
            task.onCancel(() => child.cancel(task.cancelled ?? 'by user request'));
            const body = { ...(req.search.body as Record<string, unknown>), slice: { id: i, max: slices } };
            const worker = new SliceWorker(deps, { ...req, search: { ...req.search, body, rawBody: null } }, status, child);
            workers.push(worker);
            try {
              await worker.run();
            } finally {
              deps.tasks.finish(child, { response: renderStatus(status, req.kind) }, false);
            }
          }),
        );
      } else {
        const worker = new SliceWorker(deps, req, statuses[0]!, task);
        workers.push(worker);
        await worker.run();
      }
      if (req.refresh !== null) await deps.refresh(req.refresh);
      const status = slices > 1 ? mergeStatuses(req.kind, statuses, rps.value) : statuses[0]!;
      if (task.cancelled !== null) status.canceled = task.cancelled;
      const result: BulkByScrollResult = {
        took: Date.now() - start,
        timedOut: workers.some((w) => w.timedOut),
        status,
        slices: slices > 1 ? statuses : [],
        failures: workers.flatMap((w) => w.failures),
        searchFailures: workers.flatMap((w) => w.searchFailures),
      };
      deps.tasks.finish(task, { response: renderResult(result, req.kind) }, opts.storeResult);
      return result;
    } catch (err) {
      const e = isEsError(err) ? err : new EsError('exception', err instanceof Error ? err.message : String(err), 500);
      deps.tasks.finish(task, { error: e }, opts.storeResult);
      throw err;
    } finally {
      rethrottles.delete(task.taskId);
    }
  })();
  // A task nobody waits for must not leave an unhandled rejection behind.
  done.catch(() => undefined);
  return { task, done };
}

/** Running by-scroll tasks' throttle controls, by task id (`_rethrottle`). */
const rethrottles = new Map<string, (requestsPerSecond: number) => void>();

/** Changes a running task's `requests_per_second`; false when no such task runs here. */
export function rethrottle(taskId: string, requestsPerSecond: number): boolean {
  const fn = rethrottles.get(taskId);
  if (fn === undefined) return false;
  fn(requestsPerSecond);
  return true;
}
