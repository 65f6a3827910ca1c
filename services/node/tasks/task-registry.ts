/**
 * The tasks a node is running (Elasticsearch's TaskManager): every
 * long-running request registers one (`_update_by_query`, `_delete_by_query`,
 * `_reindex`), and so do searches, multi-searches and bulks, so `GET /_tasks`
 * and `_cat/tasks` show what the node is busy with. A task id is
 * `<node id>:<number>`, numbers counting up from 1 on each node.
 *
 * A task started with `wait_for_completion=false` keeps its result when it
 * ends, so `GET /_tasks/{id}` answers it afterwards (Elasticsearch stores it
 * in the `.tasks` index; here it is kept in memory, the latest
 * MAX_STORED_RESULTS of them, until the node stops).
 */
import { EsError, illegalArgument, renderError } from '../../../shared/errors/es-errors.ts';

/** Results kept for `GET /_tasks/{id}` after their task ended. */
export const MAX_STORED_RESULTS = 1000;

export interface TaskSpec {
  /** Elasticsearch's action name: `indices:data/write/update/byquery`, `indices:data/read/search`, ... */
  readonly action: string;
  readonly description: string;
  readonly cancellable: boolean;
  /** `<node>:<id>` of the task that started this one (a slice of a sliced request). */
  readonly parentTaskId?: string | null;
  /** The task's progress, for detailed listings and `GET /_tasks/{id}`. */
  readonly status?: () => Record<string, unknown>;
  /** Request headers Elasticsearch copies into tasks (`X-Opaque-Id`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** TaskInfo as Elasticsearch renders it. */
export type TaskInfoJson = Record<string, unknown>;

export class RunningTask {
  private cancelReason: string | null = null;
  private readonly cancelListeners: (() => void)[] = [];
  readonly startTimeMillis = Date.now();
  private readonly startNanos = process.hrtime.bigint();

  constructor(
    readonly nodeId: string,
    readonly id: number,
    readonly spec: TaskSpec,
  ) {}

  get taskId(): string {
    return `${this.nodeId}:${this.id}`;
  }

  get action(): string {
    return this.spec.action;
  }

  get cancellable(): boolean {
    return this.spec.cancellable;
  }

  /** Why the task was cancelled, or null while it was not. */
  get cancelled(): string | null {
    return this.cancelReason;
  }

  runningTimeNanos(): bigint {
    return process.hrtime.bigint() - this.startNanos;
  }

  /** Runs `fn` when the task is cancelled (at once when it already is). */
  onCancel(fn: () => void): void {
    if (this.cancelReason !== null) fn();
    else this.cancelListeners.push(fn);
  }

  cancel(reason: string): void {
    if (this.cancelReason !== null) return;
    this.cancelReason = reason;
    for (const fn of this.cancelListeners.splice(0)) fn();
  }

