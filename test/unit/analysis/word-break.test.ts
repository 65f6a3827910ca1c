import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { classifyWordBreak, wordBreakTable } from '../../../shared/engine/analysis/word-break.ts';

describe('Word_Break table', () => {
  it('the precomputed BMP table agrees with per-character classification everywhere', () => {
    const table = wordBreakTable();
    const mismatches: string[] = [];
    for (let cp = 0; cp < 0x10000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (table[cp] !== classifyWordBreak(cp)) mismatches.push(cp.toString(16));
    }
    assert.deepEqual(mismatches, []);
  });
});
