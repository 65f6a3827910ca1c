/**
 * The `_id`s of hits rendered out of doc order are kept per thread
 * (render-hit.ts, idCache): a hit rendered again shows its own `_id`,
 * whichever segments were rendered in between, in doc order or not, and
 * however often the kept ids' buffer wrapped around; ids that need escapes
 * or are not ASCII come out as JSON.stringify writes them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { ID_CACHE_BYTES, renderHits } from '../../../shared/engine/search/render-hit.ts';
import { prng } from '../../../services/passinfo/pass-record-generator.ts';
import { buildSegment, field, snapshotOf, type TestDoc } from './fixtures.ts';

const mapping = [field('n', 'long')];

function idFor(seg: number, i: number): string {
  if (i % 50 === 0) return `q"uo\\te-${seg}-${i}`;
  if (i % 50 === 1) return `ünïcødé-${seg}-${i}-✓`;
  // Mostly long ids, so that three segments' ids are about three times the kept ids' buffer.
  return `${seg}-${i}-${'x'.repeat(300 + ((i * 37) % 600))}`;
}

test('hits rendered again at random show their own _id after the kept ids wrapped around', () => {
  const perSegment = 1500;
  const docsOf = (seg: number): TestDoc[] => Array.from({ length: perSegment }, (_, i) => ({ id: idFor(seg, i), source: { n: i } }));
  const segments = [1, 2, 3].map((s) => buildSegment(s, docsOf(s), mapping));
  const snapshot = snapshotOf(segments);
  const ids = [1, 2, 3].flatMap((s) => docsOf(s).map((d) => d.id));
  assert.ok(ids.reduce((n, id) => n + Buffer.byteLength(JSON.stringify(id)), 0) > 2 * ID_CACHE_BYTES);
  const search = parseSearchBody({}, {});
  const r = prng(3);
  for (let round = 0; round < 150; round++) {
    // A page at random (a hot set half the time), or one in doc order (kept nowhere).
    const inOrder = round % 5 === 4;
    const start = Math.floor(r() * (ids.length - 200));
    const docs = Int32Array.from({ length: 200 }, (_, k) => (inOrder ? start + k : r() < 0.5 ? Math.floor(r() * 40) * 11 : Math.floor(r() * ids.length)));
    const rendered = renderHits(snapshot, { docs, scores: new Float64Array(docs.length).fill(NaN), sortValues: Array.from(docs, () => null) }, { index: 'i', type: 'doc', search });
    const hits = JSON.parse(`[${Array.from(docs, (_, k) => rendered.bytes.toString('utf8', rendered.starts[k], rendered.starts[k + 1])).join(',')}]`) as { _id: string }[];
    rendered.release?.();
    assert.deepEqual(
      hits.map((h) => h._id),
      Array.from(docs, (d) => ids[d]),
      `round ${round}`,
    );
  }
});
