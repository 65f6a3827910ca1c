/**
 * Nested documents through a shard copy's index: searches see roots only,
 * and every path that writes or merges segments (commit of in-memory
 * segments, merges, deletes pending across them, reopening) keeps a root
 * and its nested docs together.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasBit } from '../../../shared/engine/segment/bitset.ts';
import { NESTED_PATH_FIELD, nestedDocs } from '../../../shared/engine/segment/nested-blocks.ts';
import { ShardIndex } from '../../../shared/engine/segment/shard-index.ts';
import type { BufferedDoc } from '../../../shared/engine/segment/segment-builder.ts';
import { idOf, type SearcherSnapshot } from '../../../shared/engine/segment/types.ts';
import { analyzers, fieldMapping, newShardIndex, parsed } from './fixtures.ts';
import { liveIds } from './segment-views.ts';

const color = fieldMapping('color', 'keyword');
const camera = fieldMapping('passes.camera', 'keyword');

let seqNo = 0;
/** A document with one nested `passes` doc per camera. */
function doc(id: string, cameras: readonly string[]): BufferedDoc {
  return {
    id,
    version: 1,
    seqNo: seqNo++,
    routing: null,
    source: Buffer.from(JSON.stringify({ color: id, passes: cameras.map((c) => ({ camera: c })) })),
    parsed: { ...parsed([[color, [id]]]), nested: cameras.map((c) => ({ path: 'passes', fields: [{ mapping: camera, values: [c] }] })) },
  };
}

/** Per live root: the cameras of its block (the nested docs right before it), as the segments hold them. */
function blocks(snapshot: SearcherSnapshot): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of snapshot.views) {
    const seg = v.segment;
    const nested = nestedDocs(seg);
    const dv = seg.docValues.get('passes.camera');
    let pending: string[] = [];
    for (let d = 0; d < seg.maxDoc; d++) {
      if (nested !== null && hasBit(nested, d)) {
        if (dv?.kind === 'sorted' && dv.starts === null && dv.ords[d]! >= 0) pending.push(dv.dict.get(dv.ords[d]!));
        continue;
      }
      if (v.liveDocs === null || hasBit(v.liveDocs, d)) out.set(idOf(seg, d), pending);
      pending = [];
    }
  }
  return new Map([...out].sort());
}

test('searches see roots; nested docs sit before their root with the hidden path field', () => {
  const index = newShardIndex();
  index.index(doc('a', ['north', 'east']));
  index.index(doc('b', []));
  index.index(doc('c', ['west']));
  index.refresh();
  const snap = index.acquireSnapshot();
  assert.deepEqual(liveIds(snap), ['a', 'b', 'c']);
  assert.equal(snap.numDocs, 3);
  assert.equal(snap.maxDoc, 6);
  assert.ok(snap.views[0]!.segment.inverted.has(NESTED_PATH_FIELD));
  assert.deepEqual([...blocks(snap)], [['a', ['north', 'east']], ['b', []], ['c', ['west']]]);
  // Stats count Lucene documents (Elasticsearch's docs.count).
  assert.equal(index.docCount, 6);
  assert.equal(index.deletedCount, 0);
});

test('deletes and replacements take the whole block, through commit, merges and a reopen', () => {
  const index = newShardIndex();
  for (let i = 0; i < 6; i++) index.index(doc(`d${i}`, Array.from({ length: i % 3 }, (_, k) => `cam${i}-${k}`)));
  index.refresh();
  index.commit();
  index.index(doc('d1', ['replaced']));
  index.delete('d2');
  index.refresh();
  // A delete pending while the in-memory segment is written by the commit.
  index.index(doc('e0', ['x', 'y']));
  index.refresh();
  index.delete('e0');
  index.delete('d4');
  index.commit();
  index.refresh();
  const expected = new Map([
    ['d0', []],
    ['d1', ['replaced']],
    ['d3', []],
    ['d5', ['cam5-0', 'cam5-1']],
  ]);
  assert.deepEqual(blocks(index.acquireSnapshot()), expected);
  assert.equal(index.acquireSnapshot().numDocs, 4);
  assert.equal(index.docCount, 4 + 3);
  assert.equal(index.forceMerge(1, false), true);
  assert.equal(index.segmentCount, 1);
  assert.deepEqual(blocks(index.acquireSnapshot()), expected);
  assert.equal(index.deletedCount, 0);
  assert.equal(index.acquireSnapshot().maxDoc, 7);
  const dir = index.dir;
  const after = index.commit();
  index.close();
  const reopened = ShardIndex.open(dir, analyzers, after);
  try {
    assert.deepEqual(blocks(reopened.acquireSnapshot()), expected);
    assert.equal(reopened.acquireSnapshot().numDocs, 4);
    reopened.delete('d5');
    reopened.refresh();
    assert.deepEqual([...blocks(reopened.acquireSnapshot()).keys()], ['d0', 'd1', 'd3']);
    assert.equal(reopened.docCount, 3 + 1);
  } finally {
    reopened.close();
  }
});
