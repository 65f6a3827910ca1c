import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byte4ToInt } from '../../../shared/engine/search/bm25.ts';
import type { Query } from '../../../shared/engine/search/query.ts';
import { executeQueryPhase } from '../../../shared/engine/search/query-phase.ts';
import type { ParsedSearch } from '../../../shared/engine/search/types.ts';
import { buildSegment, contextOf, field, idOf, snapshotOf } from './fixtures.ts';

/**
 * A tiny corpus whose BM25 scores are computed here by hand with Lucene 7.7's
 * formula (ln idf, (k1+1) in the numerator, field length from the norm byte).
 */
const MAPPING = [field('body', 'text'), field('tag', 'keyword')];
const LONG_DOC = Array.from({ length: 42 }, (_, i) => `w${i}`).join(' ');
const SEG_A = buildSegment(1, [
  { id: 'd0', source: { body: 'a b c', tag: 'x' } },
  { id: 'd1', source: { body: 'a a d', tag: 'y' } },
], MAPPING);
const SEG_B = buildSegment(2, [
  { id: 'd2', source: { body: 'b', tag: 'x' } },
  { id: 'd3', source: { body: `a ${LONG_DOC}`, tag: 'x' } },
  { id: 'd4', source: { body: 'c c c', tag: 'z' } },
], MAPPING);

function searchOf(query: Query, extra: Partial<ParsedSearch> = {}): ParsedSearch {
  return {
    query: { toQuery: () => query, toString: () => JSON.stringify(query) },
    postFilter: null,
    from: 0,
    size: 10,
    sort: null,
    trackScores: false,
    searchAfter: null,
    terminateAfter: 0,
    minScore: null,
    version: false,
    explain: false,
    termVectors: null,
    highlight: null,
    scriptFieldSpecs: [],
    collapse: null,
    source: { fetch: true, includes: [], excludes: [] },
    storedFields: null,
    docvalueFields: [],
    aggregations: null,
    timeout: null,
    indicesBoost: [],
    rescoreWindow: null,
    scriptFields: [],
    ...extra,
  };
}

/** Lucene 7.7 BM25 for one term in one doc, in doubles (the implementation rounds to floats). */
function expected(freq: number, dl: number, docFreq: number, docCount: number, avgdl: number, boost = 1): number {
  const k1 = 1.2;
  const b = 0.75;
  const idf = Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
  return (boost * idf * (k1 + 1) * freq) / (freq + k1 * (1 - b + (b * dl) / avgdl));
}

function scoresById(snapshot: ReturnType<typeof snapshotOf>, q: Query, extra: Partial<ParsedSearch> = {}): Map<string, number> {
  const r = executeQueryPhase(snapshot, searchOf(q, extra), contextOf(MAPPING), { size: 10 });
  return new Map(Array.from(r.docs, (d, i) => [idOf(snapshot, d), r.scores[i]!]));
}

function close(actual: number | undefined, want: number): void {
  assert.ok(actual !== undefined, 'doc not found');
  assert.ok(Math.abs(actual - want) <= want * 1e-6, `${actual} != ${want}`);
}

// Field lengths 3, 3, 1, 43, 3: sum 53 over 5 docs. 43 tokens encode to a norm byte that decodes to 42.
const AVGDL = 53 / 5;

