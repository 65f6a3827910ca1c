/**
 * TopDocsCollector.sortedSlots: the slots of a full queue come out in sort
 * order, ties broken by doc ascending, whether the collector sorts one
 * numeric key its own way or several keys with the general comparison, and
 * whether the candidates went through the heap or were gathered unordered
 * (TopDocsCollector.gather), or both.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TopDocsCollector } from '../../../shared/engine/search/top-docs.ts';
import type { ResolvedSortField } from '../../../shared/engine/search/sort-keys.ts';
import { prng } from '../../../services/passinfo/pass-record-generator.ts';

/** `gather`: how the candidates go in: through the heap (offerStaged), gathered, or alternately in runs of 100 (segments collected either way). */
function collect(fields: ResolvedSortField[], cap: number, rows: { keys: number[]; doc: number }[], gather: 'heap' | 'gather' | 'both' = 'heap'): number[] {
  const c = new TopDocsCollector(fields, cap);
  for (const [i, row] of rows.entries()) {
    if (gather === 'gather' || (gather === 'both' && Math.floor(i / 100) % 2 === 1)) {
      c.gather(row.keys[0]!, row.doc);
      continue;
    }
    row.keys.forEach((k, i) => c.setNum(c.stage, i, k));
    c.docs[c.stage] = row.doc;
    c.scores[c.stage] = 0;
    c.offerStaged();
  }
  return c.sortedSlots().map((s) => c.docs[s]!);
}

for (const reverse of [false, true]) {
  test(`one numeric key ${reverse ? 'descending' : 'ascending'}: the top docs in key order, ties by doc`, () => {
    const r = prng(reverse ? 3 : 4);
    // Few distinct keys: many ties, which only the doc orders; docs offered in shuffled order.
    const rows = Array.from({ length: 900 }, (_, i) => ({ keys: [Math.floor(r() * 40) * 1000 + 1.7e12], doc: i * 3 }));
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [rows[i], rows[j]] = [rows[j]!, rows[i]!];
    }
    const expected = rows
      .slice()
      .sort((a, b) => (a.keys[0] !== b.keys[0] ? (a.keys[0]! < b.keys[0]! ? -1 : 1) * (reverse ? -1 : 1) : a.doc - b.doc))
      .slice(0, 500)
      .map((x) => x.doc);
    assert.deepEqual(collect([{ kind: 'numeric', reverse } as ResolvedSortField], 500, rows), expected);
    // The same order through the general comparison (a second key that never decides).
    const two = rows.map((x) => ({ keys: [x.keys[0]!, 0], doc: x.doc }));
    assert.deepEqual(collect([{ kind: 'numeric', reverse } as ResolvedSortField, { kind: 'numeric', reverse: false } as ResolvedSortField], 500, two), expected);
  });
}

// Integer keys sort as packed doubles (TopDocsCollector.packedOrder); the rest, and ranges too wide to pack, by the comparator.
const keyKinds: [string, (r: () => number) => number][] = [
  ['negative and positive integers with -0', (r) => (r() < 0.1 ? -0 : Math.floor(r() * 60) - 30)],
  ['a range near 2^53 / 1024 (still packed)', (r) => (r() < 0.5 ? 0 : 2 ** 42) + Math.floor(r() * 5)],
  ['a range past 2^53 (the comparator)', (r) => (r() < 0.5 ? -(2 ** 52) : 2 ** 52) + Math.floor(r() * 5)],
  ['fractions (the comparator)', (r) => Math.floor(r() * 30) / 4],
  ['infinities among integers (missing values)', (r) => (r() < 0.1 ? Infinity : r() < 0.1 ? -Infinity : Math.floor(r() * 30))],
];
for (const [name, key] of keyKinds) {
  for (const reverse of [false, true]) {
    test(`one numeric key, ${name}, ${reverse ? 'descending' : 'ascending'}: key order, ties by doc`, () => {
      const r = prng(name.length + (reverse ? 1 : 0));
      const rows = Array.from({ length: 1500 }, (_, i) => ({ keys: [key(r)], doc: (i * 7919) % 1500 }));
      const expected = rows
        .slice()
        .sort((a, b) => (a.keys[0] !== b.keys[0] ? (a.keys[0]! < b.keys[0]! ? -1 : 1) * (reverse ? -1 : 1) : a.doc - b.doc))
        .slice(0, 1000)
        .map((x) => x.doc);
      const field = [{ kind: 'numeric', reverse } as ResolvedSortField];
      assert.deepEqual(collect(field, 1000, rows), expected);
      assert.deepEqual(collect(field, 1000, rows, 'gather'), expected, 'gathered');
      assert.deepEqual(collect(field, 1000, rows, 'both'), expected, 'through the heap and gathered');
      // Gathered past twice the page: cut to the best 200 several times on the way.
      assert.deepEqual(collect(field, 200, rows, 'gather'), expected.slice(0, 200), 'gathered, cut on the way');
      assert.deepEqual(collect(field, 200, rows, 'both'), expected.slice(0, 200), 'both, cut on the way');
    });
  }
}

test('two collectors gathering at once (a query phase inside another) keep their own candidates', () => {
  const field = [{ kind: 'numeric', reverse: false } as ResolvedSortField];
  const a = new TopDocsCollector(field, 150);
  const b = new TopDocsCollector(field, 150);
  const r = prng(31);
  const rows = Array.from({ length: 1000 }, (_, i) => ({ a: Math.floor(r() * 500), b: Math.floor(r() * 500), doc: i }));
  for (const row of rows) {
    a.gather(row.a, row.doc);
    b.gather(row.b, row.doc);
  }
  const expected = (key: 'a' | 'b') => rows.slice().sort((x, y) => x[key] - y[key] || x.doc - y.doc).slice(0, 150).map((x) => x.doc);
  assert.deepEqual(a.sortedSlots().map((s) => a.docs[s]!), expected('a'));
  assert.deepEqual(b.sortedSlots().map((s) => b.docs[s]!), expected('b'));
  // And a third, after both gave their arrays back.
  const c = new TopDocsCollector(field, 150);
  for (const row of rows) c.gather(row.b, row.doc);
  assert.deepEqual(c.sortedSlots().map((s) => c.docs[s]!), expected('b'));
});
