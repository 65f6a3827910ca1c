/**
 * A small deterministic corpus over three segments with two deleted docs, and
 * predicates over the raw sources: the independent answers of the query tests.
 */
import type { FieldMapping } from '../../../shared/engine/mapping/types.ts';
import { contextOf, field, segmentsOf, snapshotOf } from './fixtures.ts';
import type { TestDoc } from './fixtures.ts';

const WORDS = ['quick', 'brown', 'fox', 'lazy', 'dog', 'red', 'car'];

export const MAPPING: FieldMapping[] = [
  field('title', 'text'),
  field('title.raw', 'keyword', { parent: 'title' }),
  field('tag', 'keyword'),
  field('n', 'long'),
  field('price', 'double'),
  field('flag', 'boolean'),
  field('date', 'date'),
  field('plate', 'text', { analyzer: 'plate_ngram' }),
  field('unindexed', 'keyword', { index: false }),
];

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

export const DOCS: TestDoc[] = Array.from({ length: 40 }, (_, i) => {
  const src: Record<string, unknown> = {
    title: `${WORDS[i % 7]} ${WORDS[(i * 3 + 1) % 7]}${i % 5 === 0 ? ' fox fox' : ''}`,
    price: i * 1.5,
    flag: i % 2 === 0,
    date: `2020-01-${pad((i % 28) + 1)}T${pad(i % 24)}:00:00Z`,
    plate: `A${String(10000 + i * 37).slice(1)}B`,
  };
  if (i % 10 !== 9) src.tag = i % 3 === 0 ? ['a', 'b'] : i % 3 === 1 ? 'b' : 'c';
  if (i % 11 !== 10) src.n = i;
  return { id: String(i), source: src };
});

export const DELETED = ['5', '17'];
export const LIVE_DOCS = DOCS.filter((d) => !DELETED.includes(d.id));

export const SEGMENTS = segmentsOf(DOCS, MAPPING, 3);
export const SNAPSHOT = snapshotOf(SEGMENTS, DELETED);
export const ctx = () => contextOf(MAPPING);

export function tagsOf(src: Record<string, unknown>): string[] {
  const t = src.tag;
  return t === undefined ? [] : Array.isArray(t) ? (t as string[]) : [t as string];
}
