/**
 * A large document indexed as its JSON is read (streamed-document.ts): the
 * buffer's segment holds exactly what indexing the document's whole parse
 * holds (written out, byte for byte the same files), and a document that
 * fails half way (its parse, or the index refusing one of its nested
 * documents) leaves none of its nested documents live: the segment written
 * from the buffer is the one of the same documents with the failed one
 * stored without fields, and the docs stats count no more.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import type { ParsedDocument } from '../../../shared/engine/mapping/types.ts';
import { EMPTY_COMMIT, ShardIndex } from '../../../shared/engine/segment/shard-index.ts';
import { writeSegment } from '../../../shared/engine/segment/segment-writer.ts';
import { indexStreamedSteps } from '../../../shared/engine/segment/streamed-document.ts';
import { runSteps } from '../../../shared/steps/run-steps.ts';
import { tempSegmentDir } from './fixtures.ts';
import { run } from '../search/fixtures.ts';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import type { ShardSearchContext } from '../../../shared/engine/search/types.ts';

const analyzers = AnalysisRegistry.fromIndexSettings(undefined, { maxNgramDiff: 1 });

const MAPPING = {
  properties: {
    title: { type: 'text', copy_to: 'all' },
    all: { type: 'text' },
    tag: { type: 'keyword' },
    items: {
      type: 'nested',
      include_in_root: true,
      properties: {
        name: { type: 'keyword' },
        n: { type: 'long' },
        parts: { type: 'nested', include_in_parent: true, properties: { p: { type: 'keyword' }, w: { type: 'text' } } },
      },
    },
    // Mapped dynamically, inside each nested document.
    other: { type: 'nested' },
  },
};

function mapping(body: unknown = MAPPING): Mapping {
  return Mapping.fromJSON('_doc', body, { analyzerExists: (n) => analyzers.get(n) !== undefined });
}

function bigDocument(items: number, extra: (i: number) => Record<string, unknown> = () => ({})): Buffer {
  return Buffer.from(
    JSON.stringify({
      title: 'a large document',
      tag: ['x', 'y'],
      items: Array.from({ length: items }, (_, i) => ({
        name: `item-${i}`,
        n: i,
        parts: [{ p: `p${i % 5}`, w: 'some words here' }, { p: 'q' }],
        ...extra(i),
      })),
      'dotted.field': 3,
      empty: [],
      other: [{ x: 'a', y: 1 }, { x: 'b' }],
      last: 'after the arrays',
    }),
  );
}

/** The same seq_no in both indexes compared. */
function meta(id: string, source: Buffer): { id: string; version: number; seqNo: number; routing: null; source: Buffer } {
  return { id, version: 1, seqNo: { small: 1, early: 0, big: 2, after: 3 }[id] ?? 9, routing: null, source };
}

function parse(m: Mapping, source: Buffer, limit = 1_000_000): ParsedDocument {
  return m.parse(JSON.parse(source.toString('utf8')) as Record<string, unknown>, limit);
}

/** The files of the index's one segment (its live documents), written out: name → bytes. */
function written(index: ShardIndex): Map<string, Buffer> {
  index.refresh();
  const views = index.acquireSnapshot().views;
  assert.equal(views.length, 1);
  const dir = tempSegmentDir();
  writeSegment(dir, 1, [{ segment: views[0]!.segment, liveDocs: views[0]!.liveDocs }], { sync: false });
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(`${dir}/${f}`)]));
}

const small = Buffer.from(JSON.stringify({ title: 'small', items: [{ name: 'before', parts: [{ p: 'b' }] }] }));
const after = Buffer.from(JSON.stringify({ title: 'after', items: [{ name: 'after' }, { name: 'after-2' }] }));

test('a document indexed as it is read gives the segment its whole parse gives', () => {
  const m = mapping();
  const big = bigDocument(300);
  const whole = ShardIndex.open(tempSegmentDir(), analyzers, EMPTY_COMMIT);
  const streamed = ShardIndex.open(tempSegmentDir(), analyzers, EMPTY_COMMIT);
  for (const index of [whole, streamed]) index.index({ ...meta('small', small), parsed: parse(m, small) });
  whole.index({ ...meta('big', big), parsed: parse(m, big) });
  const outcome = runSteps(indexStreamedSteps(streamed, m, 1_000_000, meta('big', big), true));
  assert.deepEqual(outcome, { ok: true });
  for (const index of [whole, streamed]) index.index({ ...meta('after', after), parsed: parse(m, after) });
  // 3 roots, 301 + 600 + 2 + 2 + 1 nested documents.
  const files = written(whole);
  assert.deepEqual(written(streamed), files);
  assert.equal(whole.docCount, 3 + 301 + 600 + 2 + 2 + 1);
  assert.equal(streamed.docCount, whole.docCount);
});

