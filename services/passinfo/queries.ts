/**
 * The nine business queries as one library object over a search-service
 * client and the index names; the HTTP API and the CLI are thin layers over
 * it, and a program can use it directly.
 */
import { companions, plateSimilarity, type CompanionParams, type CompanionResult, type SimilarityParams } from './companions.ts';
import { dayHiddenNightOut, type DayNightDay, type DayNightParams } from './day-night.ts';
import { firstEntries, type FirstEntryParams } from './first-entry-query.ts';
import type { FirstEntryDoc } from './first-entry.ts';
import { DEFAULT_INDEX_NAMES, type IndexNames } from './index-setup.ts';
import { landingPoints, type LandingPoint } from './landing-points.ts';
import { filteredPlateSearch, fuzzyPlateSearch, type PassPage, type PlateFilters, type PlateSearchParams } from './plate-search.ts';
import type { TimeRange } from './query-params.ts';
import { regionCollision, type CollisionParams, type CollisionResult } from './region-collision.ts';
import { SearchClient } from './search-client.ts';
import type { Similarity } from './trajectory-similarity.ts';
import { trajectory, type TrajectoryParams, type TrajectoryPoint } from './trajectory.ts';
import { trafficCounts, type TrafficParams, type TrafficRow } from './traffic-counts.ts';

export class PassinfoQueries {
  readonly client: SearchClient;

  constructor(
    client: SearchClient | string,
    readonly names: IndexNames = DEFAULT_INDEX_NAMES,
  ) {
    this.client = typeof client === 'string' ? new SearchClient(client) : client;
  }

  /** 1. Fuzzy plate search. */
  plates(p: PlateSearchParams): Promise<PassPage> {
    return fuzzyPlateSearch(this.client, this.names, p);
  }

  /** 2. Plate fragments with exact filters and a time range. */
  passes(p: PlateSearchParams & PlateFilters): Promise<PassPage> {
    return filteredPlateSearch(this.client, this.names, p);
  }

  /** 3. Trajectory. */
  trajectory(p: TrajectoryParams): Promise<{ plate: string; total: number; passes: TrajectoryPoint[] }> {
    return trajectory(this.client, this.names, p);
  }

  /** 4. Traffic counts. */
  traffic(p: TrafficParams): Promise<{ total: number; rows: TrafficRow[] }> {
    return trafficCounts(this.client, this.names, p);
  }

  /** 5. Landing points. */
  landingPoints(p: TimeRange & { plate: string }): Promise<{ plate: string; total: number; points: LandingPoint[] }> {
    return landingPoints(this.client, this.names, p);
  }

  /** 6. Region collision. */
  regionCollision(p: CollisionParams): Promise<CollisionResult> {
    return regionCollision(this.client, this.names, p);
  }

  /** 7. First entries at designated checkpoints. */
  firstEntries(p: FirstEntryParams): Promise<{ total: number; look_back_days: number; entry_checkpoints: readonly string[]; entries: FirstEntryDoc[] }> {
    return firstEntries(this.client, this.names, p);
  }

  /** 8. Companions of a plate. */
  companions(p: CompanionParams): Promise<CompanionResult> {
    return companions(this.client, this.names, p);
  }

  /** 8. Similarity of two plates' trajectories. */
  similarity(p: SimilarityParams): Promise<Similarity & { plate_a: string; plate_b: string; tolerance: number }> {
    return plateSimilarity(this.client, this.names, p);
  }

  /** 9. Day-hidden / night-out. */
  dayNight(p: DayNightParams): Promise<{ days: DayNightDay[]; night: string; day: string }> {
    return dayHiddenNightOut(this.client, this.names, p);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
