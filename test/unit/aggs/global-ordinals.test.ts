import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildGlobalOrdinals } from '../../../shared/engine/aggs/global-ordinals.ts';
import { FrontCodedDictionary, FrontCodedWriter, MemorySink } from '../../../shared/engine/codec/front-coded.ts';
import { PackedStrings } from '../../../shared/engine/segment/packed-strings.ts';
import type { TermDictionary } from '../../../shared/engine/segment/types.ts';
import { rng } from './fixtures.ts';

const byJs = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function frontCoded(sorted: readonly string[]): FrontCodedDictionary {
  const sink = new MemorySink();
  const w = new FrontCodedWriter(sink, false);
  for (const t of sorted) w.add(t);
  const layout = w.finish();
  return new FrontCodedDictionary(sink.buffer.view(), layout);
}

/** Segment dictionaries of random plates, overlapping; some segments lack the field (null), one is empty. */
function segments(seed: number): { dicts: (TermDictionary | null)[]; lists: (string[] | null)[] } {
  const r = rng(seed);
  const lists: (string[] | null)[] = [];
  for (let s = 0; s < 7; s++) {
    if (s === 2) {
      lists.push(null);
      continue;
    }
    const n = s === 4 ? 0 : Math.floor(r() * (s === 0 ? 3000 : 600));
    const set = new Set<string>();
    for (let i = 0; i < n; i++) set.add(`京${String.fromCharCode(65 + Math.floor(r() * 26))}${Math.floor(r() * 2000)}`);
    lists.push([...set].sort(byJs));
  }
  const dicts = lists.map((l, i) => (l === null ? null : i % 2 === 0 ? frontCoded(l) : PackedStrings.of(l)));
  return { dicts, lists };
}

describe('global ordinals (segment ordinal maps, terms read from the segments)', () => {
  it('number the union of the segment dictionaries in order, map every segment term to its value and read each value back', () => {
    for (const missing of [null, '京A5', '\u0000', '\uffff']) {
      const { dicts, lists } = segments(11);
      const g = buildGlobalOrdinals(dicts, missing, 'k');
      const union = [...new Set([...lists.flatMap((l) => l ?? []), ...(missing === null ? [] : [missing])])].sort(byJs);
      assert.equal(g.length, union.length);
      for (let o = 0; o < union.length; o++) assert.equal(g.term(o), union[o]);
      // backwards and at random: no lookup depends on the one before
      for (let o = union.length - 1; o >= 0; o -= 13) assert.equal(g.term(o), union[o]);
      const index = new Map(union.map((t, i) => [t, i]));
      lists.forEach((l, s) => {
        const map = g.segmentToGlobal[s];
        if (l === null) return assert.equal(map, null);
        assert.equal(map!.length, l.length);
        l.forEach((t, i) => assert.equal(map!.get(i), index.get(t)));
      });
      assert.equal(g.missingOrd, missing === null ? -1 : index.get(missing));
      assert.throws(() => g.term(union.length), RangeError);
      assert.throws(() => g.term(-1), RangeError);
    }
  });

  it('read every value right, again and again, past the number of values kept read (40,000 values in 3 segments)', () => {
    const lists: string[][] = [[], [], []];
    for (let i = 0; i < 40_000; i++) lists[i % 3 === 0 ? 0 : i % 7 === 0 ? 1 : 2]!.push(`p${String(i).padStart(6, '0')}`);
    lists[1]!.push(...lists[0]!.slice(0, 500));
    const dicts = lists.map((l, i) => (i === 0 ? frontCoded(l.sort(byJs)) : PackedStrings.of(l.sort(byJs))));
    const g = buildGlobalOrdinals(dicts, null, 'k');
    assert.equal(g.length, 40_000);
    for (let pass = 0; pass < 2; pass++) for (let o = 0; o < g.length; o += pass + 1) assert.equal(g.term(o), `p${String(o).padStart(6, '0')}`);
    for (let o = g.length - 1; o >= 0; o -= 3) assert.equal(g.term(o), `p${String(o).padStart(6, '0')}`);
  });

  it('keep each segment map packed: under 12 bits a segment term, where int32s took 32', () => {
    const { dicts } = segments(11);
    const g = buildGlobalOrdinals(dicts, null, 'k');
    let terms = 0;
    let bytes = 0;
    for (const m of g.segmentToGlobal) {
      if (m === null) continue;
      terms += m.length;
      bytes += m.byteLength;
    }
    assert.ok(terms > 2000, `${terms} segment terms`);
    assert.ok((bytes * 8) / terms < 12, `${(bytes * 8) / terms} bits a segment term`);
  });

  it('with one dictionary number its terms as it does', () => {
    const { dicts, lists } = segments(5);
    const g = buildGlobalOrdinals([null, dicts[0]!, PackedStrings.EMPTY], null, 'k');
    assert.equal(g.length, lists[0]!.length);
    for (let o = 0; o < g.length; o++) assert.equal(g.term(o), lists[0]![o]);
    assert.equal(g.segmentToGlobal[0], null);
    assert.equal(g.segmentToGlobal[2]!.length, 0);
  });

  it('take for include/exclude exactly the values the acceptor takes, testing each value once', () => {
    const { dicts, lists } = segments(23);
    const g = buildGlobalOrdinals(dicts, 'zz', 'k');
    const union = [...new Set([...lists.flatMap((l) => l ?? []), 'zz'])].sort(byJs);
    const seen = new Map<string, number>();
    const accept = (t: string) => {
      seen.set(t, (seen.get(t) ?? 0) + 1);
      return t.endsWith('7') || t === 'zz';
    };
    const out = g.acceptedBy(accept);
    assert.deepEqual([...out], union.map((t) => (t.endsWith('7') || t === 'zz' ? 1 : 0)));
    assert.equal(seen.size, union.length);
    for (const n of seen.values()) assert.equal(n, 1);
  });
});
