/**
 * The search contexts of this node's shard copies, as the node keeps them:
 * an id per context, its keep-alive, and the scroll-context limit. The
 * point-in-time view itself (the pinned segments and the parsed search)
 * lives beside the segments, in a shard worker thread (the context's
 * owner); freeing a context here tells its owner to let the view go. A
 * reaper frees contexts whose keep-alive passed.
 *
 * A scroll context also keeps where its next page starts: the last of its
 * shard's hits that a page returned, as Elasticsearch's context keeps its
 * lastEmittedDoc. It is kept here, on the node holding the context, so the
 * scroll id names only where the contexts are and stays the same for the
 * whole scroll: each page's fetch phase tells the holder where its shard
 * stopped (ShardFetchRequest.lastEmitted), and the next page's query phase
 * on that context continues after it. A shard that contributed nothing to a
 * page is not fetched and keeps its place.
 */
import { EsError } from '../../../shared/errors/es-errors.ts';
import type { ShardCursor, ShardQueryResult } from '../../../shared/engine/search/types.ts';

/**
 * A scroll page's query phase computed ahead, with the fetch phase of the
 * page before it (ShardFetchRequest.queryNext): what the context's query
 * phase answers from `after` for `size` hits.
 */
export interface KeptQuery {
  /** The cursor it continues after: valid while the context's cursor is this very object. */
  readonly after: ShardCursor | null;
  readonly size: number;
  readonly result: ShardQueryResult;
}

/**
 * The most bytes of kept query phases a node holds at once (doc and score
 * arrays): a scroll page of 10,000 hits keeps 80 KB a shard, so the default
 * 500 scroll contexts could hold 40 MB; past this a page asks its shards.
 */
const KEPT_QUERY_BUDGET_BYTES = 16 * 1024 * 1024;

function bytesOf(k: KeptQuery | null): number {
  return k === null ? 0 : k.result.docs.byteLength + k.result.scores.byteLength;
}

/** Holds the views of contexts; told when one is freed. */
export interface ContextOwner {
  release(id: number): void;
}

interface ContextEntry {
  readonly owner: ContextOwner;
  /** Epoch ms after which the reaper frees it. */
  expiresAt: number;
  readonly scroll: boolean;
  /** After which hit of its shard the next scroll page starts; null: at the beginning. */
  cursor: ShardCursor | null;
  /** The query phase from a cursor, computed ahead (scrolls sorted by `_doc`); null when none. */
  kept: KeptQuery | null;
}

/** How often expired contexts are looked for (Elasticsearch's search.keep_alive_interval is 1m). */
const REAPER_INTERVAL_MS = 1000;
/** A plain query_then_fetch context lives until its fetch phase, bounded by this. */
export const FETCH_KEEP_ALIVE_MS = 60_000;

export function tooManyScrollContexts(limit: number): EsError {
  return new EsError(
    'exception',
    `Trying to create too many scroll contexts. Must be less than or equal to: [${limit}]. This limit can be set by changing the [search.max_open_scroll_context] setting.`,
    500,
  );
}

export class SearchContexts {
  private readonly contexts = new Map<number, ContextEntry>();
  private nextId = 1;
  private scrollCount = 0;
  private keptBytes = 0;
  private readonly reaper: NodeJS.Timeout;

  /** The limit in force: a number, or read at each new scroll (a dynamic cluster setting). */
  private readonly maxOpenScrollContexts: () => number;

  constructor(maxOpenScrollContexts: number | (() => number)) {
    this.maxOpenScrollContexts = typeof maxOpenScrollContexts === 'number' ? () => maxOpenScrollContexts : maxOpenScrollContexts;
    this.reaper = setInterval(() => this.reap(Date.now()), REAPER_INTERVAL_MS);
    this.reaper.unref();
  }

  /** A new context id; `keepAliveMs` > 0 makes it a scroll context (counted against the limit). */
  open(owner: ContextOwner, keepAliveMs: number): number {
    const scroll = keepAliveMs > 0;
    const limit = scroll ? this.maxOpenScrollContexts() : 0;
    if (scroll && this.scrollCount >= limit) throw tooManyScrollContexts(limit);
    const id = this.nextId++;
    this.contexts.set(id, { owner, expiresAt: Date.now() + (scroll ? keepAliveMs : FETCH_KEEP_ALIVE_MS), scroll, cursor: null, kept: null });
    if (scroll) this.scrollCount++;
    return id;
  }

  /** Whether the context is open (an expired one is freed and is not). */
  has(id: number): boolean {
    const ctx = this.contexts.get(id);
    if (ctx && ctx.expiresAt < Date.now()) {
      this.free(id);
      return false;
    }
    return ctx !== undefined;
  }

  /** Extends an open context's keep-alive to `keepAliveMs` from now; false when it is not open. */
  renew(id: number, keepAliveMs: number): boolean {
    if (!this.has(id)) return false;
    this.contexts.get(id)!.expiresAt = Date.now() + keepAliveMs;
    return true;
  }

  /** Where the context's next scroll page starts (null: at its shard's beginning, or not open). */
  cursor(id: number): ShardCursor | null {
    return this.contexts.get(id)?.cursor ?? null;
  }

  /** The context's page ended at `cursor` (its fetch, or a page prepared ahead that is sent now). */
  advance(id: number, cursor: ShardCursor): void {
    const ctx = this.contexts.get(id);
    if (ctx) ctx.cursor = cursor;
  }

  /**
   * Keeps a query phase computed ahead for the context (dropped when the
   * node's budget is spent: the page then asks its shard as usual).
   */
  keep(id: number, kept: KeptQuery): void {
    const ctx = this.contexts.get(id);
    if (!ctx) return;
    this.keptBytes -= bytesOf(ctx.kept);
    ctx.kept = null;
    if (this.keptBytes + bytesOf(kept) > KEPT_QUERY_BUDGET_BYTES) return;
    ctx.kept = kept;
    this.keptBytes += bytesOf(kept);
  }

  /** The kept query phase of the context for `size` hits after its current cursor, if there is one. */
  kept(id: number, size: number): ShardQueryResult | null {
    const ctx = this.contexts.get(id);
    const k = ctx?.kept;
    return k !== undefined && k !== null && k.after === ctx!.cursor && k.size === size ? k.result : null;
  }

  /** Frees a context and tells its owner; false when it was not open. */
  free(id: number): boolean {
    const ctx = this.forget(id);
    ctx?.owner.release(id);
    return ctx !== undefined;
  }

  /** Removes a context its owner already let go (a fetch that released it). */
  forget(id: number): ContextEntry | undefined {
    const ctx = this.contexts.get(id);
    if (!ctx) return undefined;
    this.contexts.delete(id);
    if (ctx.scroll) this.scrollCount--;
    this.keptBytes -= bytesOf(ctx.kept);
    return ctx;
  }

  /** Frees every scroll context; returns how many. */
  freeAllScrolls(): number {
    let n = 0;
    for (const [id, ctx] of [...this.contexts]) {
      if (ctx.scroll && this.free(id)) n++;
    }
    return n;
  }

  get openScrollContexts(): number {
    return this.scrollCount;
  }

  private reap(now: number): void {
    for (const [id, ctx] of [...this.contexts]) if (ctx.expiresAt < now) this.free(id);
  }

  close(): void {
    clearInterval(this.reaper);
    for (const id of [...this.contexts.keys()]) this.free(id);
    this.scrollCount = 0;
  }
}