  /** TaskInfo.toXContent; `detailed` adds the description and the status, as `?detailed` does. */
  info(detailed: boolean): TaskInfoJson {
    const out: TaskInfoJson = { node: this.nodeId, id: this.id, type: 'transport', action: this.spec.action };
    if (detailed && this.spec.status) out.status = this.spec.status();
    if (detailed) out.description = this.spec.description;
    out.start_time_in_millis = this.startTimeMillis;
    out.running_time_in_nanos = this.runningTimeNanos();
    out.cancellable = this.spec.cancellable;
    if (this.spec.parentTaskId) out.parent_task_id = this.spec.parentTaskId;
    out.headers = { ...(this.spec.headers ?? {}) };
    return out;
  }
}

/** A finished task's record: its last TaskInfo and its response or error. */
export interface TaskResult {
  readonly task: TaskInfoJson;
  readonly response?: unknown;
  readonly error?: Record<string, unknown>;
}

export interface TaskFilter {
  /** Action patterns with `*` (`?actions=*byquery`). */
  readonly actions?: readonly string[];
  readonly parentTaskId?: string;
}

/** `<node id>:<number>`, or Elasticsearch's error for anything else. */
export function parseTaskId(text: string): { nodeId: string; id: number } {
  const colon = text.lastIndexOf(':');
  const id = Number(text.slice(colon + 1));
  if (colon <= 0 || !/^\d+$/.test(text.slice(colon + 1)) || !Number.isSafeInteger(id)) throw illegalArgument(`malformed task id ${text}`);
  return { nodeId: text.slice(0, colon), id };
}

export function taskNotFound(taskId: string): EsError {
  return new EsError('resource_not_found_exception', `task [${taskId}] isn't running and hasn't stored its results`, 404);
}

/** A `*` pattern as a matcher (linear: the pattern is cut at each `*` and the parts found in order). */
function actionMatcher(pattern: string): (action: string) => boolean {
  const parts = pattern.split('*');
  return (action) => {
    if (parts.length === 1) return action === pattern;
    if (!action.startsWith(parts[0]!) || !action.endsWith(parts[parts.length - 1]!)) return false;
    let at = parts[0]!.length;
    const end = action.length - parts[parts.length - 1]!.length;
    for (let i = 1; i < parts.length - 1; i++) {
      const found = action.indexOf(parts[i]!, at);
      if (found < 0 || found + parts[i]!.length > end) return false;
      at = found + parts[i]!.length;
    }
    return at <= end;
  };
}

export class TaskRegistry {
  private nextId = 1;
  private readonly running = new Map<number, RunningTask>();
  private readonly results = new Map<number, TaskResult>();
  private readonly waiters = new Map<number, ((r: TaskResult | null) => void)[]>();

  constructor(readonly nodeId: string) {}

  register(spec: TaskSpec): RunningTask {
    const task = new RunningTask(this.nodeId, this.nextId++, spec);
    this.running.set(task.id, task);
    return task;
  }

  /**
   * Ends a task. `store` keeps its result for `GET /_tasks/{id}` (a task
   * started with `wait_for_completion=false`).
   */
  finish(task: RunningTask, outcome: { response: unknown } | { error: EsError }, store: boolean): void {
    this.running.delete(task.id);
    const result: TaskResult =
      'response' in outcome ? { task: task.info(true), response: outcome.response } : { task: task.info(true), error: renderError(outcome.error).error };
    if (store) {
      this.results.set(task.id, result);
      if (this.results.size > MAX_STORED_RESULTS) this.results.delete(this.results.keys().next().value!);
    }
    for (const w of this.waiters.get(task.id) ?? []) w(store ? result : null);
    this.waiters.delete(task.id);
  }

  /** Runs `work` as a task; the task ends when it settles. */
  async run<T>(spec: TaskSpec, work: (task: RunningTask) => Promise<T>): Promise<T> {
    const task = this.register(spec);
    try {
      const value = await work(task);
      this.finish(task, { response: null }, false);
      return value;
    } catch (err) {
      this.finish(task, { response: null }, false);
      throw err;
    }
  }

  list(filter: TaskFilter = {}): RunningTask[] {
    const matchers = filter.actions?.map(actionMatcher) ?? null;
    return [...this.running.values()].filter(
      (t) => (matchers === null || matchers.some((m) => m(t.action))) && (filter.parentTaskId === undefined || t.spec.parentTaskId === filter.parentTaskId),
    );
  }

  get(id: number): RunningTask | undefined {
    return this.running.get(id);
  }

  result(id: number): TaskResult | undefined {
    return this.results.get(id);
  }

  /**
   * Resolves once the task ends: with its result when it keeps one, null
   * when it does not, or `undefined` after `timeoutMs` while it still runs.
   */
  waitFor(id: number, timeoutMs: number): Promise<TaskResult | null | undefined> {
    if (!this.running.has(id)) return Promise.resolve(this.results.get(id) ?? null);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const done = (r: TaskResult | null | undefined) => {
        if (timer !== null) clearTimeout(timer);
        resolve(r);
      };
      const list = this.waiters.get(id) ?? [];
      list.push(done);
      this.waiters.set(id, list);
      if (Number.isFinite(timeoutMs) && timeoutMs >= 0) {
        timer = setTimeout(() => {
          const l = this.waiters.get(id);
          if (l) this.waiters.set(id, l.filter((w) => w !== done));
          resolve(undefined);
        }, timeoutMs);
      }
    });
  }
}
