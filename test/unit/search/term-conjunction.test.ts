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

  it('scores a term the query repeats once for each time it names it', () => {
    // An n-gram fragment names a repeated character twice ("c00": c, 0, 0, c0, 00, c00). Here c is
    // the rarest term and leads; b, named twice, follows it twice. r1 has no b: the first b drops
    // it, and the b freqs of the others (1, 3, 2) must stay with their docs for the second b.
    const docs: TestDoc[] = [
      { id: 'r0', source: { body: 'c b x' } },
      { id: 'r1', source: { body: 'c x y' } },
      { id: 'r2', source: { body: 'c b b b' } },
      { id: 'r3', source: { body: 'b y' } },
      { id: 'r4', source: { body: 'b b z' } },
      { id: 'r5', source: { body: 'b q' } },
      { id: 'r6', source: { body: 'c b b' } },
    ];
    // Alone, b is in most docs and keeps a bitset (the fragment's single characters); among 300
    // docs without it, it is probed from its postings.
    const others: TestDoc[] = Array.from({ length: 300 }, (_, i) => ({ id: `f${i}`, source: { body: 'x y' } }));
    for (const [repeats, segment] of [[2, docs], [3, docs], [2, [...docs, ...others]], [3, [...docs, ...others]]] as const) {
      const snap = snapshotOf([buildSegment(1, segment, MAPPING)]);
      const named = run(snap, contextOf(MAPPING), { query: { match: { body: { query: ['c', ...words(repeats, 'b')].join(' '), operator: 'and' } } } }, {}, 10);
      // The same clauses once each, b's weighted by how often it was named: s + s is 2 * s exactly.
      const boosted = run(snap, contextOf(MAPPING), { query: { bool: { must: [{ match: { body: 'c' } }, { match: { body: { query: 'b', boost: repeats } } }] } } }, {}, 10);
      assert.deepEqual([...named.ids].sort(), ['r0', 'r2', 'r6'], `${repeats} b, ${segment.length} docs`);
      const expected = new Map(boosted.ids.map((id, i) => [id, boosted.scores[i]!]));
      named.ids.forEach((id, i) => {
        const sc = named.scores[i]!;
        assert.ok(Math.abs(sc - expected.get(id)!) <= 1e-6 * sc, `${repeats} b, ${segment.length} docs, ${id}: ${sc} against ${expected.get(id)}`);
      });
    }
  });
});
