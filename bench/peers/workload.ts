/**
 * The eleven queries of issue 18, as parameters every engine answers the
 * same way: plates and fragments come from the scale bench's seed queries
 * (its most frequent plate and the plate of its landing-points query), days
 * and regions are fixed inside the generator's 30 days from 2026-10-01.
 */
import { seedAggregations, seedSearches } from '../seed-workload.ts';

export interface Window {
  /** `yyyy-MM-dd HH:mm:ss`, inclusive. */
  readonly from: string;
  /** `yyyy-MM-dd HH:mm:ss`, exclusive. */
  readonly to: string;
}

export interface Region extends Window {
  readonly lands: readonly string[];
}

export type Query =
  | { readonly kind: 'fragment'; readonly name: string; readonly fragment: string }
  | { readonly kind: 'fragment-filtered'; readonly name: string; readonly fragment: string; readonly category: number; readonly window: Window }
  | { readonly kind: 'trajectory'; readonly name: string; readonly plate: string }
  | { readonly kind: 'per-land'; readonly name: string }
  | { readonly kind: 'per-day'; readonly name: string }
  | { readonly kind: 'per-land-day'; readonly name: string }
  | { readonly kind: 'landing-points'; readonly name: string; readonly plate: string }
  | { readonly kind: 'collision'; readonly name: string; readonly regions: readonly [Region, Region] }
  | { readonly kind: 'day-night'; readonly name: string; readonly night: Window; readonly day: Window };

/** The plate a seed body filters on with a `term` on `plate.keyword`. */
function seedPlate(body: unknown): string {
  const text = JSON.stringify(body);
  const m = /"plate\.keyword":"([^"]+)"/.exec(text);
  if (m === null) throw new Error(`no plate.keyword term in the seed body ${text}`);
  return m[1]!;
}

const lands = (first: number, n: number) => Array.from({ length: n }, (_, i) => 'L' + String(first + i).padStart(4, '0'));

export function peerQueries(): Query[] {
  const searches = new Map(seedSearches());
  const aggs = new Map(seedAggregations());
  const plate = seedPlate(searches.get('trajectory of a frequent plate, by time, first 10'));
  const landingPlate = seedPlate(aggs.get('landing points of one plate'));
  // The seed's inner fragment is plate.slice(3, 6); the 5- and 2-character ones are taken around it.
  const frag3 = plate.slice(3, 6);
  return [
    { kind: 'fragment', name: 'fragment of 3 chars, top 10 newest + total', fragment: frag3 },
    { kind: 'fragment', name: 'fragment of 5 chars, top 10 newest + total', fragment: plate.slice(2, 7) },
    { kind: 'fragment', name: 'fragment of 2 chars, top 10 newest + total', fragment: plate.slice(3, 5) },
    {
      kind: 'fragment-filtered',
      name: 'fragment + category + 7-day range, top 10',
      fragment: frag3,
      category: 1,
      window: { from: '2026-10-08 00:00:00', to: '2026-10-15 00:00:00' },
    },
    { kind: 'trajectory', name: 'trajectory of the busiest plate, by time', plate },
    { kind: 'per-land', name: 'count per checkpoint (whole index)' },
    { kind: 'per-day', name: 'count per day' },
    { kind: 'per-land-day', name: 'count per checkpoint per day' },
    { kind: 'landing-points', name: 'landing points of one plate', plate: landingPlate },
    {
      kind: 'collision',
      name: 'region collision (2 x 10 checkpoints x 2 h), count',
      regions: [
        { lands: lands(1, 10), from: '2026-10-10 08:00:00', to: '2026-10-10 10:00:00' },
        { lands: lands(6, 10), from: '2026-10-11 17:00:00', to: '2026-10-11 19:00:00' },
      ],
    },
    {
      kind: 'day-night',
      name: 'day-hidden / night-out of one day, count',
      night: { from: '2026-10-10 22:00:00', to: '2026-10-11 06:00:00' },
      day: { from: '2026-10-10 06:00:00', to: '2026-10-10 22:00:00' },
    },
  ];
}

/** `yyyy-MM-dd HH:mm:ss` read as UTC, as Elasticsearch reads a zone-less date: epoch ms. */
export function passTimeMs(s: string): number {
  return Date.parse(`${s.replace(' ', 'T')}Z`);
}
