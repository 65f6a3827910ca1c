import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bufferedDoc, fieldMapping, newShardIndex } from './fixtures.ts';
import { idsWithTerm, liveIds } from './segment-views.ts';

const title = fieldMapping('title', 'text');
const color = fieldMapping('color', 'keyword');

function doc(id: string, text: string, version = 1) {
  return bufferedDoc(id, [[title, [text]], [color, [text.split(' ')[0]!]]], version);
}

test('indexed docs are invisible until a refresh', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car'));
  index.index(doc('2', 'blue car'));
  assert.equal(index.pendingOps, 2);
  assert.equal(index.docCount, 0);
  assert.deepEqual(liveIds(index.acquireSnapshot()), []);

  assert.equal(index.refresh(), true);
  assert.equal(index.pendingOps, 0);
  assert.equal(index.docCount, 2);
  assert.equal(index.segmentCount, 1);
  assert.deepEqual(idsWithTerm(index.acquireSnapshot(), 'title', 'car'), ['1', '2']);
  assert.equal(index.refresh(), false);
});

test('the snapshot object is reused until something changes', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car'));
  index.refresh();
  const first = index.acquireSnapshot();
  assert.equal(index.acquireSnapshot(), first);
  index.index(doc('2', 'blue car'));
  assert.equal(index.acquireSnapshot(), first);
  index.refresh();
  assert.notEqual(index.acquireSnapshot(), first);
  assert.equal(index.acquireSnapshot().numDocs, 2);
  assert.equal(index.acquireSnapshot().maxDoc, 2);
  assert.deepEqual(
    index.acquireSnapshot().views.map((v) => v.docBase),
    [0, 1],
  );
});

test('a delete shows only after refresh, and an older snapshot still sees the doc', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car'));
  index.index(doc('2', 'blue car'));
  index.refresh();
  const before = index.acquireSnapshot();
  const liveBefore = before.views[0]!.liveDocs;

  index.delete('1');
  assert.equal(index.pendingOps, 1);
  assert.deepEqual(idsWithTerm(index.acquireSnapshot(), 'title', 'red'), ['1']);
  index.refresh();

  assert.deepEqual(idsWithTerm(index.acquireSnapshot(), 'title', 'red'), []);
  assert.equal(index.docCount, 1);
  assert.equal(index.deletedCount, 1);
  assert.deepEqual(idsWithTerm(before, 'title', 'red'), ['1']);
  assert.equal(before.numDocs, 2);
  assert.equal(before.views[0]!.liveDocs, liveBefore);
  assert.equal(liveBefore, null);
});

test('deleting an unknown id is no operation', () => {
  const index = newShardIndex();
  index.delete('nope');
  assert.equal(index.pendingOps, 0);
  assert.equal(index.refresh(), false);
});

test('re-indexing an id replaces the earlier copy at the next refresh', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car', 1));
  index.refresh();
  const old = index.acquireSnapshot();
  // A snapshot read after the current turn is pinned, as a search context pins it.
  index.pin(old);

  index.index(doc('1', 'green car', 2));
  assert.deepEqual(idsWithTerm(index.acquireSnapshot(), 'title', 'red'), ['1']);
  index.refresh();

  const now = index.acquireSnapshot();
  assert.deepEqual(idsWithTerm(now, 'title', 'red'), []);
  assert.deepEqual(idsWithTerm(now, 'title', 'green'), ['1']);
  assert.deepEqual(liveIds(now), ['1']);
  assert.equal(index.docCount, 1);
  // The first segment held only the old copy: wholly deleted, it is gone.
  assert.equal(index.segmentCount, 1);
  assert.equal(index.deletedCount, 0);
  assert.deepEqual(idsWithTerm(old, 'title', 'red'), ['1']);
  assert.deepEqual(idsWithTerm(old, 'title', 'green'), []);
});

test('re-indexing and deleting within one buffer leave only the last word', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car', 1));
  index.index(doc('1', 'green car', 2));
  index.index(doc('2', 'blue car'));
  index.delete('2');
  index.index(doc('3', 'black car'));
  assert.equal(index.pendingOps, 5);
  index.refresh();
  const snapshot = index.acquireSnapshot();
  assert.deepEqual(liveIds(snapshot), ['1', '3']);
  assert.deepEqual(idsWithTerm(snapshot, 'title', 'green'), ['1']);
  assert.deepEqual(idsWithTerm(snapshot, 'title', 'red'), []);
  assert.equal(snapshot.views[0]!.segment.maxDoc, 4);
  assert.equal(snapshot.views[0]!.numDocs, 2);
  assert.equal(index.deletedCount, 2);
  // A commit writes the segment without the copies superseded or deleted.
  index.commit();
  assert.equal(index.acquireSnapshot().views[0]!.segment.maxDoc, 2);
  assert.equal(index.deletedCount, 0);

  index.delete('1');
  index.index(doc('3', 'white car', 2));
  index.refresh();
  assert.deepEqual(liveIds(index.acquireSnapshot()), ['3']);
  assert.deepEqual(idsWithTerm(index.acquireSnapshot(), 'title', 'white'), ['3']);
});

test('a buffer whose every doc was deleted adds no segment', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car'));
  index.delete('1');
  assert.equal(index.refresh(), true);
  assert.equal(index.segmentCount, 0);
  assert.equal(index.docCount, 0);
});

test('a segment whose every doc is deleted is dropped', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car'));
  index.refresh();
  index.index(doc('2', 'blue car'));
  index.refresh();
  assert.equal(index.segmentCount, 2);
  index.delete('1');
  index.refresh();
  assert.equal(index.segmentCount, 1);
  assert.equal(index.deletedCount, 0);
  assert.deepEqual(liveIds(index.acquireSnapshot()), ['2']);
  // The id map still works for the remaining segment after the slot was freed and reused.
  index.index(doc('3', 'gray car'));
  index.refresh();
  index.delete('2');
  index.refresh();
  assert.deepEqual(liveIds(index.acquireSnapshot()), ['3']);
});

test('a document the builder refuses leaves the previous copy live', () => {
  const index = newShardIndex();
  index.index(doc('1', 'red car'));
  index.refresh();
  const odd = fieldMapping('odd', 'text', { analyzer: 'missing' });
  assert.throws(() => index.index(bufferedDoc('1', [[odd, ['x']]])), /analyzer \[missing\]/);
  assert.equal(index.pendingOps, 0);
  index.index(doc('2', 'blue car'));
  index.refresh();
  assert.deepEqual(liveIds(index.acquireSnapshot()), ['1', '2']);
  assert.deepEqual(idsWithTerm(index.acquireSnapshot(), 'title', 'blue'), ['2']);
});

test('size in bytes grows with the data', () => {
  const index = newShardIndex();
  assert.equal(index.sizeInBytes, 0);
  index.index(doc('1', 'red car'));
  index.refresh();
  const one = index.sizeInBytes;
  assert.ok(one > 0);
  index.index(doc('2', 'blue car with a long description of many words'));
  index.refresh();
  assert.ok(index.sizeInBytes > one);
});
