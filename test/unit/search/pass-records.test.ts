import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { dateFormatter } from '../../../shared/engine/mapping/date-format.ts';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import type { ShardSearchContext } from '../../../shared/engine/search/types.ts';
import { PASSINFO_INDEX_BODY, generatePassRecords } from '../../../bench/pass-records.ts';
import type { PassRecord } from '../../../bench/pass-records.ts';
import { SegmentBuilder } from '../../../shared/engine/segment/segment-builder.ts';
import type { ParsedField } from '../../../shared/engine/mapping/types.ts';
import { field, mappingOf, run, snapshotOf } from './fixtures.ts';

/**
 * The seed application's queries over generated pass records, with the seed's
 * mapping and its real 1–8 n-gram analyzer: fuzzy plate search (prefix and
 * inner fragment, match with operator and), plate + category + time range,
 * and the trajectory of one plate sorted by pass time.
 */
const analyzers = AnalysisRegistry.fromIndexSettings(PASSINFO_INDEX_BODY.settings.analysis, { maxNgramDiff: 7 });
const PASS_TIME = dateFormatter('yyyy-MM-dd HH:mm:ss');
const MAPPING = [
  field('plate', 'text', { analyzer: 'plate_ngram' }),
  field('plate.keyword', 'keyword', { parent: 'plate' }),
  field('plate_category', 'integer'),
  field('land_id', 'keyword'),
  field('pass_time', 'date', { dateFormat: PASS_TIME }),
];
const RECORDS: PassRecord[] = [...generatePassRecords({ count: 3000, plates: 300 })];

function segment(id: number, records: readonly PassRecord[]) {
  const b = new SegmentBuilder(analyzers);
  for (const r of records) {
    const fields: ParsedField[] = [
      { mapping: MAPPING[0]!, values: [r.plate] },
      { mapping: MAPPING[1]!, values: [r.plate] },
      { mapping: MAPPING[2]!, values: [r.plate_category] },
      { mapping: MAPPING[3]!, values: [r.land_id] },
      { mapping: MAPPING[4]!, values: [PASS_TIME.parse(r.pass_time)] },
    ];
    b.add({ id: r.event_id, version: 1, seqNo: 0, routing: null, source: Buffer.from(JSON.stringify(r)), parsed: { fields, dynamicUpdate: null } });
  }
  return b.build(id);
}

const SNAPSHOT = snapshotOf([segment(1, RECORDS.slice(0, 1000)), segment(2, RECORDS.slice(1000, 2200)), segment(3, RECORDS.slice(2200))]);
const ctx = (): ShardSearchContext => ({ mapping: mappingOf(MAPPING), analyzers, nowMillis: Date.now(), filterCache: new FilterCache(), typeName: 'passinfo' });
const byId = new Map(RECORDS.map((r) => [r.event_id, r]));

function expected(pred: (r: PassRecord) => boolean): string[] {
  return RECORDS.filter(pred).map((r) => r.event_id).sort();
}

describe('pass-record queries of the seed application', () => {
  const target = RECORDS[123]!.plate;

  it('fuzzy plate search by prefix (n-gram field, operator and)', () => {
    const prefix = target.slice(0, 3);
    const r = run(SNAPSHOT, ctx(), { query: { match: { plate: { query: prefix, operator: 'and' } } } }, {}, 5000);
    // Every n-gram of the fragment must be in the plate: all plates containing it.
    assert.deepEqual(r.ids.sort(), expected((p) => p.plate.toLowerCase().includes(prefix.toLowerCase())));
    assert.ok(r.total > 0);
  });

  it('fuzzy plate search by an inner fragment ranks exact fragment holders with BM25', () => {
    const inner = target.slice(3, 6);
    const r = run(SNAPSHOT, ctx(), { query: { match: { plate: { query: inner, operator: 'and' } } }, size: 10 }, {}, 10);
    const all = expected((p) => p.plate.toLowerCase().includes(inner.toLowerCase()));
    assert.equal(r.total, all.length);
    assert.ok(r.ids.every((id) => byId.get(id)!.plate.toLowerCase().includes(inner.toLowerCase())));
    assert.ok(r.scores.every((s, i) => i === 0 || s <= r.scores[i - 1]!));
  });

  it('plate + plate_category + pass_time range', () => {
    const from = '2026-10-05 00:00:00';
    const to = '2026-10-20 12:00:00';
    const rec = RECORDS.find((p) => p.pass_time >= from && p.pass_time <= to)!;
    const body = {
      query: {
        bool: {
          filter: [
            { term: { 'plate.keyword': rec.plate } },
            { term: { plate_category: rec.plate_category } },
            { range: { pass_time: { gte: from, lte: to } } },
          ],
        },
      },
    };
    const r = run(SNAPSHOT, ctx(), body);
    assert.deepEqual(r.ids.sort(), expected((p) => p.plate === rec.plate && p.plate_category === rec.plate_category && p.pass_time >= from && p.pass_time <= to));
    assert.ok(r.ids.includes(rec.event_id));
    assert.ok(r.scores.every((s) => s === 0));
  });

  it('trajectory of one plate sorted by pass_time', () => {
    const body = { query: { bool: { filter: { term: { 'plate.keyword': target } } } }, sort: [{ pass_time: 'asc' }], size: 100 };
    const r = run(SNAPSHOT, ctx(), body, {}, 100);
    const mine = RECORDS.filter((p) => p.plate === target);
    const times = r.ids.map((id) => byId.get(id)!.pass_time);
    assert.equal(r.total, mine.length);
    assert.deepEqual(times, mine.map((p) => p.pass_time).sort().slice(0, 100));
    assert.equal(r.result.sortValues![0]![0], PASS_TIME.parse(times[0]!));
  });
});
