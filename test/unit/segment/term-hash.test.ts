import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sortTerms } from '../../../shared/engine/segment/term-dictionary.ts';
import { TermHash } from '../../../shared/engine/segment/term-hash.ts';
import { KeywordFieldWriter } from '../../../shared/engine/segment/keyword-field-writer.ts';

function jsSorted(terms: readonly string[]): string[] {
  return [...new Set(terms)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function hashOf(terms: readonly string[]): TermHash {
  const hash = new TermHash();
  for (const term of terms) hash.add(term);
  return hash;
}

/** Deterministic pseudo-random terms over an alphabet. */
function randomTerms(count: number, alphabet: string, maxLength: number): string[] {
  let seed = 12345;
  const next = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = Math.floor(next() * (maxLength + 1));
    let term = '';
    for (let k = 0; k < length; k++) term += alphabet[Math.floor(next() * alphabet.length)];
    out.push(term);
  }
  return out;
}

test('slots number distinct terms by first appearance; find answers -1 for unknown terms', () => {
  const hash = hashOf(['b', 'a', 'b', '', 'c']);
  assert.equal(hash.size, 4);
  assert.equal(hash.find('b'), 0);
  assert.equal(hash.find('a'), 1);
  assert.equal(hash.find(''), 2);
  assert.equal(hash.find('c'), 3);
  assert.equal(hash.find('d'), -1);
  assert.equal(hash.add('a'), 1);
});

test('thousands of terms survive rehashing', () => {
  const terms = randomTerms(20000, 'abcdefghij', 6);
  const hash = hashOf(terms);
  const distinct = jsSorted(terms);
  assert.equal(hash.size, distinct.length);
  for (const term of distinct) assert.ok(hash.find(term) >= 0, term);
  assert.equal(hash.find('abcdefghijk'), -1);
});

test('sorted order is JS < order: prefixes first, by UTF-16 code unit', () => {
  const terms = ['京A1', 'b', 'B', '', 'ab', 'a', 'abc', '😀', '\uffff', 'ａ', 'a\u0000', '\ud800'];
  const sorted = sortTerms(hashOf(terms)).terms.toArray();
  assert.deepEqual(sorted, jsSorted(terms));
});

test('sorted order matches JS for random terms over small and large alphabets', () => {
  const small = randomTerms(5000, '0123456789ABC京沪', 9);
  assert.deepEqual(sortTerms(hashOf(small)).terms.toArray(), jsSorted(small));
  let wide = '';
  for (let c = 0; c < 3000; c++) wide += String.fromCharCode(0x4e00 + c * 7);
  const large = randomTerms(5000, wide, 5);
  assert.deepEqual(sortTerms(hashOf(large)).terms.toArray(), jsSorted(large));
});

test('terms sharing a long prefix sort correctly past the encoded code units', () => {
  const prefix = 'x'.repeat(300);
  const terms = ['b', 'a'];
  for (let i = 0; i < 40; i++) terms.push(prefix + String(39 - i), prefix + String(i) + 'z');
  terms.push(prefix);
  assert.deepEqual(sortTerms(hashOf(terms)).terms.toArray(), jsSorted(terms));
});

test('the sorted dictionary finds each term at its index', () => {
  const { terms, slotToTerm } = sortTerms(hashOf(['pear', 'apple', 'fig']));
  assert.deepEqual(terms.toArray(), ['apple', 'fig', 'pear']);
  assert.equal(terms.length, 3);
  assert.equal(terms.find('fig'), 1);
  assert.equal(terms.find('kiwi'), -1);
  assert.deepEqual([...slotToTerm], [2, 0, 1]);
});

test('300,000 terms sort in steps (runs of 131,072 merged pairwise) to JS < order', () => {
  // Shared prefixes past the encoded code units, and a large alphabet: every path of the sort.
  const terms = randomTerms(300_000, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789é😀', 14).map((t, i) => (i % 3 === 0 ? `prefix-shared-long-${t}` : t));
  const hash = hashOf(terms);
  const steps = hash.sortedSlotsInSteps();
  let yields = 0;
  let r = steps.next();
  while (r.done !== true) {
    yields++;
    r = steps.next();
  }
  const order = r.value;
  const expected = jsSorted(terms);
  assert.equal(order.length, expected.length);
  const packed = hash.packedTerms(order).toArray();
  assert.deepEqual(packed, expected);
  // Before: one native sort of every key, no step. Here (243,940 distinct): encoding, sorting 2 runs, merging them and reading the slots yield.
  assert.ok(yields >= 5, `${yields} steps for ${expected.length} keys`);
});

test('a keyword field of 100,000 values builds in steps within the field (its terms sort in steps), to the same columns', () => {
  const writer = new KeywordFieldWriter(true, true);
  for (let d = 0; d < 100_000; d++) {
    writer.startDoc(d);
    writer.addValue(`key-${(d * 7919) % 100_000}`);
    writer.finishDoc();
  }
  let yields = 0;
  const steps = writer.buildSteps(100_000);
  let r = steps.next();
  while (r.done !== true) {
    yields++;
    r = steps.next();
  }
  assert.ok(yields >= 2, `${yields} steps`);
  const dict = r.value.docValues!.dict;
  assert.deepEqual([0, 1, 2].map((i) => dict.get(i)), ['key-0', 'key-1', 'key-10']);
  assert.equal(dict.length, 100_000);
  // Doc 1 holds key-7919: its ordinal names it.
  assert.equal(dict.get((r.value.docValues as { ords: Int32Array }).ords[1]!), 'key-7919');
});
