/**
 * Search contexts of this node's shard copies: the point-in-time view
 * (searcher snapshot) a query phase ran on, kept for its fetch phase, and
 * for scrolls until keep-alive expires (a reaper frees expired ones).
 */
import { EsError } from '../../../shared/errors/es-errors.ts';
import type { SearcherSnapshot } from '../../../shared/engine/segment/types.ts';
import type { ParsedSearch, ShardCursor } from '../../../shared/engine/search/types.ts';

export interface SearchContext {
  readonly id: number;
  readonly snapshot: SearcherSnapshot;
  readonly search: ParsedSearch;
  /** Epoch ms after which the reaper frees it. */
  expiresAt: number;
  readonly scroll: boolean;
  /** Where the next scroll page continues on this shard. */
  cursor: ShardCursor | null;
}

/** How often expired contexts are looked for (Elasticsearch's search.keep_alive_interval is 1m). */
const REAPER_INTERVAL_MS = 1000;
/** A plain query_then_fetch context lives until its fetch phase, bounded by this. */
const FETCH_KEEP_ALIVE_MS = 60_000;

export function tooManyScrollContexts(limit: number): EsError {
  return new EsError(
    'exception',
    `Trying to create too many scroll contexts. Must be less than or equal to: [${limit}]. This limit can be set by changing the [search.max_open_scroll_context] setting.`,
    500,
  );
}

export class SearchContexts {
  private readonly contexts = new Map<number, SearchContext>();
  private nextId = 1;
  private scrollCount = 0;
  private readonly reaper: NodeJS.Timeout;

  constructor(private readonly maxOpenScrollContexts: number) {
    this.reaper = setInterval(() => this.reap(Date.now()), REAPER_INTERVAL_MS);
    this.reaper.unref();
  }

  open(snapshot: SearcherSnapshot, search: ParsedSearch, keepAliveMs: number): SearchContext {
    const scroll = keepAliveMs > 0;
    if (scroll && this.scrollCount >= this.maxOpenScrollContexts) throw tooManyScrollContexts(this.maxOpenScrollContexts);
    const ctx: SearchContext = {
      id: this.nextId++,
      snapshot,
      search,
      expiresAt: Date.now() + (scroll ? keepAliveMs : FETCH_KEEP_ALIVE_MS),
      scroll,
      cursor: null,
    };
    this.contexts.set(ctx.id, ctx);
    if (scroll) this.scrollCount++;
    return ctx;
  }

  get(id: number): SearchContext | undefined {
    const ctx = this.contexts.get(id);
    if (ctx && ctx.expiresAt < Date.now()) {
      this.free(id);
      return undefined;
    }
    return ctx;
  }

  free(id: number): boolean {
    const ctx = this.contexts.get(id);
    if (!ctx) return false;
    this.contexts.delete(id);
    if (ctx.scroll) this.scrollCount--;
    return true;
  }

  /** Frees every scroll context; returns how many. */
  freeAllScrolls(): number {
    let n = 0;
    for (const ctx of [...this.contexts.values()]) {
      if (ctx.scroll && this.free(ctx.id)) n++;
    }
    return n;
  }

  get openScrollContexts(): number {
    return this.scrollCount;
  }

  private reap(now: number): void {
    for (const ctx of [...this.contexts.values()]) if (ctx.expiresAt < now) this.free(ctx.id);
  }

  close(): void {
    clearInterval(this.reaper);
    this.contexts.clear();
    this.scrollCount = 0;
  }
}
