import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSegment, contextOf, field, run, snapshotOf, type TestDoc } from './fixtures.ts';

/**
 * A conjunction of terms (a `match` with operator and) scores a segment whose
 * docs all have the same field length from a per-freq table, and a segment
 * with mixed lengths from each doc's norm. The same docs under the same
 * shard statistics must score to the bit whichever way their segment goes.
 */
const MAPPING = [field('body', 'text')];
const words = (n: number, w: string) => Array.from({ length: n }, () => w);
const filler = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`);

// Lengths: 40, 40, 40 (one norm) and 3, 7 (two others). Freqs of a: 1, 2, 35 (beyond the 31 the table holds), 1, 3.
const D0: TestDoc = { id: 'd0', source: { body: ['a', 'b', ...filler(38)].join(' ') } };
const D1: TestDoc = { id: 'd1', source: { body: ['a', 'a', 'b', ...filler(37)].join(' ') } };
const D2: TestDoc = { id: 'd2', source: { body: [...words(35, 'a'), ...words(5, 'b')].join(' ') } };
const D3: TestDoc = { id: 'd3', source: { body: 'a b c' } };
const D4: TestDoc = { id: 'd4', source: { body: 'a a a b c d e' } };

const AND = { query: { match: { body: { query: 'a b', operator: 'and' } } } };

function scores(groups: TestDoc[][]): { byId: Map<string, number>; total: number } {
  const snap = snapshotOf(groups.map((docs, i) => buildSegment(i + 1, docs, MAPPING)));
  const r = run(snap, contextOf(MAPPING), AND, {}, 10);
  return { byId: new Map(r.ids.map((id, i) => [id, r.scores[i]!])), total: r.total };
}

describe('term conjunction scoring', () => {
  it('scores docs of a one-length segment exactly as from their norms', () => {
    // One norm in the first segment, then the same docs spread over segments of mixed lengths.
    const oneLength = scores([[D0, D1, D2], [D3, D4]]);
    const mixed = scores([[D0, D3], [D1, D4, D2]]);
    assert.equal(oneLength.total, 5);
    assert.equal(mixed.total, 5);
    for (const id of ['d0', 'd1', 'd2', 'd3', 'd4']) assert.equal(oneLength.byId.get(id), mixed.byId.get(id), id);
    // More a's, higher score at the same length; the 3-token doc beats the 40-token one with the same freqs.
    const s = oneLength.byId;
    assert.ok(s.get('d2')! > s.get('d1')! && s.get('d1')! > s.get('d0')!);
    assert.ok(s.get('d3')! > s.get('d0')!);
  });
});
