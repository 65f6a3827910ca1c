import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readdirSync } from 'node:fs';
import { writeMerge, type ShardIndex } from '../../../shared/engine/segment/shard-index.ts';
import { MappedSegment } from '../../../shared/engine/segment/mapped-segment.ts';
import { findMerges } from '../../../shared/engine/segment/merge-policy.ts';
import { segmentFileName } from '../../../shared/engine/segment/segment-info.ts';
import { bufferedDoc, fieldMapping, newShardIndex, type Values } from './fixtures.ts';
import { idsWithTerm, liveIds, liveRecords } from './segment-views.ts';

const title = fieldMapping('title', 'text');
const color = fieldMapping('color', 'keyword');
const tags = fieldMapping('tags', 'keyword', { index: false });
const price = fieldMapping('price', 'double');
const when = fieldMapping('when', 'date');
const flag = fieldMapping('flag', 'boolean');
const notes = fieldMapping('notes', 'text', { index: false });

const WORDS = ['red', 'blue', 'fox', 'dog', 'car', 'plate', 'night', 'day'];

/** A varied doc: multi-valued text and keywords, optional numbers, fields only some docs have. */
function varied(n: number, version = 1) {
  const fields: [typeof title, Values][] = [[title, [`${WORDS[n % 8]} ${WORDS[(n * 3) % 8]}`, WORDS[(n + 5) % 8]!]]];
  fields.push([color, n % 3 === 0 ? [WORDS[n % 8]!, WORDS[(n + 1) % 8]!] : [WORDS[n % 2]!]]);
  if (n % 2 === 0) fields.push([price, n % 4 === 0 ? [n, n / 2] : [n * 1.5]]);
  if (n % 5 !== 0) fields.push([when, [1_600_000_000_000 + n]]);
  fields.push([flag, [n % 2 === 0]], [tags, [`t${n % 4}`]]);
  if (n % 7 === 0) fields.push([notes, ['not indexed']]);
  return bufferedDoc(`doc-${n}`, fields, version);
}

/** Eleven small segments, with deletes and updates across them. */
function elevenSegments(): ShardIndex {
  const index = newShardIndex();
  let n = 0;
  for (let s = 0; s < 11; s++) {
    for (let k = 0; k < 5; k++) index.index(varied(n++));
    if (s > 0) index.delete(`doc-${s * 5 - 3}`);
    if (s > 1) index.index(varied(s * 5 - 7, 2));
    index.refresh();
    // Refreshed segments stay in memory until a commit writes them; merges are of segments on disk.
    index.commit();
  }
  return index;
}

test('a merge keeps every live doc and every column of it, and drops deletes', () => {
  const index = elevenSegments();
  assert.equal(index.segmentCount, 11);
  const before = index.acquireSnapshot();
  // Held across the merge, as a search context holds it.
  index.pin(before);
  const recordsBefore = liveRecords(before);
  const deletedBefore = index.deletedCount;
  assert.ok(deletedBefore > 0);

  assert.equal(index.maybeMerge(), true);
  assert.ok(index.segmentCount < 11);
  const after = index.acquireSnapshot();
  assert.notEqual(after, before);
  assert.deepEqual(liveRecords(after), recordsBefore);
  assert.equal(after.numDocs, before.numDocs);
  assert.equal(index.docCount, before.numDocs);
  assert.ok(index.deletedCount < deletedBefore);
  for (const word of [...WORDS, 'missing']) {
    assert.deepEqual(idsWithTerm(after, 'title', word), idsWithTerm(before, 'title', word), `title:${word}`);
    assert.deepEqual(idsWithTerm(after, 'color', word), idsWithTerm(before, 'color', word), `color:${word}`);
  }
  // The snapshot held across the merge still reads the old segments.
  assert.deepEqual(liveRecords(before), recordsBefore);
  assert.equal(index.maybeMerge(), false);
  index.unpin(before);
});

test('the id map follows docs into the merged segment', () => {
  const index = elevenSegments();
  index.maybeMerge();
  const ids = liveIds(index.acquireSnapshot());
  index.delete(ids[0]!);
  index.index(varied(Number(ids[1]!.slice(4)), 3));
  index.refresh();
  const snapshot = index.acquireSnapshot();
  assert.deepEqual(liveIds(snapshot), ids.slice(1));
  assert.equal(liveRecords(snapshot).get(ids[1]!)!.version, 3);
});

test('deletes pending across a merge still apply at the next refresh', () => {
  const index = elevenSegments();
  const ids = liveIds(index.acquireSnapshot());
  index.delete(ids[2]!);
  index.index(varied(Number(ids[3]!.slice(4)), 9));
  index.maybeMerge();
  assert.deepEqual(liveIds(index.acquireSnapshot()), ids);
  index.refresh();
  assert.deepEqual(liveIds(index.acquireSnapshot()), ids.filter((id) => id !== ids[2]));
  assert.equal(liveRecords(index.acquireSnapshot()).get(ids[3]!)!.version, 9);
});

