/**
 * A pass-record data set with planted answers: background traffic from the
 * bench generator plus hand-made passes whose answers the tests know
 * without the code under test. Planted plates contain the letter O, which
 * the generator never uses, so no background plate can collide with them.
 */
import { generatePassRecords } from '../../bench/pass-records.ts';
import { checkpointLocation } from '../../services/passinfo/checkpoint-map.ts';
import type { PassRecord } from '../../services/passinfo/pass-record.ts';

export const BACKGROUND = 12_000;
export const SEED = 11;

let planted = 0;
function pass(plate: string, land: string, time: string, extra: Partial<PassRecord> = {}): PassRecord {
  planted++;
  return {
    event_id: `P-${planted}`,
    event_type: 1,
    land_id: land,
    land_picture: null,
    pass_time: time,
    plate,
    plate_category: 1,
    plate_color: 2,
    plate_picture: null,
    speed: 50,
    vehicle_category: 1,
    vehicle_color: 3,
    vehicle_length: 4,
    location: checkpointLocation(land),
    ...extra,
  };
}

/** Companions: the target drives five checkpoints; B follows within 20 s everywhere, C at two only, D ten minutes behind. */
export const TARGET = '京O1000A';
export const COMPANION = '京O1000B';
export const PARTIAL = '京O1000C';
export const LATE = '京O1000D';
export const ROUTE = ['L0010', 'L0020', 'L0030', 'L0040', 'L0050'];
export const ROUTE_DAY = '2026-10-05';

/** Day-hidden / night-out on 2026-10-07 (night 22:00–06:00 of the next morning). */
export const NIGHT_ONLY = '京O2000N';
export const NIGHT_AND_DAY = '京O2000M';

/** First entry: entry checkpoints L0001 and L0002, look-back 7 days. */
export const ENTRY_CHECKPOINTS = ['L0001', 'L0002'];
export const LOOK_BACK_DAYS = 7;
export const ENTERING = '京O3000F';

/** Region collision: three plates pass both regions (planted checkpoints L0901/L0902 and L0911/L0912). */
export const REGION_1 = { land_id: ['L0901', 'L0902'], from: '2026-10-10 08:00:00', to: '2026-10-10 10:00:00' };
export const REGION_2 = { land_id: ['L0911', 'L0912'], from: '2026-10-11 08:00:00', to: '2026-10-11 10:00:00' };
export const COLLISION: Record<string, [number, number]> = { '京O4000A': [2, 1], '京O4000B': [1, 3], '京O4000C': [1, 1] };

function plantedRecords(): PassRecord[] {
  const out: PassRecord[] = [];
  ROUTE.forEach((land, i) => {
    const mm = String(10 * i).padStart(2, '0');
    out.push(pass(TARGET, land, `${ROUTE_DAY} 10:${mm}:00`));
    out.push(pass(COMPANION, land, `${ROUTE_DAY} 10:${mm}:20`));
    if (i < 2) out.push(pass(PARTIAL, land, `${ROUTE_DAY} 10:${mm}:45`));
    out.push(pass(LATE, land, `${ROUTE_DAY} 11:${mm}:00`));
  });
  out.push(pass(COMPANION, 'L0199', `${ROUTE_DAY} 15:00:00`));

  out.push(pass(NIGHT_ONLY, 'L0100', '2026-10-07 23:30:00'), pass(NIGHT_ONLY, 'L0101', '2026-10-08 02:10:00'));
  out.push(pass(NIGHT_AND_DAY, 'L0100', '2026-10-07 23:00:00'), pass(NIGHT_AND_DAY, 'L0102', '2026-10-07 12:00:00'));

  out.push(pass(ENTERING, 'L0100', '2026-10-02 09:00:00'));
  out.push(pass(ENTERING, 'L0001', '2026-10-12 09:00:00'));
  out.push(pass(ENTERING, 'L0002', '2026-10-13 09:00:00'));

  // Region passes, plus plates in one region only.
  out.push(pass('京O4000A', 'L0901', '2026-10-10 08:10:00'), pass('京O4000A', 'L0902', '2026-10-10 09:10:00'), pass('京O4000A', 'L0911', '2026-10-11 08:30:00'));
  out.push(pass('京O4000B', 'L0902', '2026-10-10 08:20:00'));
  for (const t of ['08:01:00', '08:40:00', '09:59:59']) out.push(pass('京O4000B', 'L0912', `2026-10-11 ${t}`));
  out.push(pass('京O4000C', 'L0901', '2026-10-10 09:00:00'), pass('京O4000C', 'L0912', '2026-10-11 09:00:00'));
  out.push(pass('京O4000X', 'L0901', '2026-10-10 09:00:00'), pass('京O4000X', 'L0911', '2026-10-11 10:00:00')); // region 2 ends at 10:00, exclusive
  out.push(pass('京O4000Y', 'L0911', '2026-10-11 09:00:00'));
  return out;
}

/** Background and planted records, planted ones spread through the stream. */
export function dataset(background = BACKGROUND): PassRecord[] {
  const all: PassRecord[] = [...generatePassRecords({ count: background, seed: SEED, plates: 1500 })];
  const extra = plantedRecords();
  const step = Math.max(1, Math.floor(all.length / extra.length));
  extra.forEach((r, i) => all.splice(Math.min(all.length, i * step + i), 0, r));
  return all;
}

// ---- brute force: the answers, computed over the records in memory ----------

export const ms = (s: string): number => Date.parse(s.replace(' ', 'T') + 'Z');

export function bruteFirstEntries(records: readonly PassRecord[], entry: readonly string[], lookBackDays: number): Set<string> {
  const byPlate = new Map<string, PassRecord[]>();
  for (const r of records) {
    let list = byPlate.get(r.plate);
    if (!list) byPlate.set(r.plate, (list = []));
    list.push(r);
  }
  const w = lookBackDays * 86_400_000;
  const firsts = new Set<string>();
  for (const list of byPlate.values()) {
    for (const r of list) {
      if (!entry.includes(r.land_id)) continue;
      const t = ms(r.pass_time);
      if (!list.some((o) => o !== r && ms(o.pass_time) < t && ms(o.pass_time) >= t - w)) firsts.add(r.event_id);
    }
  }
  return firsts;
}

export function bruteDayHidden(records: readonly PassRecord[], day: string): Set<string> {
  const d = ms(`${day} 00:00:00`);
  const night = new Set<string>();
  const seenByDay = new Set<string>();
  for (const r of records) {
    const t = ms(r.pass_time);
    if (t >= d + 22 * 3_600_000 && t < d + 30 * 3_600_000) night.add(r.plate);
    if (t >= d + 6 * 3_600_000 && t < d + 22 * 3_600_000) seenByDay.add(r.plate);
  }
  return new Set([...night].filter((p) => !seenByDay.has(p)));
}

export function bruteCompanions(records: readonly PassRecord[], target: string, tolSeconds: number, minCheckpoints: number): Map<string, number> {
  const mine = records.filter((r) => r.plate === target);
  const lands = new Map<string, Set<string>>();
  for (const r of records) {
    if (r.plate === target) continue;
    const t = ms(r.pass_time);
    if (mine.some((m) => m.land_id === r.land_id && Math.abs(ms(m.pass_time) - t) <= tolSeconds * 1000)) {
      let s = lands.get(r.plate);
      if (!s) lands.set(r.plate, (s = new Set()));
      s.add(r.land_id);
    }
  }
  return new Map([...lands].filter(([, s]) => s.size >= minCheckpoints).map(([p, s]) => [p, s.size]));
}
