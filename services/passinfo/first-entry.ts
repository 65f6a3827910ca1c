/**
 * Query 7's ingest half: is a pass at a designated entry checkpoint the
 * plate's first pass (anywhere) within the look-back window? Decided at
 * ingest, after the batch's passes are acknowledged, and stored as a
 * first-entry document (_id = the pass's event_id, so a redelivered pass
 * stores nothing new).
 *
 * Most passes are not first entries, so a cache answers most questions
 * without the search service: plate → time of its latest pass this process
 * has seen. It is authoritative for a plate from the moment the plate enters
 * it, because the producer keys records by plate: every later pass of the
 * plate comes through this consumer, in order. For a pass at time t:
 *
 * - cached time m with t - window ≤ m < t: not a first entry;
 * - m < t - window: a first entry (nothing since m, by authority);
 * - no entry, or m ≥ t (records out of time order): ask the search service
 *   whether the plate passed anywhere in [t - window, t) other than this pass.
 *   Those questions are batched into one `filters` aggregation per request.
 *
 * Records that arrive out of time order (a plate's pass older than one this
 * process already saw: a file import, a producer that was behind) may also
 * prove earlier decisions wrong: a first entry in (t, t + window] of that
 * plate has this pass in its look-back window. Such first entries are
 * deleted again ("late arrival correction"), so the stored set converges to
 * the answer the time-ordered stream would give.
 *
 * The cache is a bounded LRU (a Map in insertion order) and is emptied when
 * the consumer group rebalances: after partitions move, another process may
 * have seen this process's plates. Before asking, the passes index is
 * refreshed when the answer could depend on passes written less than a
 * refresh interval ago (after a (re)start or rebalance, or for out-of-order
 * passes, whose earlier passes may be in this very batch).
 */
import type { EntryDesignation } from './entry-designation.ts';
import { FIRST_ENTRY_TYPE, type IndexNames } from './index-setup.ts';
import type { PassRecord } from './pass-record.ts';
import { DAY_MS, formatPassTime, parsePassTime } from './pass-time.ts';
import type { SearchClient } from './search-client.ts';

export interface FirstEntryDoc {
  readonly event_id: string;
  readonly plate: string;
  readonly land_id: string;
  readonly pass_time: string;
  /** The plate's previous pass when this process knows it (it is older than the window); null otherwise. */
  readonly previous_pass_time: string | null;
  readonly look_back_days: number;
}

export const DEFAULT_CACHE_PLATES = 500_000;
/** Questions per search request: one filter each, well under 1024 clauses. */
const QUESTIONS_PER_REQUEST = 200;

export interface FirstEntryStats {
  decided: number;
  firstEntries: number;
  cacheAnswers: number;
  searchAnswers: number;
  /** First entries deleted because an older pass of the plate arrived later. */
  corrected: number;
}

interface Question {
  readonly record: PassRecord;
  readonly t: number;
  readonly outOfOrder: boolean;
}

export class FirstEntryDetector {
  private readonly entryPoints: ReadonlySet<string>;
  private readonly windowMs: number;
  private readonly lastSeen = new Map<string, number>();
  private refreshBeforeAsking = true;
  readonly stats: FirstEntryStats = { decided: 0, firstEntries: 0, cacheAnswers: 0, searchAnswers: 0, corrected: 0 };

  constructor(
    private readonly client: SearchClient,
    private readonly names: IndexNames,
    readonly designation: EntryDesignation,
    private readonly cachePlates = DEFAULT_CACHE_PLATES,
  ) {
    this.entryPoints = new Set(designation.entry_checkpoints);
    this.windowMs = designation.look_back_days * DAY_MS;
  }

  /** Partitions moved: what this process knew about its plates may be incomplete now. */
  forget(): void {
    this.lastSeen.clear();
    this.refreshBeforeAsking = true;
  }

  private remember(plate: string, t: number): void {
    this.lastSeen.delete(plate);
    this.lastSeen.set(plate, t);
    if (this.lastSeen.size > this.cachePlates) this.lastSeen.delete(this.lastSeen.keys().next().value as string);
  }

