/**
 * The ids query over segments whose `_id` dictionaries it reads through in
 * order (many ids) or looks up id by id (few): the same hits either way, as
 * an independent answer computes them (issue 11, item 6: 10,000 ids looked
 * up one by one held a shard worker 150-550 ms).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSegment, field, run, snapshotOf, contextOf } from './fixtures.ts';
import { idsBits } from '../../../shared/engine/search/doc-values-leaves.ts';
import { ID_FIELD, type Segment, type TermDictionary } from '../../../shared/engine/segment/types.ts';

const mapping = [field('k', 'keyword')];
/** Ids of several lengths and scripts, so that JS `<` order is not numeric order. */
const idOf = (i: number): string => (i % 5 === 0 ? `é${i}` : i % 7 === 0 ? `\u{1F600}${i}` : String(i * 13));

function segments(): { segs: Segment[]; all: string[] } {
  const all: string[] = [];
  const segs: Segment[] = [];
  for (let s = 0; s < 3; s++) {
    const docs = Array.from({ length: 700 }, (_, i) => {
      const id = idOf(s * 700 + i);
      all.push(id);
      return { id, source: { k: `key-${i}` } };
    });
    segs.push(buildSegment(s + 1, docs, mapping));
  }
  return { segs, all };
}

const { segs, all } = segments();
const snapshot = snapshotOf(segs);
const ctx = contextOf(mapping);

function hits(values: readonly string[]): string[] {
  return run(snapshot, ctx, { query: { ids: { values } } }, {}, 10_000).ids.sort();
}

function expected(values: readonly string[]): string[] {
  const wanted = new Set(values);
  return all.filter((id) => wanted.has(id)).sort();
}

describe('ids query', () => {
  it('many ids (a dictionary read through): every id present, once, whatever the order and repeats', () => {
    // Every third id, unsorted, repeated, with ids no segment holds (before, between and after the terms).
    const values: string[] = [];
    for (let i = 2100 - 1; i >= 0; i -= 3) values.push(idOf(i), `${idOf(i)}x`);
    values.push(...values.slice(0, 50), '', '0', '\u{10FFFF}', 'zzz');
    const got = hits(values);
    assert.equal(got.length, 700);
    assert.deepEqual(got, expected(values));
  });

  it('few ids (looked up one by one): the same hits', () => {
    const values = [idOf(3), idOf(1400), idOf(2099), idOf(35), 'missing', idOf(3)];
    assert.deepEqual(hits(values), expected(values));
    assert.deepEqual(hits([idOf(700)]), [idOf(700)]);
    assert.deepEqual(hits(['nope']), []);
  });

  it('reads a segment dictionary in order, not one lookup an id, when the ids are many', () => {
    const seg = segs[0]!;
    const inv = seg.inverted.get(ID_FIELD)!;
    let finds = 0;
    const terms = inv.terms;
    const counting: TermDictionary = new Proxy(terms, {
      get(target, key) {
        if (key === 'find') {
          return (s: string) => {
            finds++;
            return target.find(s);
          };
        }
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const counted: Segment = new Proxy(seg, {
      get(target, key) {
        if (key !== 'inverted') return Reflect.get(target, key, target) as unknown;
        const map = new Map(target.inverted);
        map.set(ID_FIELD, { ...inv, terms: counting, postings: inv.postings.bind(inv) });
        return map;
      },
    });
    const values = all.slice(0, 700).filter((_, i) => i % 2 === 0);
    const bits = idsBits({ kind: 'ids', ids: values, boost: 1 }, counted);
    let set = 0;
    for (const w of bits) for (let x = w; x !== 0; x &= x - 1) set++;
    assert.equal(set, 350);
    assert.equal(finds, 0);
  });
});
