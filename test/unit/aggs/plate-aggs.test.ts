/**
 * The seed's aggregations over many distinct plates, on a shard copy's real
 * segments (files written at commit and mapped, beside one still in memory):
 * `terms` on plate.keyword with a `bucket_selector`, and `cardinality`,
 * against counts made by brute force over the generated records; the same
 * answers whether global ordinals and term hashes come from the field data
 * cache, are rebuilt, or do not fit its budget at all.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { collectShardAggs, collectShardAggsInSlices } from '../../../shared/engine/aggs/collect.ts';
import { encodeHash, HyperLogLog } from '../../../shared/engine/aggs/cardinality-hll.ts';
import { prng } from '../../../shared/random/prng.ts';
import { FieldDataCache, fieldDataCache, FIELD_DATA_CACHE_BYTES } from '../../../shared/engine/aggs/field-data-cache.ts';
import { reduceAggs } from '../../../shared/engine/aggs/reduce.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import { executeQueryPhase } from '../../../shared/engine/search/query-phase.ts';
import { EMPTY_COMMIT, ShardIndex } from '../../../shared/engine/segment/shard-index.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY } from '../../../services/passinfo/pass-record-generator.ts';

const analyzers = AnalysisRegistry.fromIndexSettings(PASSINFO_INDEX_BODY.settings.analysis, { maxNgramDiff: 7 });
const mapping = Mapping.fromJSON('passinfo', PASSINFO_INDEX_BODY.mappings.passinfo, { analyzerExists: (n) => analyzers.get(n) !== undefined });

interface Shard {
  dir: string;
  index: ShardIndex;
}

/** Records spread over `shards` copies, each refreshed every `perRefresh` docs and committed (mapped) but for its last segment. */
function buildShards(count: number, plates: number, shards: number, perRefresh: number): { shards: Shard[]; counts: Map<string, number> } {
  const out: Shard[] = [];
  for (let s = 0; s < shards; s++) {
    const dir = mkdtempSync(join(tmpdir(), 'plate-aggs-'));
    out.push({ dir, index: ShardIndex.open(dir, analyzers, EMPTY_COMMIT) });
  }
  const counts = new Map<string, number>();
  let i = 0;
  for (const r of generatePassRecords({ count, plates })) {
    counts.set(r.plate, (counts.get(r.plate) ?? 0) + 1);
    const { index } = out[i % shards]!;
    const text = JSON.stringify(r);
    index.index({ id: r.event_id, version: 1, seqNo: i, routing: null, source: Buffer.from(text), parsed: mapping.parse(JSON.parse(text) as Record<string, unknown>) }, false);
    i++;
    if (i % (perRefresh * shards) === 0) for (const sh of out) sh.index.refresh();
    if (i % (4 * perRefresh * shards) === 0) for (const sh of out) sh.index.commit();
  }
  for (const sh of out) sh.index.refresh();
  return { shards: out, counts };
}

function search(shards: readonly Shard[], aggs: unknown): Record<string, unknown> {
  const parsed = parseSearchBody({ size: 0, aggs });
  const specs = parseAggregations(parsed.aggregations, mapping);
  const states = shards.map(({ index }) => {
    const snapshot = index.acquireSnapshot();
    const ctx = { mapping, analyzers, nowMillis: 0, filterCache: new FilterCache(), typeName: 'passinfo' };
    const q = executeQueryPhase(snapshot, parsed, ctx, { size: 0, after: null, collectMatches: true });
    return collectShardAggs(specs, q.matches!, { mapping, nowMillis: 0, numberOfShards: shards.length, filterBits: () => new Uint32Array(0) });
  });
  return reduceAggs(specs, states, { typedKeys: false });
}

/** Resident KiB of this process's mappings of files under `dirs` whose name ends with `suffix` (/proc/self/smaps). */
function residentKb(dirs: readonly string[], suffix: string): number {
  let kb = 0;
  let counted = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s+(.*)$/.exec(line);
    if (header !== null) counted = header[1]!.endsWith(suffix) && dirs.some((d) => header[1]!.startsWith(d));
    else if (counted && line.startsWith('Rss:')) kb += Number(/\d+/.exec(line)![0]);
  }
  return kb;
}

