/**
 * Where the checkpoints stand: a deterministic city map. Checkpoint `L0001`
 * .. `Lnnnn` (the generator's ids) and any other id alike get a fixed place
 * within CITY_RADIUS_KM of the city centre, denser towards the centre as
 * real road networks are, drawn from a generator seeded by the id; so the
 * producer, the ingest (which gives every pass its checkpoint's location),
 * tests and benchmarks agree on every location without a shared table.
 */
import { prng } from '../../shared/random/prng.ts';

export interface GeoPoint {
  readonly lat: number;
  readonly lon: number;
}

/** Tian'anmen, Beijing: the plates are Chinese, so is the city. */
export const CITY_CENTER: GeoPoint = { lat: 39.9042, lon: 116.4074 };
export const CITY_RADIUS_KM = 20;
const KM_PER_DEGREE = 111.195;

/** A stable 32-bit seed of an id (FNV-1a). */
function seedOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const cache = new Map<string, GeoPoint>();

/** The location of checkpoint `landId`, rounded to 6 decimals (about 0.1 m). */
export function checkpointLocation(landId: string): GeoPoint {
  const hit = cache.get(landId);
  if (hit !== undefined) return hit;
  const r = prng(seedOf(landId));
  // Radius as u^1.5 of the city's: more checkpoints near the centre.
  const km = CITY_RADIUS_KM * Math.pow(r(), 1.5);
  const angle = r() * 2 * Math.PI;
  const lat = CITY_CENTER.lat + (km * Math.sin(angle)) / KM_PER_DEGREE;
  const lon = CITY_CENTER.lon + (km * Math.cos(angle)) / (KM_PER_DEGREE * Math.cos((CITY_CENTER.lat * Math.PI) / 180));
  const p = { lat: Math.round(lat * 1e6) / 1e6, lon: Math.round(lon * 1e6) / 1e6 };
  if (cache.size < 100_000) cache.set(landId, p);
  return p;
}
