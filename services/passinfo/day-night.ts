/**
 * Query 9: day-hidden / night-out. For each day of a range, the plates seen
 * in that day's night window but never in its day window.
 *
 * Windows are times of day (pass-time scale, pass-time.ts). The day window
 * must lie within one day (default 06:00–22:00). The night window may cross
 * midnight: night `22:00-06:00` of day D runs from D 22:00 to D+1 06:00
 * (default); `00:00-05:00` runs from D 00:00 to D 05:00.
 *
 * Per day: the night window's passes per plate (a terms aggregation, or a
 * scroll in `_doc` order when it holds more plates than one aggregation
 * returns, plate-counts.ts) into a Map plate → night passes; the day window
 * the same way, filtered to the night plates when they fit in one
 * aggregation, and every plate it saw removes itself from the map. What
 * remains is the day's answer. Memory is one entry per night plate of one day.
 */
import { invalidParameter } from './errors.ts';
import type { IndexNames } from './index-setup.ts';
import { DAY_MS, formatDay, formatPassTime, parseClock, parseDay } from './pass-time.ts';
import { checkpointsParam, intParam } from './query-params.ts';
import type { SearchClient } from './search-client.ts';
import { MAX_AGGREGATED_PLATES, platePassCounts } from './plate-counts.ts';

export interface DayNightParams {
  /** First day, yyyy-MM-dd. */
  readonly from: string;
  /** Day after the last, yyyy-MM-dd (half-open like every range here). */
  readonly to: string;
  /** `HH:mm-HH:mm`, default `22:00-06:00`. */
  readonly night?: string;
  /** `HH:mm-HH:mm`, default `06:00-22:00`. */
  readonly day?: string;
  readonly land_id?: readonly string[];
  /** Night passes a plate needs on a day to count. Default 1. */
  readonly min_night_passes?: number;
  /** Plates listed per day, most night passes first. Default 1000. */
  readonly size?: number;
}

export interface DayNightDay {
  readonly day: string;
  /** Distinct plates seen in the night window. */
  readonly night_plates: number;
  /** Plates seen at night and never in the day window. */
  readonly total: number;
  readonly plates: readonly { readonly plate: string; readonly night_passes: number }[];
}

/**
 * The day window is filtered to the night's plates while they fit in one
 * aggregation (far below `index.max_terms_count`, 65,536): its plates are
 * then some of those, and one aggregation counts them.
 */
const MAX_PLATES_IN_FILTER = MAX_AGGREGATED_PLATES;
const MAX_DAYS = 366;
const SCROLL_BATCH = 5000;

function window(name: string, value: string): { start: number; end: number } {
  const m = /^\s*([^-\s]+)\s*-\s*([^-\s]+)\s*$/.exec(value);
  if (m === null) throw invalidParameter(name, `[${value}] is not a window HH:mm-HH:mm`);
  const start = parseClock(name, m[1]!);
  const end = parseClock(name, m[2]!);
  if (start === end) throw invalidParameter(name, `[${value}] is empty`);
  return { start, end };
}

export async function dayHiddenNightOut(
  client: SearchClient,
  names: IndexNames,
  params: DayNightParams,
): Promise<{ days: DayNightDay[]; night: string; day: string }> {
  const first = parseDay(params.from ?? '');
  const end = parseDay(params.to ?? '');
  if (first === null) throw invalidParameter('from', `[${params.from}] is not a day yyyy-MM-dd`);
  if (end === null) throw invalidParameter('to', `[${params.to}] is not a day yyyy-MM-dd`);
  if (end <= first || (end - first) / DAY_MS > MAX_DAYS) throw invalidParameter('to', `must be 1 to ${MAX_DAYS} days after [from]`);
  const nightText = params.night ?? '22:00-06:00';
  const dayText = params.day ?? '06:00-22:00';
  const night = window('night', nightText);
  const day = window('day', dayText);
  if (day.end < day.start) throw invalidParameter('day', `[${dayText}] must not cross midnight`);
  const lands = checkpointsParam('land_id', params.land_id, false);
  const minNight = intParam('min_night_passes', params.min_night_passes, 1, 1, 1_000_000);
  const size = intParam('size', params.size, 1000, 0, 1_000_000);
  const landFilter = lands.length > 0 ? [{ terms: { land_id: lands } }] : [];
  const between = (from: number, to: number) => ({ range: { pass_time: { gte: formatPassTime(from), lt: formatPassTime(to) } } });

  const days: DayNightDay[] = [];
  for (let d = first; d < end; d += DAY_MS) {
    const nightFrom = d + night.start * 60_000;
    const nightTo = (night.end > night.start ? d : d + DAY_MS) + night.end * 60_000;
    const nightQuery = { bool: { filter: [between(nightFrom, nightTo), ...landFilter] } };
    const nightPlates = (await platePassCounts(client, names.passes, nightQuery, { batchSize: SCROLL_BATCH })).counts;
    const nightCount = nightPlates.size;
    for (const [plate, n] of nightPlates) if (n < minNight) nightPlates.delete(plate);
    if (nightPlates.size > 0) {
      const plateFilter = nightPlates.size <= MAX_PLATES_IN_FILTER ? [{ terms: { 'plate.keyword': [...nightPlates.keys()] } }] : [];
      const dayQuery = { bool: { filter: [between(d + day.start * 60_000, d + day.end * 60_000), ...landFilter, ...plateFilter] } };
      const seenByDay = (await platePassCounts(client, names.passes, dayQuery, { batchSize: SCROLL_BATCH })).counts;
      for (const plate of seenByDay.keys()) nightPlates.delete(plate);
    }
    const plates = [...nightPlates.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, size)
      .map(([plate, nightPasses]) => ({ plate, night_passes: nightPasses }));
    days.push({ day: formatDay(d), night_plates: nightCount, total: nightPlates.size, plates });
  }
  return { days, night: nightText, day: dayText };
}
