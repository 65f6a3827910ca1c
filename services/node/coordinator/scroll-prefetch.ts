/**
 * Scroll pages prepared ahead. A client reading a scroll parses each page
 * before it asks for the next, and meanwhile the node has nothing to do;
 * so once a page is answered, the node computes the next one (query and
 * fetch phases) without moving the scroll's cursors, and the next request
 * takes it ready-made and moves them then. The pages a client reads and
 * their order are the same as without it: a prepared page is used only by
 * the next request of its scroll with the same keep-alive, and only if it
 * came out whole; anything else computes the page afresh.
 *
 * Bounded: a few scrolls at once, each page kept until its scroll's
 * keep-alive passes.
 */

/** A page computed ahead of its request. */
export interface PreparedPage {
  /** The response, without `_scroll_id` and `took`. */
  readonly body: Record<string, unknown>;
  /** The page has the scroll's full size: more may follow. */
  readonly full: boolean;
  /** Moves the scroll's cursors past this page: call when it is sent. */
  readonly commit: () => void;
  /** Gives back what the page holds (pooled bytes) when it is dropped unsent. */
  readonly discard: () => void;
}

interface Entry {
  readonly keepAliveMs: number;
  readonly expiresAt: number;
  readonly page: Promise<PreparedPage | null>;
}

/** Scrolls with a page prepared at once, at most: each holds its page's bytes. */
const MAX_PREPARED = 8;

export class ScrollPrefetch {
  private readonly entries = new Map<string, Entry>();

  /** The page prepared for this scroll's next request, if it matches; the entry is used up either way. */
  async take(scrollId: string, keepAliveMs: number): Promise<PreparedPage | null> {
    const e = this.entries.get(scrollId);
    if (e === undefined) return null;
    this.entries.delete(scrollId);
    const page = await e.page;
    if (page === null) return null;
    if (e.keepAliveMs !== keepAliveMs || e.expiresAt < Date.now()) {
      page.discard();
      return null;
    }
    return page;
  }

  /** Starts preparing the next page of a scroll (no more than MAX_PREPARED at once). */
  prepare(scrollId: string, keepAliveMs: number, compute: () => Promise<PreparedPage | null>): void {
    this.sweep(Date.now());
    if (this.entries.has(scrollId) || this.entries.size >= MAX_PREPARED) return;
    const page = compute().catch(() => null);
    this.entries.set(scrollId, { keepAliveMs, expiresAt: Date.now() + keepAliveMs, page });
  }

  /** Drops a scroll's prepared page (the scroll was cleared). */
  drop(scrollId: string): void {
    const e = this.entries.get(scrollId);
    if (e === undefined) return;
    this.entries.delete(scrollId);
    void e.page.then((p) => p?.discard());
  }

  clear(): void {
    for (const id of [...this.entries.keys()]) this.drop(id);
  }

  private sweep(now: number): void {
    for (const [id, e] of this.entries) if (e.expiresAt < now) this.drop(id);
  }
}
