/**
 * What the benchmarks send: the pass-record load as NDJSON bulk bodies, and
 * the seed's searches (a fuzzy plate fragment, fragment + term + 7-day
 * range, a trajectory, a checkpoint filter) on a frequent plate of the data set.
 */
import { generatePassRecords, type PassRecord } from './pass-records.ts';

export interface BulkBody {
  readonly body: Buffer;
  readonly docs: number;
}

/** The next `batch` records of `gen` as one `index` bulk body, or null when it is done. */
export function nextBulkBody(gen: Iterator<PassRecord>, batch: number, onRecord?: (r: PassRecord) => void): BulkBody | null {
  const lines: string[] = [];
  for (let i = 0; i < batch; i++) {
    const n = gen.next();
    if (n.done) break;
    onRecord?.(n.value);
    lines.push(`{"index":{"_type":"passinfo","_id":"${n.value.event_id}"}}`, JSON.stringify(n.value));
  }
  return lines.length === 0 ? null : { body: Buffer.from(lines.join('\n') + '\n', 'utf8'), docs: lines.length / 2 };
}

/** A whole load of `count` generated records as bulk bodies (built before a benchmark's clock starts). */
export function buildBulkBodies(count: number, batch: number, onRecord?: (r: PassRecord) => void): BulkBody[] {
  const out: BulkBody[] = [];
  const gen = generatePassRecords({ count });
  for (let b = nextBulkBody(gen, batch, onRecord); b !== null; b = nextBulkBody(gen, batch, onRecord)) out.push(b);
  return out;
}

/** The seed's searches, by name, on the generator's most frequent plate (its skew puts plate 0 first) and an inner fragment of it. */
export function seedSearches(): [string, unknown][] {
  const freq = new Map<string, number>();
  for (const r of generatePassRecords({ count: 2000 })) freq.set(r.plate, (freq.get(r.plate) ?? 0) + 1);
  const plate = [...freq].sort((a, b) => b[1] - a[1])[0]![0];
  const inner = plate.slice(3, 6);
  const fragment = { match: { plate: { query: inner, operator: 'and' } } };
  return [
    ['fuzzy inner fragment (3 chars), top 10', { query: fragment, size: 10 }],
    [
      'fragment + term + 7-day range',
      {
        query: {
          bool: {
            must: [fragment],
            filter: [{ term: { plate_category: 1 } }, { range: { pass_time: { gte: '2026-10-08 00:00:00', lt: '2026-10-15 00:00:00' } } }],
          },
        },
        size: 10,
      },
    ],
    ['trajectory of a frequent plate, by time, first 10', { query: { term: { 'plate.keyword': plate } }, sort: [{ pass_time: 'asc' }] }],
    ['trajectory of a frequent plate, by time, 1000 hits', { query: { term: { 'plate.keyword': plate } }, sort: [{ pass_time: 'asc' }], size: 1000 }],
    ['term filter on land_id, size 0', { query: { bool: { filter: { term: { land_id: 'L0042' } } } }, size: 0 }],
  ];
}

/** The pass-record analytics of bench:aggs, as search bodies (size 0). */
export function seedAggregations(): [string, unknown][] {
  const plate = generatePassRecords({ count: 1 }).next().value!.plate;
  const agg = (aggs: unknown, query: unknown = { match_all: {} }) => ({ size: 0, query, aggs });
  return [
    ['terms land_id (all docs)', agg({ lands: { terms: { field: 'land_id', size: 200 } } })],
    ['date_histogram per day (all docs)', agg({ days: { date_histogram: { field: 'pass_time', interval: 'day' } } })],
    ['land_id x day (all docs)', agg({ lands: { terms: { field: 'land_id', size: 200 }, aggs: { days: { date_histogram: { field: 'pass_time', interval: 'day' } } } } })],
    ['landing points of one plate', agg({ lands: { terms: { field: 'land_id', size: 200 } } }, { term: { 'plate.keyword': plate } })],
    [
      'plates with _count > 10 (bucket_selector)',
      agg({
        plates: {
          terms: { field: 'plate.keyword', size: 10000 },
          aggs: { many: { bucket_selector: { buckets_path: { c: '_count' }, script: 'params.c > 10' } } },
        },
      }),
    ],
    ['cardinality plate.keyword', agg({ plates: { cardinality: { field: 'plate.keyword' } } })],
  ];
}