/**
 * What searches of `streamed` and `expected` answer is the same, and so are
 * their written files but the segment info and the term dictionary, where a
 * field only the failed document had is listed (with nothing in it), as a
 * field of a deleted document is until a merge.
 */
function assertSameLiveDocuments(m: Mapping, streamed: ShardIndex, expected: ShardIndex, withItems: readonly string[]): void {
  const a = written(streamed);
  const b = written(expected);
  for (const [name, bytes] of b) if (!name.endsWith('.si') && !name.endsWith('.tim')) assert.deepEqual(a.get(name), bytes, name);
  assert.equal(streamed.docCount, expected.docCount);
  const ctx: ShardSearchContext = { mapping: m, analyzers, nowMillis: 0, filterCache: new FilterCache(), typeName: '_doc' };
  for (const query of [
    { match_all: {} },
    { nested: { path: 'items', query: { match_all: {} } } },
    { nested: { path: 'items.parts', query: { match_all: {} } } },
    { nested: { path: 'items', query: { range: { 'items.n': { gte: 0 } } } } },
    { exists: { field: 'items.name' } },
    { term: { 'items.name': 'item-3' } },
  ]) {
    const got = run(streamed.acquireSnapshot(), ctx, { query });
    const want = run(expected.acquireSnapshot(), ctx, { query });
    assert.deepEqual(got.ids.sort(), want.ids.sort(), JSON.stringify(query));
  }
  assert.deepEqual(run(streamed.acquireSnapshot(), ctx, { query: { nested: { path: 'items', query: { match_all: {} } } } }).ids.sort(), withItems);
}

/** `index` with `small`, `big` (which fails as `streamed` goes) and `after`; and the same with `big` stored without fields. */
function failing(m: Mapping, big: Buffer, limit: number, before?: (index: ShardIndex) => void): { streamed: ShardIndex; expected: ShardIndex; indexing: boolean } {
  const expected = ShardIndex.open(tempSegmentDir(), analyzers, EMPTY_COMMIT);
  const streamed = ShardIndex.open(tempSegmentDir(), analyzers, EMPTY_COMMIT);
  for (const index of [expected, streamed]) {
    before?.(index);
    index.index({ ...meta('small', small), parsed: parse(m, small) });
  }
  const outcome = runSteps(indexStreamedSteps(streamed, m, limit, meta('big', big), true));
  assert.equal(outcome.ok, false);
  // What the shard worker does then (copy-engine.ts indexLarge).
  streamed.index({ ...meta('big', big), parsed: { fields: [], dynamicUpdate: null } });
  expected.index({ ...meta('big', big), parsed: { fields: [], dynamicUpdate: null } });
  for (const index of [expected, streamed]) index.index({ ...meta('after', after), parsed: parse(m, after) });
  return { streamed, expected, indexing: !outcome.ok && outcome.indexing };
}

test('a document whose parse fails half way (past the nested objects limit) leaves none of its nested documents', () => {
  const m = mapping();
  const { streamed, expected, indexing } = failing(m, bigDocument(300), 250);
  assert.equal(indexing, false);
  assertSameLiveDocuments(m, streamed, expected, ['after', 'small']);
  // 3 roots and the nested documents of `small` and `after` only.
  assert.equal(expected.docCount, 3 + 2 + 2);
});

test('a document the index refuses half way (a field of another type in the buffer) leaves none of its nested documents', () => {
  // The buffer already holds `items.z` as a long (a document of the mapping before `z` was a keyword).
  const before = mapping({ properties: { ...MAPPING.properties, items: { ...MAPPING.properties.items, properties: { ...MAPPING.properties.items.properties, z: { type: 'long' } } } } });
  const withZ = mapping({ properties: { ...MAPPING.properties, items: { ...MAPPING.properties.items, properties: { ...MAPPING.properties.items.properties, z: { type: 'keyword' } } } } });
  const early = Buffer.from(JSON.stringify({ items: [{ z: 1 }] }));
  const { streamed, expected, indexing } = failing(withZ, bigDocument(300, (i) => (i === 200 ? { z: 'text' } : {})), 1_000_000, (index) =>
    index.index({ ...meta('early', early), parsed: parse(before, early) }),
  );
  assert.equal(indexing, true);
  assertSameLiveDocuments(withZ, streamed, expected, ['after', 'early', 'small']);
  assert.equal(expected.docCount, 4 + 1 + 2 + 2);
});

test('a document whose JSON fails after some of its nested objects (a duplicate key, a trailing comma) leaves none of them', () => {
  const m = mapping();
  const text = bigDocument(50).toString('utf8');
  const at = text.indexOf('],"dotted.field"');
  for (const broken of [`${text.slice(0, -1)},"last":"again"}`, `${text.slice(0, at)},${text.slice(at)}`]) {
    const { streamed, expected, indexing } = failing(m, Buffer.from(broken), 1_000_000);
    assert.equal(indexing, false);
    assertSameLiveDocuments(m, streamed, expected, ['after', 'small']);
  }
});