test('a segment with many deleted docs is rewritten without them', () => {
  const index = newShardIndex();
  for (let n = 0; n < 10; n++) index.index(varied(n));
  index.refresh();
  index.commit();
  for (let n = 0; n < 4; n++) index.delete(`doc-${n}`);
  index.refresh();
  const recordsBefore = liveRecords(index.acquireSnapshot());
  assert.equal(index.deletedCount, 4);
  assert.equal(index.maybeMerge(), true);
  assert.equal(index.deletedCount, 0);
  assert.equal(index.segmentCount, 1);
  assert.deepEqual(liveRecords(index.acquireSnapshot()), recordsBefore);
});

test('a commit writes the segments refreshes kept in memory as one segment on disk', () => {
  const index = newShardIndex();
  for (let s = 0; s < 3; s++) {
    for (let k = 0; k < 4; k++) index.index(varied(s * 4 + k));
    index.refresh();
  }
  index.delete('doc-1');
  index.refresh();
  assert.equal(index.segmentCount, 3);
  assert.equal(index.maybeMerge(), false, 'segments in memory are not merged');
  const before = liveRecords(index.acquireSnapshot());
  const commit = index.commit();
  assert.equal(commit.segments.length, 1);
  assert.equal(index.segmentCount, 1);
  assert.equal(index.deletedCount, 0, 'the deleted doc was left out when written');
  assert.deepEqual(liveRecords(index.acquireSnapshot()), before);
});

test('forceMerge(1) leaves one segment with every live doc and no deletes; describeSegments reports it', () => {
  const index = elevenSegments();
  const before = liveRecords(index.acquireSnapshot());
  assert.ok(index.segmentCount > 1);
  assert.equal(index.forceMerge(1, false), true);
  assert.equal(index.segmentCount, 1);
  assert.equal(index.deletedCount, 0);
  assert.deepEqual(liveRecords(index.acquireSnapshot()), before);
  const [seg] = index.describeSegments();
  assert.equal(seg!.numDocs, before.size);
  assert.equal(seg!.inMemory, false);
  // Written by the merge, named by no commit yet.
  assert.equal(seg!.committed, false);
  index.commit();
  assert.equal(index.describeSegments()[0]!.committed, true);
  assert.equal(index.merges.total, 1);
  assert.equal(index.merges.docs, before.size);
  assert.equal(index.forceMerge(1, false), false, 'one segment without deletes needs no merge');
});

test('a merge written while the copy goes on applying (deletes refreshed, deletes pending, a commit, an input emptied) keeps exactly the live docs', () => {
  const index = elevenSegments();
  const [plan, ...more] = index.planMerges(findMerges);
  assert.ok(plan !== undefined);
  assert.equal(more.length, 0);
  assert.deepEqual(index.planMerges(findMerges), [], 'segments held by a planned merge are not planned again');
  // What a merge thread does with the plan: writes from its inputs' ids and live docs as of planning.
  const sources = plan.sources.map((s) => ({ segment: MappedSegment.open(index.dir, s.segmentId, 'none'), liveDocs: s.liveDocs }));
  const written = writeMerge(index.dir, plan.id, sources);
  for (const s of sources) s.segment.close();

  // Meanwhile: deletes and an update refreshed and committed, one input emptied, deletes left pending.
  const inputIds = liveIds(index.acquireSnapshot());
  const emptied = [...Array(5).keys()].map((k) => `doc-${k}`).filter((id) => inputIds.includes(id));
  for (const id of emptied) index.delete(id);
  index.delete(inputIds[8]!);
  index.index(varied(Number(inputIds[9]!.slice(4)), 7));
  index.refresh();
  index.commit();
  index.delete(inputIds[10]!);
  const expectedNow = liveIds(index.acquireSnapshot());
  assert.ok(!expectedNow.includes(inputIds[8]!));
  assert.ok(plan.inputs.length > index.describeSegments().filter((s) => plan.inputs.some((i) => i.id === s.id)).length, 'an input lost its last live doc');

  index.finishMerge(plan, written, 1);
  assert.deepEqual(liveIds(index.acquireSnapshot()), expectedNow);
  assert.equal(liveRecords(index.acquireSnapshot()).get(inputIds[9]!)!.version, 7);
  index.refresh();
  assert.deepEqual(
    liveIds(index.acquireSnapshot()),
    expectedNow.filter((id) => id !== inputIds[10]),
  );
  const commit = index.commit();
  assert.ok(commit.segments.some((s) => s.id === plan.id), 'the merged segment is committed');
  assert.ok(commit.segments.some((s) => s.id === plan.id && s.liveGen > 0), 'with the deletes made while it was written');
});

test('an abandoned merge frees its inputs and leaves no file', () => {
  const index = elevenSegments();
  const [plan] = index.planMerges(findMerges);
  assert.ok(plan !== undefined);
  writeMerge(index.dir, plan.id, plan.sources.map((s, k) => ({ segment: plan.inputs[k]!, liveDocs: s.liveDocs })));
  assert.ok(readdirSync(index.dir).some((f) => f.startsWith(segmentFileName(plan.id, 'si').split('.')[0]!)));
  index.abandonMerge(plan);
  assert.ok(!readdirSync(index.dir).some((f) => f.startsWith(segmentFileName(plan.id, 'si').split('.')[0]!)));
  assert.equal(index.planMerges(findMerges).length, 1, 'its inputs can be planned again');
});
