/**
 * A `_bulk`'s work on the HTTP thread gives the event loop a turn every
 * INDEXING_SLICE_MS (3 ms), not every SLICE_MS (10 ms): that thread reads
 * every other request between two slices (issue 11, item 6). Counted, not
 * timed: the slices are measured on the wall clock, so however loaded the
 * machine, the turns taken while the body is read are about its reading's
 * wall time over the slice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBulk } from '../../../services/node/rest/routes/bulk.ts';
import { SLICE_MS } from '../../../shared/steps/time-slice.ts';

function body(items: number): Buffer {
  let s = '';
  for (let i = 0; i < items; i++) s += `{"index":{"_index":"a","_type":"_doc","_id":"${i}","routing":"r${i % 7}"}}\n{"k":"key-${i}","n":${i}}\n`;
  return Buffer.from(s);
}

test('parseBulk of a large body takes a turn of the event loop every INDEXING_SLICE_MS', async () => {
  const b = body(200_000);
  // Warm: the first reading compiles the code.
  await parseBulk(body(2_000), {}, {});
  let turns = 0;
  let ticking = true;
  const tick = (): void => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  const items = await parseBulk(b, {}, {});
  const elapsed = performance.now() - t0;
  ticking = false;
  assert.equal(items.count, 200_000);
  // Long enough to tell 3 ms slices from 10 ms ones.
  assert.ok(elapsed > 8 * SLICE_MS, `the reading took ${elapsed.toFixed(0)} ms`);
  // A turn at least every 6 ms: about elapsed / 3 turns with 3 ms slices (84 in 296 ms), elapsed / 10 with 10 ms ones (25 in 287 ms).
  assert.ok(turns >= elapsed / 6, `${turns} turns in ${elapsed.toFixed(0)} ms`);
});
