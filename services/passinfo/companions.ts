/**
 * Query 8: companions of a plate. For a target plate and a time range, the
 * plates that passed the same checkpoints as the target within a time
 * tolerance, at at least `min_checkpoints` distinct checkpoints; ranked by
 * that number, then by trajectory similarity (trajectory-similarity.ts).
 *
 * 1. The target's passes are read in time order (trajectory.ts).
 * 2. Around each pass, a window [t - tolerance, t + tolerance] at its
 *    checkpoint; overlapping windows at one checkpoint are merged, so no pass
 *    is read twice. The windows go to the search service in chunks as
 *    `bool.should` of (checkpoint, time range), read by scroll in `_doc` order.
 * 3. Outside the search service: per candidate plate, the distinct shared
 *    checkpoints and the number of passes in a window (Map plate → counts).
 * 4. The best candidates' trajectories are read and scored against the target.
 */
import { invalidParameter } from './errors.ts';
import type { IndexNames } from './index-setup.ts';
import { formatPassTime } from './pass-time.ts';
import { intParam, normalisePlate, parseRange, requireRange, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';
import { visitsOf, type Visit } from './trajectory.ts';
import { trajectorySimilarity, type Similarity } from './trajectory-similarity.ts';

export interface CompanionParams extends TimeRange {
  readonly plate: string;
  /** Seconds either side of a target pass. Default 60. */
  readonly tolerance?: number;
  /** Distinct shared checkpoints a companion needs. Default 3. */
  readonly min_checkpoints?: number;
  /** Companions returned. Default 20. */
  readonly size?: number;
}

export interface Companion {
  readonly plate: string;
  /** Distinct checkpoints where it passed within tolerance of the target. */
  readonly checkpoints: number;
  /** Its passes that fell within tolerance of one of the target's. */
  readonly passes: number;
  readonly lcs: number;
  readonly similarity: number;
}

export interface CompanionResult {
  readonly plate: string;
  readonly target_passes: number;
  readonly candidates: number;
  readonly companions: readonly Companion[];
}

/** Windows per request: well under Elasticsearch's 1024 boolean clauses. */
const WINDOWS_PER_REQUEST = 400;
const SCROLL_BATCH = 5000;

interface Window {
  readonly land: string;
  readonly from: number;
  to: number;
}

/** One window per run of target passes at a checkpoint whose tolerance windows overlap. */
export function passWindows(visits: readonly Visit[], tolMs: number): Window[] {
  const byLand = new Map<string, number[]>();
  for (const v of visits) {
    let ts = byLand.get(v.land);
    if (ts === undefined) byLand.set(v.land, (ts = []));
    ts.push(v.t);
  }
  const windows: Window[] = [];
  for (const [land, ts] of byLand) {
    ts.sort((a, b) => a - b);
    let current: Window | null = null;
    for (const t of ts) {
      if (current !== null && t - tolMs <= current.to) current.to = t + tolMs;
      else windows.push((current = { land, from: t - tolMs, to: t + tolMs }));
    }
  }
  return windows;
}

export async function companions(client: SearchClient, names: IndexNames, params: CompanionParams): Promise<CompanionResult> {
  const plate = normalisePlate(params.plate);
  const range = requireRange(parseRange(params), 'companion analysis');
  const tolerance = intParam('tolerance', params.tolerance, 60, 0, 86_400);
  const minCheckpoints = intParam('min_checkpoints', params.min_checkpoints, 3, 1, 10_000);
  const size = intParam('size', params.size, 20, 1, 1000);
  const rangeParams = { from: params.from, to: params.to };
  const target = await visitsOf(client, names, { plate, ...rangeParams });
  if (target.length === 0) return { plate, target_passes: 0, candidates: 0, companions: [] };
  const windows = passWindows(target, tolerance * 1000);

  const shared = new Map<string, { lands: Set<string>; passes: number }>();
  for (let i = 0; i < windows.length; i += WINDOWS_PER_REQUEST) {
    const should = windows.slice(i, i + WINDOWS_PER_REQUEST).map((w) => ({
      bool: {
        filter: [
          { term: { land_id: w.land } },
          { range: { pass_time: { gte: formatPassTime(Math.max(w.from, range.fromMs - tolerance * 1000)), lte: formatPassTime(w.to) } } },
        ],
      },
    }));
    const body = {
      query: { bool: { should, minimum_should_match: 1, must_not: [{ term: { 'plate.keyword': plate } }] } },
      _source: ['plate', 'land_id'],
    };
    for await (const batch of client.scroll<{ plate: string; land_id: string }>(names.passes, body, { batchSize: SCROLL_BATCH })) {
      for (const hit of batch) {
        let s = shared.get(hit._source.plate);
        if (s === undefined) shared.set(hit._source.plate, (s = { lands: new Set(), passes: 0 }));
        s.lands.add(hit._source.land_id);
        s.passes++;
      }
    }
  }

  const ranked = [...shared.entries()]
    .filter(([, s]) => s.lands.size >= minCheckpoints)
    .sort(([pa, a], [pb, b]) => b.lands.size - a.lands.size || b.passes - a.passes || (pa < pb ? -1 : 1))
    .slice(0, size);
  const result: Companion[] = [];
  for (const [candidate, s] of ranked) {
    const visits = await visitsOf(client, names, { plate: candidate, ...rangeParams });
    const sim = trajectorySimilarity(target, visits, tolerance);
    result.push({ plate: candidate, checkpoints: s.lands.size, passes: s.passes, lcs: sim.lcs, similarity: round(sim.similarity) });
  }
  result.sort((a, b) => b.checkpoints - a.checkpoints || b.similarity - a.similarity || (a.plate < b.plate ? -1 : 1));
  return { plate, target_passes: target.length, candidates: shared.size, companions: result };
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

export interface SimilarityParams extends TimeRange {
  readonly plate_a: string;
  readonly plate_b: string;
  readonly tolerance?: number;
}

/** Query 8's second half: the similarity of two plates' trajectories over a time range. */
export async function plateSimilarity(
  client: SearchClient,
  names: IndexNames,
  params: SimilarityParams,
): Promise<Similarity & { plate_a: string; plate_b: string; tolerance: number }> {
  const a = normalisePlate(params.plate_a, 'plate_a');
  const b = normalisePlate(params.plate_b, 'plate_b');
  if (a === b) throw invalidParameter('plate_b', 'must differ from plate_a');
  parseRange(params);
  const tolerance = intParam('tolerance', params.tolerance, 60, 0, 86_400);
  const rangeParams = { from: params.from, to: params.to };
  const [va, vb] = await Promise.all([visitsOf(client, names, { plate: a, ...rangeParams }), visitsOf(client, names, { plate: b, ...rangeParams })]);
  const sim = trajectorySimilarity(va, vb, tolerance);
  return { plate_a: a, plate_b: b, tolerance, ...sim, similarity: round(sim.similarity) };
}