describe('BM25 as Lucene 7.7 computes it', () => {
  it('decodes norm bytes with SmallFloat.byte4ToInt (lengths above 23 lose precision)', () => {
    assert.equal(byte4ToInt(0), 0);
    assert.equal(byte4ToInt(23), 23);
    assert.equal(byte4ToInt(24), 24);
    assert.equal(byte4ToInt(40), 40);
    assert.equal(byte4ToInt(41), 42);
    assert.equal(byte4ToInt(255), 2013265944);
  });

  it('gives the score Elasticsearch 6.8 shows for a one-doc index to the bit (0.2876821)', () => {
    const snap = snapshotOf([buildSegment(1, [{ id: 'x', source: { body: 'quick' } }], MAPPING)]);
    const s = scoresById(snap, { kind: 'term', field: 'body', term: 'quick', boost: 1 });
    assert.equal(s.get('x'), Math.fround(0.2876821));
  });

  it('scores a term with shard-wide statistics summed over segments', () => {
    const s = scoresById(snapshotOf([SEG_A, SEG_B]), { kind: 'term', field: 'body', term: 'a', boost: 1 });
    assert.equal(s.size, 3);
    close(s.get('d0'), expected(1, 3, 3, 5, AVGDL));
    close(s.get('d1'), expected(2, 3, 3, 5, AVGDL));
    close(s.get('d3'), expected(1, 42, 3, 5, AVGDL));
  });

  it('keeps deleted docs in docFreq and docCount, as Lucene does until a merge', () => {
    const s = scoresById(snapshotOf([SEG_A, SEG_B], ['d1']), { kind: 'term', field: 'body', term: 'a', boost: 1 });
    assert.deepEqual([...s.keys()].sort(), ['d0', 'd3']);
    close(s.get('d0'), expected(1, 3, 3, 5, AVGDL));
  });

  it('multiplies the boost into the weight', () => {
    const s = scoresById(snapshotOf([SEG_A, SEG_B]), { kind: 'term', field: 'body', term: 'c', boost: 2.5 });
    close(s.get('d4'), expected(3, 3, 2, 5, AVGDL, 2.5));
  });

  it('sums the scoring clauses of a bool and ignores filter and must_not', () => {
    const a: Query = { kind: 'term', field: 'body', term: 'a', boost: 1 };
    const b: Query = { kind: 'term', field: 'body', term: 'b', boost: 1 };
    const q: Query = {
      kind: 'bool',
      must: [],
      filter: [{ kind: 'term', field: 'tag', term: 'x', boost: 1 }],
      should: [a, b],
      mustNot: [{ kind: 'term', field: 'body', term: 'c', boost: 1 }],
      minimumShouldMatch: 1,
      boost: 1,
    };
    const s = scoresById(snapshotOf([SEG_A, SEG_B]), q);
    // d0 has c (excluded), d1 has tag y, d4 has no a/b.
    assert.deepEqual([...s.keys()].sort(), ['d2', 'd3']);
    close(s.get('d2'), expected(1, 1, 2, 5, AVGDL));
    close(s.get('d3'), expected(1, 42, 3, 5, AVGDL));
  });

  it('scores a keyword term (no norms, docs only) as idf × (k1+1)/(1+k1) = idf', () => {
    const s = scoresById(snapshotOf([SEG_A, SEG_B]), { kind: 'term', field: 'tag', term: 'x', boost: 1 });
    const idf = Math.log(1 + (5 - 3 + 0.5) / (3 + 0.5));
    close(s.get('d0'), idf);
    close(s.get('d3'), idf);
  });

  it('gives a filter-only bool a score of 0 and constant_score its boost', () => {
    const filter: Query = { kind: 'term', field: 'tag', term: 'x', boost: 1 };
    const onlyFilter = scoresById(snapshotOf([SEG_A, SEG_B]), { kind: 'bool', must: [], filter: [filter], should: [], mustNot: [], minimumShouldMatch: 0, boost: 1 });
    assert.deepEqual([...onlyFilter.values()], [0, 0, 0]);
    const constant = scoresById(snapshotOf([SEG_A, SEG_B]), { kind: 'constant_score', filter, boost: 3 });
    assert.deepEqual([...constant.values()], [3, 3, 3]);
    const all = scoresById(snapshotOf([SEG_A, SEG_B]), { kind: 'match_all', boost: 1 });
    assert.deepEqual([...all.values()], [1, 1, 1, 1, 1]);
  });

  it('orders by score, ties by doc order', () => {
    const r = executeQueryPhase(snapshotOf([SEG_A, SEG_B]), searchOf({ kind: 'term', field: 'tag', term: 'x', boost: 1 }), contextOf(MAPPING), { size: 10 });
    assert.deepEqual(Array.from(r.docs), [0, 2, 3]);
    assert.equal(r.totalHits, 3);
    assert.equal(r.maxScore, r.scores[0]);
  });
});
