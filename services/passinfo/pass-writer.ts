/**
 * Writes pass records to the passes alias with bulk requests, `_id` =
 * event_id and op `create`: a record delivered twice is refused the second
 * time (409) and counted as a duplicate, so the stored pass and its
 * `_version` never change. Items the service refuses for the record itself
 * (4xx: mapping errors) come back as rejects for the dead-letter path; items
 * refused for the service's state (429, 5xx) are sent again with backoff and
 * the write fails only when they keep failing, so nothing is ever dropped.
 */
import type { IndexNames } from './index-setup.ts';
import { PASS_TYPE } from './index-setup.ts';
import type { PassRecord } from './pass-record.ts';
import type { SearchClient } from './search-client.ts';

export interface Reject {
  readonly record: PassRecord;
  readonly reason: string;
}

export interface WriteResult {
  /** Records stored by this write. */
  readonly indexed: number;
  /** Records that were already stored (redelivered). */
  readonly duplicates: number;
  readonly rejects: readonly Reject[];
}

const RETRIES = 8;
const FIRST_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const retryable = (status: number): boolean => status === 429 || status >= 500;

export class PassWriter {
  constructor(
    private readonly client: SearchClient,
    private readonly names: IndexNames,
  ) {}

  async write(records: readonly PassRecord[]): Promise<WriteResult> {
    let pending = records;
    let indexed = 0;
    let duplicates = 0;
    const rejects: Reject[] = [];
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1)));
      const lines: string[] = [];
      for (const r of pending) {
        lines.push(JSON.stringify({ create: { _index: this.names.passes, _type: PASS_TYPE, _id: r.event_id } }), JSON.stringify(r));
      }
      let res;
      try {
        res = await this.client.bulk(lines);
      } catch (err) {
        if (attempt >= RETRIES) throw err;
        continue;
      }
      const again: PassRecord[] = [];
      res.items.forEach((item, i) => {
        const r = item.create ?? Object.values(item)[0]!;
        const record = pending[i]!;
        if (r.status < 300) indexed++;
        else if (r.status === 409) duplicates++;
        else if (retryable(r.status)) again.push(record);
        else rejects.push({ record, reason: `${r.error?.type ?? `status ${r.status}`}: ${r.error?.reason ?? ''}` });
      });
      if (again.length > 0 && attempt >= RETRIES) {
        throw new Error(`bulk write to [${this.names.passes}]: ${again.length} records still refused after ${RETRIES} retries`);
      }
      pending = again;
    }
    return { indexed, duplicates, rejects };
  }
}
