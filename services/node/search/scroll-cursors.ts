/**
 * Where each scroll context continues (DESIGN.md 2, "Scroll"): the last of
 * its shard's hits that a page returned, as Elasticsearch's search context
 * keeps its lastEmittedDoc. It is kept on the node that holds the context,
 * so that the scroll id names only where the contexts are and stays the
 * same for the whole scroll, and any node can continue it: each page's
 * fetch phase tells the holder where its shard stopped
 * (ShardFetchRequest.lastEmitted), and the next page's query phase on that
 * context continues after it. A shard that contributed nothing to a page is
 * not fetched and keeps its place.
 *
 * `withScrollCursors` puts this in front of the client of a copy in this
 * process (the coordinator's own copies); the shard service calls the same
 * steps around the requests other nodes send.
 */
import type { RenderedHits, ShardCursor } from '../../../shared/engine/search/types.ts';
import { fetchRendered, type ShardClient, type ShardFetchRequest, type ShardQueryRequest, type ShardQueryResponse } from '../coordinator/shard-client.ts';

interface Entry {
  cursor: ShardCursor | null;
  readonly keepAliveMs: number;
  expiresAt: number;
}

/** How often expired entries are looked for, at most. */
const SWEEP_INTERVAL_MS = 1000;

export class ScrollCursors {
  private readonly entries = new Map<number, Entry>();
  private lastSweep = 0;

  /** The request, continuing where its context's last page ended (a continuation that names no cursor of its own). */
  continuing<R extends { readonly contextId: number | null; readonly after: ShardCursor | null }>(req: R): R {
    if (req.contextId === null || req.after !== null) return req;
    const cursor = this.entries.get(req.contextId)?.cursor ?? null;
    return cursor === null ? req : { ...req, after: cursor };
  }

  /** After a query phase: a scroll context opened (it starts at its shard's beginning), or one used again. */
  queried(req: { readonly contextId: number | null; readonly keepAliveMs: number }, res: { readonly contextId: number }): void {
    const now = Date.now();
    if (req.contextId !== null) {
      const e = this.entries.get(req.contextId);
      if (e) e.expiresAt = now + Math.max(req.keepAliveMs, e.keepAliveMs);
      return;
    }
    if (req.keepAliveMs <= 0) return;
    this.sweep(now);
    this.entries.set(res.contextId, { cursor: null, keepAliveMs: req.keepAliveMs, expiresAt: now + req.keepAliveMs });
  }

  /** After a fetch phase: the page ended at `lastEmitted` on this context's shard. */
  fetched(req: ShardFetchRequest): void {
    if (req.lastEmitted) this.advance(req.contextId, req.lastEmitted);
  }

  /** The context's page ended at `cursor` (a fetch, or a page prepared ahead that is sent now). */
  advance(contextId: number, cursor: ShardCursor): void {
    const e = this.entries.get(contextId);
    if (!e) return;
    e.cursor = cursor;
    e.expiresAt = Math.max(e.expiresAt, Date.now() + e.keepAliveMs);
  }

  delete(contextId: number): void {
    this.entries.delete(contextId);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Drops entries whose context has expired (the contexts' reaper frees the contexts themselves). */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [id, e] of this.entries) if (e.expiresAt < now) this.entries.delete(id);
  }
}

/**
 * One ScrollCursors per set of search contexts (per node): context ids are
 * unique only within their set, and the coordinator and the shard service
 * of a node share theirs.
 */
const bySearchContexts = new WeakMap<object, ScrollCursors>();

export function scrollCursorsOf(contexts: object): ScrollCursors {
  let c = bySearchContexts.get(contexts);
  if (!c) {
    c = new ScrollCursors();
    bySearchContexts.set(contexts, c);
  }
  return c;
}

/** The client of a copy in this process, continuing scroll pages where the context's last page ended. */
export function withScrollCursors(client: ShardClient, cursors: ScrollCursors): ShardClient {
  return new ScrollCursorClient(client, cursors);
}

class ScrollCursorClient implements ShardClient {
  readonly index: string;
  readonly shard: number;

  constructor(
    private readonly inner: ShardClient,
    private readonly cursors: ScrollCursors,
  ) {
    this.index = inner.index;
    this.shard = inner.shard;
  }

  async query(req: ShardQueryRequest): Promise<ShardQueryResponse> {
    const res = await this.inner.query(this.cursors.continuing(req));
    this.cursors.queried(req, res);
    return res;
  }

  async fetch(req: ShardFetchRequest): Promise<string[]> {
    const hits = await this.inner.fetch(req);
    this.cursors.fetched(req);
    return hits;
  }

  async fetchRendered(req: ShardFetchRequest): Promise<RenderedHits> {
    const hits = await fetchRendered(this.inner, req);
    this.cursors.fetched(req);
    return hits;
  }

  release(contextId: number): void {
    this.cursors.delete(contextId);
    this.inner.release(contextId);
  }
}