type Buckets = { buckets: { key: string; doc_count: number }[]; sum_other_doc_count: number };

const COUNT = 24_900;
const PLATES = 6_000;

const SELECTOR = {
  plates: {
    terms: { field: 'plate.keyword', size: 10000 },
    aggs: { many: { bucket_selector: { buckets_path: { c: '_count' }, script: 'params.c > 10' } } },
  },
};

describe('plate aggregations on mapped segments', () => {
  let built: { shards: Shard[]; counts: Map<string, number> };

  before(() => {
    // 5,500 distinct plates, past cardinality's default precision_threshold (3,000); the last 900 records stay in memory
    built = buildShards(COUNT, PLATES, 3, 1000);
  });

  after(() => {
    fieldDataCache.resize(FIELD_DATA_CACHE_BYTES);
    for (const { index, dir } of built.shards) {
      index.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has segments on disk and in memory, several per shard', () => {
    for (const { index } of built.shards) {
      const segs = index.describeSegments();
      assert.ok(segs.length >= 3, `segments: ${segs.length}`);
      assert.ok(segs.some((s) => s.inMemory));
      assert.ok(segs.some((s) => s.committed) && segs.some((s) => !s.committed));
    }
  });

  it('terms + bucket_selector: every plate seen more than 10 times with its exact count, count desc then key asc', () => {
    fieldDataCache.clear();
    const want = [...built.counts].filter(([, c]) => c > 10).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    assert.ok(want.length > 50, `plates over 10 passes: ${want.length}`);
    const out = search(built.shards, SELECTOR).plates as Buckets;
    assert.deepEqual(out.buckets.map((b) => [b.key, b.doc_count]), want);
    assert.equal(out.sum_other_doc_count, 0);
  });

  it('the same buckets from the cache, after it is emptied, and with a budget that keeps nothing', () => {
    fieldDataCache.clear();
    const first = search(built.shards, SELECTOR);
    assert.ok(fieldDataCache.bytes > 0, 'global ordinals kept');
    assert.deepEqual(search(built.shards, SELECTOR), first);
    fieldDataCache.resize(0);
    assert.equal(fieldDataCache.bytes, 0);
    assert.deepEqual(search(built.shards, SELECTOR), first);
    assert.equal(fieldDataCache.size, 0);
    fieldDataCache.resize(FIELD_DATA_CACHE_BYTES);
  });

  it('cardinality is near-exact below precision_threshold (linear counting) and within HyperLogLog++ error above it', () => {
    const exact = built.counts.size;
    assert.ok(exact > 3000 && exact < 40_000, `distinct plates: ${exact}`);
    // precision_threshold 40,000: linear counting throughout, a set of 25-bit encodings of the hashes as in
    // Elasticsearch: exact but for the odd collision (about n² / 2^26, half a value here)
    const precise = search(built.shards, { c: { cardinality: { field: 'plate.keyword', precision_threshold: 40_000 } } }).c as { value: number };
    assert.ok(Math.abs(precise.value - exact) <= 2, `${precise.value} for ${exact}`);
    // default threshold 3000 (precision 14): relative standard error 1.04 / sqrt(2^14) = 0.8 %; allow three of them
    const fieldDefault = search(built.shards, { c: { cardinality: { field: 'plate.keyword' } } }).c as { value: number };
    assert.ok(Math.abs(fieldDefault.value - exact) / exact < 0.025, `estimate ${fieldDefault.value} for ${exact}`);
    // a cold cache, a warm one and no cache at all agree
    fieldDataCache.clear();
    const cold = search(built.shards, { c: { cardinality: { field: 'plate.keyword' } } });
    assert.deepEqual(search(built.shards, { c: { cardinality: { field: 'plate.keyword' } } }), cold);
    fieldDataCache.resize(0);
    assert.deepEqual(search(built.shards, { c: { cardinality: { field: 'plate.keyword' } } }), cold);
    fieldDataCache.resize(FIELD_DATA_CACHE_BYTES);
    assert.equal((cold.c as { value: number }).value, fieldDefault.value);
  });

  it('cardinality of a subset below the threshold is exact (plates of one checkpoint)', () => {
    const shards = built.shards;
    const parsed = parseSearchBody({ size: 0, query: { term: { land_id: 'L0001' } }, aggs: { c: { cardinality: { field: 'plate.keyword' } } } });
    const specs = parseAggregations(parsed.aggregations, mapping);
    const states = shards.map(({ index }) => {
      const ctx = { mapping, analyzers, nowMillis: 0, filterCache: new FilterCache(), typeName: 'passinfo' };
      const q = executeQueryPhase(index.acquireSnapshot(), parsed, ctx, { size: 0, after: null, collectMatches: true });
      return collectShardAggs(specs, q.matches!, { mapping, nowMillis: 0, numberOfShards: shards.length, filterBits: () => new Uint32Array(0) });
    });
    const got = (reduceAggs(specs, states, { typedKeys: false }).c as { value: number }).value;
    const want = new Set<string>();
    for (const r of generatePassRecords({ count: COUNT, plates: PLATES })) if (r.land_id === 'L0001') want.add(r.plate);
    assert.ok(want.size > 10 && want.size < 3000);
    assert.equal(got, want.size);
  });
});

/** The day (UTC, epoch ms) of a record's pass_time, `yyyy-MM-dd HH:mm:ss`. */
function dayOf(passTime: string): number {
  return Date.parse(`${passTime.slice(0, 10)}T00:00:00Z`);
}

describe('whole-segment aggregations (match_all on segments without deletes)', () => {
  let built: { shards: Shard[]; counts: Map<string, number> };
  /** The records still in the index, by event id. */
  const live = new Map<string, { plate: string; day: number; land: string }>();
  const DAYS = { days: { date_histogram: { field: 'pass_time', interval: 'day' } } };
  const CARD = { c: { cardinality: { field: 'plate.keyword', precision_threshold: 40_000 } } };

  before(() => {
    built = buildShards(COUNT, PLATES, 3, 1000);
    for (const r of generatePassRecords({ count: COUNT, plates: PLATES })) live.set(r.event_id, { plate: r.plate, day: dayOf(r.pass_time), land: r.land_id });
  });

  after(() => {
    fieldDataCache.resize(FIELD_DATA_CACHE_BYTES);
    for (const { index, dir } of built.shards) {
      index.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Each shard collected at once, or in slices of 4,096 docs with a turn of the event loop between them. */
  async function searchBy(aggs: unknown, query: unknown, sliced: boolean): Promise<Record<string, unknown>> {
    const parsed = parseSearchBody({ size: 0, query, aggs });
    const specs = parseAggregations(parsed.aggregations, mapping);
    const states = [];
    for (const { index } of built.shards) {
      const ctx = { mapping, analyzers, nowMillis: 0, filterCache: new FilterCache(), typeName: 'passinfo' };
      const q = executeQueryPhase(index.acquireSnapshot(), parsed, ctx, { size: 0, after: null, collectMatches: true });
      const actx = { mapping, nowMillis: 0, numberOfShards: built.shards.length, filterBits: () => new Uint32Array(0) };
      states.push(sliced ? await collectShardAggsInSlices(specs, q.matches!, actx, 0, () => new Promise((resolve) => setImmediate(resolve))) : collectShardAggs(specs, q.matches!, actx));
    }
    return reduceAggs(specs, states, { typedKeys: false });
  }

  /** Brute force over the live records `keep` selects: per-day counts, plates over 10 passes, distinct plates. */
  function expected(keep: (r: { plate: string; land: string }) => boolean): { days: [number, number][]; many: [string, number][]; distinct: number } {
    const days = new Map<number, number>();
    const plates = new Map<string, number>();
    for (const r of live.values()) {
      if (!keep(r)) continue;
      days.set(r.day, (days.get(r.day) ?? 0) + 1);
      plates.set(r.plate, (plates.get(r.plate) ?? 0) + 1);
    }
    return {
      days: [...days].sort((a, b) => a[0] - b[0]),
      many: [...plates].filter(([, c]) => c > 10).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
      distinct: plates.size,
    };
  }

  /** The three answers, compared with brute force, for a query and the records it matches. */
  async function check(query: unknown, keep: (r: { plate: string; land: string }) => boolean, sliced: boolean, what: string): Promise<void> {
    const want = expected(keep);
    const days = (await searchBy(DAYS, query, sliced)).days as { buckets: { key: number; doc_count: number }[] };
    assert.deepEqual(days.buckets.map((b) => [b.key, b.doc_count]), want.days, `date_histogram, ${what}`);
    const many = (await searchBy(SELECTOR, query, sliced)).plates as Buckets;
    assert.deepEqual(many.buckets.map((b) => [b.key, b.doc_count]), want.many, `bucket_selector, ${what}`);
    const card = (await searchBy(CARD, query, sliced)).c as { value: number };
    // linear counting below the threshold: exact but for the odd hash collision
    assert.ok(Math.abs(card.value - want.distinct) <= 2, `cardinality ${card.value} for ${want.distinct}, ${what}`);
  }

  const all = () => true;
  const landOne = (r: { land: string }) => r.land === 'L0001';

  it('count every doc from what the segments keep: the same answers cold, warm and in slices', async () => {
    fieldDataCache.clear();
    await check({ match_all: {} }, all, false, 'cold');
    assert.ok(fieldDataCache.size > 0);
    await check({ match_all: {} }, all, false, 'warm');
    await check({ match_all: {} }, all, true, 'sliced, warm');
    fieldDataCache.clear();
    await check({ match_all: {} }, all, true, 'sliced, cold');
    fieldDataCache.resize(0);
    await check({ match_all: {} }, all, false, 'no cache');
    fieldDataCache.resize(FIELD_DATA_CACHE_BYTES);
  });

  it('keep one entry per segment for a date_histogram over every doc, none for a query that does not match segments whole', async () => {
    const segments = built.shards.reduce((n, { index }) => n + index.acquireSnapshot().views.filter((v) => v.segment.maxDoc > 0).length, 0);
    fieldDataCache.clear();
    await searchBy(DAYS, { term: { land_id: 'L0001' } }, false);
    assert.equal(fieldDataCache.size, 0);
    await searchBy(DAYS, { match_all: {} }, false);
    assert.equal(fieldDataCache.size, segments);
  });

  it('keep one sketch per segment for a cardinality over every doc, and not the term hashes that made it', async () => {
    const segments = built.shards.reduce((n, { index }) => n + index.acquireSnapshot().views.filter((v) => v.segment.maxDoc > 0).length, 0);
    fieldDataCache.clear();
    await searchBy(CARD, { term: { land_id: 'L0001' } }, false);
    assert.equal(fieldDataCache.size, segments, 'a query over part of the docs keeps each segment dictionary\'s hashes');
    fieldDataCache.clear();
    await check({ match_all: {} }, all, false, 'cold');
    const kept = fieldDataCache.size;
    fieldDataCache.clear();
    await searchBy(CARD, { match_all: {} }, false);
    assert.equal(fieldDataCache.size, segments, 'a sketch per segment, no hashes');
    await check({ match_all: {} }, all, false, 'warm');
    assert.equal(fieldDataCache.size, kept);
    await check({ term: { land_id: 'L0001' } }, landOne, false, 'part of the docs after the hashes were dropped');
  });

  it('a query matching part of the docs reads them, with the whole-index entries kept', async () => {
    await check({ match_all: {} }, all, false, 'warm the cache');
    await check({ term: { land_id: 'L0001' } }, landOne, false, 'term query');
    await check({ bool: { must_not: { term: { land_id: 'L0001' } } } }, (r) => !landOne(r), true, 'must_not, sliced');
  });

  it('a search over every doc of a mapped segment gives its doc value pages back to the page cache, and answers the same after', async (t) => {
    if (!existsSync('/proc/self/smaps')) return t.skip('no /proc/self/smaps');
    const dirs = built.shards.map((s) => s.dir);
    const mappedKb = () => residentKb(dirs, '.dvd');
    fieldDataCache.clear();
    await check({ term: { land_id: 'L0001' } }, landOne, false, 'part of the docs');
    assert.ok(mappedKb() > 0, 'a query over part of the docs keeps the pages it read');
    await searchBy(DAYS, { match_all: {} }, false);
    assert.equal(mappedKb(), 0, 'every doc value page of the mapped segments given back');
    await check({ match_all: {} }, all, false, 'after the pages were given back');
    await check({ term: { land_id: 'L0001' } }, landOne, true, 'part of the docs again');
  });

  it('segments with deletes read their live docs; the others still count whole', async () => {
    await check({ match_all: {} }, all, false, 'before the deletes');
    // delete every 13th record of the first shard's (a few in each of its segments) and refresh
    const { index } = built.shards[0]!;
    let i = 0;
    let deleted = 0;
    for (const id of [...live.keys()]) {
      if (i++ % 3 !== 0) continue; // records go round-robin to the shards: shard 0 holds every third
      if ((i - 1) % 39 !== 0) continue;
      index.delete(id);
      live.delete(id);
      deleted++;
    }
    index.refresh();
    assert.ok(deleted > 100);
    assert.ok(index.acquireSnapshot().views.some((v) => v.liveDocs !== null && v.segment.maxDoc > 0));
    await check({ match_all: {} }, all, false, 'after the deletes, at once');
    await check({ match_all: {} }, all, true, 'after the deletes, sliced');
    await check({ term: { land_id: 'L0001' } }, landOne, false, 'after the deletes, term query');
  });
});

describe('field data cache', () => {
  it('evicts the least recently used entries to stay within its budget and keeps nothing larger than it', () => {
    const c = new FieldDataCache(100);
    c.set('a', 'A', 40);
    c.set('b', 'B', 40);
    assert.equal(c.get('a'), 'A'); // a is now the most recent
    c.set('c', 'C', 40);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a'), 'A');
    assert.equal(c.get('c'), 'C');
    assert.equal(c.bytes, 80);
    c.set('big', 'X', 101);
    assert.equal(c.get('big'), undefined);
    assert.equal(c.bytes, 80);
    c.set('a', 'A2', 10);
    assert.equal(c.get('a'), 'A2');
    assert.equal(c.bytes, 50);
    c.resize(20);
    assert.deepEqual([c.get('c'), c.get('a')], [undefined, 'A2']);
    assert.equal(c.bytes, 10);
  });
});

describe('HyperLogLog++ encodings', () => {
  it('a register set from a hash and from its 32-bit encoding is the same, at every precision', () => {
    const r = prng(9);
    for (const p of [4, 10, 14, 18]) {
      const direct = new HyperLogLog(p);
      const viaEncoding = new HyperLogLog(p);
      // past the linear-counting threshold, so both are in register mode
      for (let i = 0; i < 200_000; i++) {
        // hashes with long runs of zeros too: the encoding keeps the run in 6 bits when the top 25 bits end in zeros
        const hi = i % 7 === 0 ? (Math.floor(r() * 2 ** 32) >>> (32 - p)) << (32 - p) : Math.floor(r() * 2 ** 32) >>> 0;
        const lo = i % 11 === 0 ? 0 : Math.floor(r() * 2 ** 32) >>> 0;
        direct.collect(hi, lo);
        viaEncoding.addEncoded(encodeHash(hi, lo, p));
      }
      assert.ok(direct.registers !== null && viaEncoding.registers !== null);
      assert.deepEqual(viaEncoding.registers, direct.registers, `precision ${p}`);
    }
  });
});
