/**
 * Deterministic pass-record generator: plates like `京A12345` with a skewed
 * number of passes per plate, about 200 checkpoints placed on a city map
 * (checkpoint-map.ts), 30 days of traffic with
 * a day/night shape. The same seed always yields the same records, so
 * benchmarks and tests can plant and compute known answers.
 */
import { checkpointLocation, type GeoPoint } from './checkpoint-map.ts';
import { prng } from '../../shared/random/prng.ts';

export interface PassRecord {
  event_id: string;
  event_type: number;
  land_id: string;
  land_picture: string;
  pass_time: string;
  plate: string;
  plate_category: number;
  plate_color: number;
  plate_picture: string;
  speed: number;
  vehicle_category: number;
  vehicle_color: number;
  vehicle_length: number;
  /** The checkpoint's location (checkpoint-map.ts). */
  location: GeoPoint;
}

export const PROVINCES = '京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼';
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const ALNUM = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

export { prng } from '../../shared/random/prng.ts';

export interface GeneratorOptions {
  readonly count: number;
  readonly seed?: number;
  /** Distinct plates; passes per plate follow a Zipf-like skew. Default count / 10. */
  readonly plates?: number;
  readonly checkpoints?: number;
  readonly days?: number;
  /** First day, `yyyy-MM-dd` (local time of the data, no zone). */
  readonly startDay?: string;
  /**
   * Pass times in ascending order, as a live stream of checkpoints delivers
   * them (the producer); same plates, checkpoints and day/night shape, only
   * the times differ from the default (random order, what a bulk load sees).
   */
  readonly ordered?: boolean;
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

export function landId(i: number): string {
  return 'L' + String(i + 1).padStart(4, '0');
}

export function plateOf(i: number, seed = 7): string {
  const r = prng(seed * 1_000_003 + i);
  let p = PROVINCES[Math.floor(r() * PROVINCES.length)] + LETTERS[Math.floor(r() * LETTERS.length)];
  for (let k = 0; k < 5; k++) p += r() < 0.8 ? String(Math.floor(r() * 10)) : ALNUM[Math.floor(r() * ALNUM.length)];
  return p;
}

/** Hour weights: quiet nights, morning and evening peaks. */
const HOUR_WEIGHTS = [1, 0.6, 0.4, 0.3, 0.4, 0.8, 2, 4, 6, 5, 4, 4, 4, 4, 4, 4.5, 5, 6, 5.5, 4, 3, 2.5, 2, 1.5];
const HOUR_CDF = (() => {
  const total = HOUR_WEIGHTS.reduce((a, b) => a + b, 0);
  let acc = 0;
  return HOUR_WEIGHTS.map((w) => (acc += w / total));
})();

export function* generatePassRecords(opts: GeneratorOptions): Generator<PassRecord> {
  const seed = opts.seed ?? 42;
  const plates = opts.plates ?? Math.max(1, Math.floor(opts.count / 10));
  const checkpoints = opts.checkpoints ?? 200;
  const days = opts.days ?? 30;
  const start = Date.parse(`${opts.startDay ?? '2026-10-01'}T00:00:00Z`);
  const r = prng(seed);
  const plateCache = new Map<number, string>();
  for (let i = 0; i < opts.count; i++) {
    // Zipf-like: low plate numbers pass far more often.
    const pi = Math.min(plates - 1, Math.floor(plates * Math.pow(r(), 2.2)));
    let plate = plateCache.get(pi);
    if (plate === undefined) {
      plate = plateOf(pi, seed);
      if (plateCache.size < 200_000) plateCache.set(pi, plate);
    }
    let day = Math.floor(r() * days);
    let u = r();
    let hour = 0;
    while (HOUR_CDF[hour] < u) hour++;
    let withinHour = Math.floor(r() * 3_600_000);
    if (opts.ordered) {
      // The i-th of count records sits at fraction (i + jitter) / count of the whole span,
      // mapped through the inverse of the hourly distribution: ascending, same shape.
      const span = ((i + (withinHour / 3_600_000) * 0.999) / opts.count) * days;
      day = Math.floor(span);
      u = span - day;
      hour = 0;
      while (HOUR_CDF[hour] < u) hour++;
      const below = hour === 0 ? 0 : HOUR_CDF[hour - 1];
      withinHour = Math.floor(((u - below) / (HOUR_CDF[hour] - below)) * 3_599_999);
    }
    const t = new Date(start + day * 86_400_000 + hour * 3_600_000 + withinHour);
    const passTime = `${t.getUTCFullYear()}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())} ${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())}`;
    // Each plate frequents a few checkpoints near its "home".
    const home = (pi * 7919) % checkpoints;
    const land = r() < 0.7 ? (home + Math.floor(r() * 5)) % checkpoints : Math.floor(r() * checkpoints);
    yield {
      event_id: `E${seed.toString(36)}-${i.toString(36).padStart(8, '0')}`,
      event_type: 1 + Math.floor(r() * 3),
      land_id: landId(land),
      land_picture: `http://img.example/land/${land}/${i}.jpg`,
      pass_time: passTime,
      plate,
      plate_category: pi % 7 === 0 ? 2 : 1,
      plate_color: pi % 5,
      plate_picture: `http://img.example/plate/${i}.jpg`,
      speed: 20 + Math.floor(r() * 100),
      vehicle_category: 1 + (pi % 6),
      vehicle_color: pi % 9,
      vehicle_length: 3 + (pi % 10),
      location: checkpointLocation(landId(land)),
    };
  }
}

/** The seed's index: plate with a 1–8 n-gram analyzer on letters and digits plus a keyword sub-field. */
export const PASSINFO_INDEX_BODY = {
  settings: {
    number_of_shards: 5,
    number_of_replicas: 1,
    refresh_interval: '1s',
    analysis: {
      analyzer: { plate_ngram: { type: 'custom', tokenizer: 'plate_ngram_tokenizer', filter: ['lowercase'] } },
      tokenizer: { plate_ngram_tokenizer: { type: 'ngram', min_gram: 1, max_gram: 8, token_chars: ['letter', 'digit'] } },
    },
  },
  mappings: {
    passinfo: {
      properties: {
        event_id: { type: 'keyword' },
        event_type: { type: 'integer' },
        land_id: { type: 'keyword' },
        land_picture: { type: 'keyword', index: false },
        location: { type: 'geo_point' },
        pass_time: { type: 'date', format: 'yyyy-MM-dd HH:mm:ss' },
        plate: { type: 'text', analyzer: 'plate_ngram', fields: { keyword: { type: 'keyword' } } },
        plate_category: { type: 'integer' },
        plate_color: { type: 'integer' },
        plate_picture: { type: 'keyword', index: false },
        speed: { type: 'integer' },
        vehicle_category: { type: 'integer' },
        vehicle_color: { type: 'integer' },
        vehicle_length: { type: 'integer' },
      },
    },
  },
};
