/**
 * The application's only way to the search service: the official
 * Elasticsearch JavaScript client (6.x) over REST, so everything here runs
 * against Elasticsearch 6.8 as well. This module types the few responses we
 * read, turns client errors into PassinfoErrors with the service's reason,
 * and reads large result sets with scroll.
 */
import { Client } from '@elastic/elasticsearch';
import { searchServiceError } from './errors.ts';

export interface SearchHit<T> {
  readonly _index: string;
  readonly _type: string;
  readonly _id: string;
  readonly _score: number | null;
  readonly _version?: number;
  readonly _source: T;
  readonly sort?: readonly (string | number)[];
}

export interface SearchResponse<T> {
  readonly took: number;
  readonly timed_out: boolean;
  readonly _scroll_id?: string;
  readonly _shards: { readonly total: number; readonly successful: number; readonly failed: number };
  readonly hits: { readonly total: number; readonly max_score: number | null; readonly hits: readonly SearchHit<T>[] };
  readonly aggregations?: Readonly<Record<string, unknown>>;
}

export interface BulkItemResult {
  readonly _id: string;
  readonly status: number;
  readonly error?: { readonly type: string; readonly reason: string };
}

export interface BulkResponse {
  readonly took: number;
  readonly errors: boolean;
  readonly items: readonly Readonly<Record<string, BulkItemResult>>[];
}

/** Elasticsearch's default scroll keep-alive in the examples; a batch must be read within it. */
const DEFAULT_KEEP_ALIVE = '1m';
export const DEFAULT_SCROLL_BATCH = 5000;

interface ClientErrorShape {
  readonly statusCode?: number;
  readonly body?: { readonly error?: { readonly type?: string; readonly reason?: string } | string };
  readonly message?: string;
}

function describe(err: unknown): { status: number | undefined; reason: string } {
  const e = err as ClientErrorShape;
  const error = e?.body?.error;
  const reason =
    typeof error === 'string' ? error : error?.reason !== undefined ? `${error.type ?? 'error'}: ${error.reason}` : (e?.message ?? String(err));
  return { status: e?.statusCode, reason };
}

export function statusOf(err: unknown): number | undefined {
  return (err as ClientErrorShape)?.statusCode;
}

export class SearchClient {
  readonly es: Client;

  constructor(url: string | Client, options: { requestTimeoutMs?: number } = {}) {
    this.es = typeof url === 'string' ? new Client({ node: url, requestTimeout: options.requestTimeoutMs ?? 60_000, maxRetries: 3 }) : url;
  }

  /** Runs a client call; a failure becomes a PassinfoError naming `what` and the service's reason. */
  async call<T>(what: string, fn: (es: Client) => Promise<{ body: unknown }>): Promise<T> {
    try {
      return (await fn(this.es)).body as T;
    } catch (err) {
      const { status, reason } = describe(err);
      throw searchServiceError(what, status, reason, err);
    }
  }

  search<T>(index: string, body: object, what = `search [${index}]`): Promise<SearchResponse<T>> {
    return this.call(what, (es) => es.search({ index, body }));
  }

  /**
   * Reads every hit of the query in scroll batches (a point-in-time view of
   * the index), yielding one batch at a time; the scroll context is freed
   * when the reader stops early too. `sort: ["_doc"]` unless the body sorts.
   */
  async *scroll<T>(index: string, body: object, options: { batchSize?: number; keepAlive?: string } = {}): AsyncGenerator<readonly SearchHit<T>[]> {
    const keepAlive = options.keepAlive ?? DEFAULT_KEEP_ALIVE;
    const withSort = 'sort' in body ? body : { ...body, sort: ['_doc'] };
    let page = await this.call<SearchResponse<T>>(`scroll [${index}]`, (es) =>
      es.search({ index, scroll: keepAlive, size: options.batchSize ?? DEFAULT_SCROLL_BATCH, body: withSort }),
    );
    let scrollId = page._scroll_id;
    try {
      while (page.hits.hits.length > 0) {
        yield page.hits.hits;
        if (scrollId === undefined) return;
        const id = scrollId;
        page = await this.call<SearchResponse<T>>(`scroll [${index}]`, (es) => es.scroll({ scroll: keepAlive, body: { scroll_id: id } }));
        scrollId = page._scroll_id ?? scrollId;
      }
    } finally {
      if (scrollId !== undefined) {
        const id = scrollId;
        // Freeing is a courtesy: an unfreed context expires after keep-alive.
        await this.es.clearScroll({ body: { scroll_id: [id] } }).catch(() => undefined);
      }
    }
  }

  async bulk(lines: readonly string[], options: { refresh?: 'true' | 'wait_for' } = {}): Promise<BulkResponse> {
    return this.call('bulk', (es) => es.bulk({ body: lines.join('\n') + '\n', ...(options.refresh ? { refresh: options.refresh } : {}) }));
  }

  async refresh(index: string): Promise<void> {
    await this.call(`refresh [${index}]`, (es) => es.indices.refresh({ index }));
  }

  async count(index: string, query: object): Promise<number> {
    const body = await this.call<{ count: number }>(`count [${index}]`, (es) => es.count({ index, body: { query } }));
    return body.count;
  }

  async close(): Promise<void> {
    await this.es.close();
  }
}