  /**
   * Decides every entry-checkpoint pass of an acknowledged batch and returns
   * the first entries; the caller stores them (store()) before committing.
   */
  async decide(records: readonly PassRecord[]): Promise<FirstEntryDoc[]> {
    const timed = records
      .map((record) => ({ record, t: parsePassTime(record.pass_time) ?? 0 }))
      .sort((a, b) => a.t - b.t || (a.record.event_id < b.record.event_id ? -1 : 1));
    const found: FirstEntryDoc[] = [];
    const questions: Question[] = [];
    const late: { plate: string; t: number }[] = [];
    for (const { record, t } of timed) {
      const m = this.lastSeen.get(record.plate);
      if (m !== undefined && m > t) late.push({ plate: record.plate, t });
      if (this.entryPoints.has(record.land_id)) {
        this.stats.decided++;
        if (m === undefined || m >= t) {
          questions.push({ record, t, outOfOrder: m !== undefined });
        } else {
          this.stats.cacheAnswers++;
          if (m < t - this.windowMs) found.push(this.doc(record, formatPassTime(m)));
        }
      }
      this.remember(record.plate, m === undefined ? t : Math.max(m, t));
    }
    if (questions.length > 0) {
      if (this.refreshBeforeAsking || questions.some((q) => q.outOfOrder)) {
        await this.client.refresh(this.names.passes);
        this.refreshBeforeAsking = false;
      }
      for (let i = 0; i < questions.length; i += QUESTIONS_PER_REQUEST) {
        found.push(...(await this.ask(questions.slice(i, i + QUESTIONS_PER_REQUEST))));
      }
    }
    if (late.length > 0) await this.correct(late);
    this.stats.firstEntries += found.length;
    return found;
  }

  /** Deletes stored first entries of these plates in (t, t + window]: the late pass precedes them. */
  private async correct(late: readonly { plate: string; t: number }[]): Promise<void> {
    await this.client.refresh(this.names.firstEntries);
    for (let i = 0; i < late.length; i += QUESTIONS_PER_REQUEST) {
      const should = late.slice(i, i + QUESTIONS_PER_REQUEST).map((l) => ({
        bool: {
          filter: [
            { term: { plate: l.plate } },
            { range: { pass_time: { gt: formatPassTime(l.t), lte: formatPassTime(l.t + this.windowMs) } } },
          ],
        },
      }));
      const res = await this.client.search<FirstEntryDoc>(
        this.names.firstEntries,
        { size: 10_000, _source: false, query: { bool: { should, minimum_should_match: 1 } } },
        'first-entry correction',
      );
      if (res.hits.hits.length === 0) continue;
      const lines = res.hits.hits.map((h) => JSON.stringify({ delete: { _index: h._index, _type: FIRST_ENTRY_TYPE, _id: h._id } }));
      const del = await this.client.bulk(lines);
      for (const item of del.items) {
        const r = item.delete;
        if (r !== undefined && r.status >= 300 && r.status !== 404) throw new Error(`deleting first entry [${r._id}] failed: ${r.error?.reason ?? r.status}`);
      }
      this.stats.corrected += res.hits.hits.length;
    }
  }

  private doc(record: PassRecord, previous: string | null): FirstEntryDoc {
    return {
      event_id: record.event_id,
      plate: record.plate,
      land_id: record.land_id,
      pass_time: record.pass_time,
      previous_pass_time: previous,
      look_back_days: this.designation.look_back_days,
    };
  }

  /** One request: for each question, does the plate have another pass in [t - window, t)? */
  private async ask(questions: readonly Question[]): Promise<FirstEntryDoc[]> {
    this.stats.searchAnswers += questions.length;
    const filters: Record<string, object> = {};
    questions.forEach((q, i) => {
      filters[String(i)] = {
        bool: {
          filter: [
            { term: { 'plate.keyword': q.record.plate } },
            { range: { pass_time: { gte: formatPassTime(q.t - this.windowMs), lt: q.record.pass_time } } },
          ],
          must_not: [{ ids: { values: [q.record.event_id] } }],
        },
      };
    });
    const res = await this.client.search<never>(
      this.names.passes,
      { size: 0, query: { terms: { 'plate.keyword': [...new Set(questions.map((q) => q.record.plate))] } }, aggs: { earlier: { filters: { filters } } } },
      'first-entry look-back',
    );
    const buckets = (res.aggregations?.earlier as { buckets: Record<string, { doc_count: number }> }).buckets;
    return questions.filter((_, i) => (buckets[String(i)]?.doc_count ?? 0) === 0).map((q) => this.doc(q.record, null));
  }

  /** Stores first entries (create: a redelivered one is already there and stays as it was). */
  async store(docs: readonly FirstEntryDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const lines: string[] = [];
    for (const d of docs) lines.push(JSON.stringify({ create: { _index: this.names.firstEntries, _type: FIRST_ENTRY_TYPE, _id: d.event_id } }), JSON.stringify(d));
    const res = await this.client.bulk(lines);
    if (!res.errors) return;
    for (const item of res.items) {
      const r = item.create;
      if (r !== undefined && r.status >= 300 && r.status !== 409) {
        throw new Error(`storing first entry [${r._id}] failed: ${r.error?.type ?? r.status}: ${r.error?.reason ?? ''}`);
      }
    }
  }
}
