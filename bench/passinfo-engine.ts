/**
 * The engine's own answer to two of the pass-record application's queries,
 * for bench:passinfo's "engine" column (issue 18: the application's region
 * collision and day-hidden / night-out within 2× of the engine's own time).
 * The fastest shape an Elasticsearch expert would send, straight over a
 * keep-alive connection: a terms aggregation on `plate.keyword` over the
 * first window, then one over the second filtered to those plates. The
 * application's answers must agree with these (bench:passinfo checks it).
 */
import type { KeepAliveClient } from './keep-alive-client.ts';
import { DAY_MS, formatPassTime, parseDay } from '../services/passinfo/pass-time.ts';

/** `index.max_terms_count`'s default: the most plates one terms filter takes. */
const MAX_PLATES = 65_536;

export interface EngineRegion {
  readonly land_id: readonly string[];
  /** yyyy-MM-dd, inclusive. */
  readonly from: string;
  /** yyyy-MM-dd, exclusive. */
  readonly to: string;
}

interface PlatesAnswer {
  readonly hits: { readonly total: number };
  readonly aggregations: { readonly plates: { readonly sum_other_doc_count: number; readonly buckets: readonly { readonly key: string }[] } };
}

const dayStart = (day: string): string => formatPassTime(parseDay(day)!);
const between = (from: string, to: string) => ({ range: { pass_time: { gte: from, lt: to } } });

async function platesIn(client: KeepAliveClient, index: string, filter: readonly object[]): Promise<string[]> {
  const r = await client.request('POST', `/${index}/_search`, { size: 0, query: { bool: { filter } }, aggs: { plates: { terms: { field: 'plate.keyword', size: MAX_PLATES } } } });
  if (r.status !== 200) throw new Error(`engine: search answered ${r.status}: ${r.text.slice(0, 300)}`);
  const plates = (r.body as PlatesAnswer).aggregations.plates;
  if (plates.sum_other_doc_count !== 0) throw new Error(`engine: a window holds more than ${MAX_PLATES} plates`);
  return plates.buckets.map((b) => String(b.key));
}

/** Plates seen in both regions. */
export async function engineCollision(client: KeepAliveClient, index: string, regions: readonly [EngineRegion, EngineRegion]): Promise<number> {
  const [a, b] = regions;
  const first = await platesIn(client, index, [{ terms: { land_id: a.land_id } }, between(dayStart(a.from), dayStart(a.to))]);
  if (first.length === 0) return 0;
  const both = await platesIn(client, index, [{ terms: { land_id: b.land_id } }, between(dayStart(b.from), dayStart(b.to)), { terms: { 'plate.keyword': first } }]);
  return both.length;
}

/** Over the days [from, to): per day, plates seen 22:00 to 06:00 and never 06:00 to 22:00 of that day; summed. */
export async function engineDayNight(client: KeepAliveClient, index: string, from: string, to: string): Promise<number> {
  let total = 0;
  for (let d = parseDay(from)!; d < parseDay(to)!; d += DAY_MS) {
    const hour = (h: number) => formatPassTime(d + h * 3_600_000);
    const night = await platesIn(client, index, [between(hour(22), hour(30))]);
    if (night.length === 0) continue;
    const seenByDay = await platesIn(client, index, [between(hour(6), hour(22)), { terms: { 'plate.keyword': night } }]);
    total += night.length - seenByDay.length;
  }
  return total;
}
