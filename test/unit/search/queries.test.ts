import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DOCS, LIVE_DOCS, SNAPSHOT, ctx, tagsOf } from './corpus.ts';
import { expectIds, ngrams, run, standardTokens } from './fixtures.ts';

/** Ids a query matches, sorted (the order of the independent answers). */
function ids(body: unknown): string[] {
  return run(SNAPSHOT, ctx(), body).ids.sort();
}

function live(pred: (src: Record<string, unknown>) => boolean): string[] {
  return expectIds(LIVE_DOCS, pred);
}

const titleWords = (src: Record<string, unknown>): string[] => standardTokens(String(src.title));
const dateOf = (src: Record<string, unknown>): number => Date.parse(String(src.date));

describe('match_all and match_none', () => {
  it('match_all matches every live doc with score 1 (× boost)', () => {
    const r = run(SNAPSHOT, ctx(), { query: { match_all: { boost: 2 } } });
    assert.equal(r.total, LIVE_DOCS.length);
    assert.ok(r.scores.every((s) => s === 2));
  });
  it('an empty body is match_all', () => {
    assert.equal(run(SNAPSHOT, ctx(), undefined).total, LIVE_DOCS.length);
  });
  it('match_none matches nothing', () => {
    assert.equal(run(SNAPSHOT, ctx(), { query: { match_none: {} } }).total, 0);
  });
});

describe('match', () => {
  it('short form analyzes the text: any term matches (operator or)', () => {
    assert.deepEqual(ids({ query: { match: { title: 'FOX dog' } } }), live((s) => titleWords(s).some((w) => w === 'fox' || w === 'dog')));
  });
  it('operator and requires every term', () => {
    assert.deepEqual(
      ids({ query: { match: { title: { query: 'fox dog', operator: 'and' } } } }),
      live((s) => titleWords(s).includes('fox') && titleWords(s).includes('dog')),
    );
  });
  it('minimum_should_match as integer, negative, percentage and combination', () => {
    const words = ['quick', 'brown', 'fox', 'lazy'];
    const atLeast = (k: number) => live((s) => words.filter((w) => titleWords(s).includes(w)).length >= k);
    const q = (msm: unknown) => ids({ query: { match: { title: { query: words.join(' '), minimum_should_match: msm } } } });
    assert.deepEqual(q(2), atLeast(2));
    assert.deepEqual(q('-3'), atLeast(1));
    assert.deepEqual(q('50%'), atLeast(2));
    assert.deepEqual(q('-25%'), atLeast(3));
    assert.deepEqual(q('3<50%'), atLeast(2));
    assert.deepEqual(q('5<50%'), atLeast(4));
  });
  it('a doc matching a term twice scores higher than one matching it once', () => {
    const r = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } } });
    const foxes = (id: string) => titleWords(DOCS[Number(id)]!.source).filter((w) => w === 'fox').length;
    const counts = r.ids.map(foxes);
    assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
    assert.ok(counts[0]! >= 2 && counts[counts.length - 1] === 1);
  });
  it('zero_terms_query: none matches nothing, all matches everything', () => {
    assert.equal(run(SNAPSHOT, ctx(), { query: { match: { title: { query: '!!!' } } } }).total, 0);
    assert.equal(run(SNAPSHOT, ctx(), { query: { match: { title: { query: '!!!', zero_terms_query: 'all' } } } }).total, LIVE_DOCS.length);
  });
  it('analyzer overrides the search analyzer', () => {
    // The keyword analyzer keeps "quick brown" as one term, which the index does not have.
    assert.equal(run(SNAPSHOT, ctx(), { query: { match: { title: { query: 'quick brown', analyzer: 'keyword' } } } }).total, 0);
  });
  it('on a keyword field the value is one exact term', () => {
    assert.deepEqual(ids({ query: { match: { 'title.raw': 'fox quick' } } }), live((s) => s.title === 'fox quick'));
  });
  it('on numeric, date and boolean fields the value is parsed with the field type', () => {
    assert.deepEqual(ids({ query: { match: { n: '7' } } }), ['7']);
    assert.deepEqual(ids({ query: { match: { flag: 'true' } } }), live((s) => s.flag === true));
  });
  it('lenient turns a bad value into no match', () => {
    assert.equal(run(SNAPSHOT, ctx(), { query: { match: { n: { query: 'abc', lenient: true } } } }).total, 0);
  });
  it('an unmapped field matches nothing', () => {
    assert.equal(run(SNAPSHOT, ctx(), { query: { match: { nope: 'fox' } } }).total, 0);
  });
  it('boost multiplies the score', () => {
    const plain = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } } });
    const boosted = run(SNAPSHOT, ctx(), { query: { match: { title: { query: 'fox', boost: 2 } } } });
    assert.ok(Math.abs(boosted.scores[0]! - 2 * plain.scores[0]!) < 1e-6);
  });
});

describe('match_phrase', () => {
  it('matches terms in order at adjacent positions', () => {
    const phrase = (s: Record<string, unknown>, a: string, b: string) => {
      const w = titleWords(s);
      return w.some((x, i) => x === a && w[i + 1] === b);
    };
    assert.deepEqual(ids({ query: { match_phrase: { title: 'fox fox' } } }), live((s) => phrase(s, 'fox', 'fox')));
    assert.deepEqual(ids({ query: { match_phrase: { title: 'quick fox' } } }), live((s) => phrase(s, 'quick', 'fox')));
  });
  it('slop allows terms further apart', () => {
    const within = (s: Record<string, unknown>) => {
      const w = titleWords(s);
      const i = w.indexOf('quick');
      return i >= 0 && w.slice(i + 1, i + 3).includes('fox');
    };
    assert.deepEqual(ids({ query: { match_phrase: { title: { query: 'quick fox', slop: 1 } } } }), live(within));
  });
});

describe('multi_match', () => {
  it('best_fields scores with the best field (dis_max) and matches on any field', () => {
    const r = run(SNAPSHOT, ctx(), { query: { multi_match: { query: 'fox', fields: ['title', 'title.raw'] } } });
    assert.deepEqual(r.ids.sort(), live((s) => titleWords(s).includes('fox')));
    const single = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } } });
    assert.deepEqual(r.scores, single.scores);
  });
  it('field boosts with ^ and wildcard field patterns', () => {
    const r = run(SNAPSHOT, ctx(), { query: { multi_match: { query: 'fox', fields: ['tit*^3'] } } });
    const single = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } } });
    assert.ok(Math.abs(r.scores[0]! - 3 * single.scores[0]!) < 1e-5);
  });
  it('most_fields sums the fields', () => {
    const r = run(SNAPSHOT, ctx(), { query: { multi_match: { query: 'fox', type: 'most_fields', fields: ['title', 'title'] } } });
    assert.equal(r.total, live((s) => titleWords(s).includes('fox')).length);
  });
  it('tie_breaker adds the other fields scaled', () => {
    const a = run(SNAPSHOT, ctx(), { query: { multi_match: { query: 'fox quick', fields: ['title', 'title.raw'], tie_breaker: 0.5 } } });
    assert.equal(a.total, live((s) => titleWords(s).includes('fox') || titleWords(s).includes('quick')).length);
  });
  it('phrase type runs match_phrase per field', () => {
    assert.deepEqual(
      ids({ query: { multi_match: { query: 'fox fox', type: 'phrase', fields: ['title'] } } }),
      ids({ query: { match_phrase: { title: 'fox fox' } } }),
    );
  });
});

describe('term-level queries', () => {
  it('term on a keyword field, with multi-valued docs', () => {
    assert.deepEqual(ids({ query: { term: { tag: 'a' } } }), live((s) => tagsOf(s).includes('a')));
    assert.deepEqual(ids({ query: { term: { tag: { value: 'b', boost: 2 } } } }), live((s) => tagsOf(s).includes('b')));
  });
  it('term on a text field uses the raw value (not analyzed)', () => {
    assert.deepEqual(ids({ query: { term: { title: 'fox' } } }), live((s) => titleWords(s).includes('fox')));
    assert.equal(run(SNAPSHOT, ctx(), { query: { term: { title: 'Fox' } } }).total, 0);
  });
  it('terms on keyword and numeric fields', () => {
    assert.deepEqual(ids({ query: { terms: { tag: ['a', 'c'] } } }), live((s) => tagsOf(s).some((t) => t === 'a' || t === 'c')));
    assert.deepEqual(ids({ query: { terms: { n: [1, '2', 3.5, 39] } } }), ['1', '2', '39']);
  });
  it('terms is constant score', () => {
    const r = run(SNAPSHOT, ctx(), { query: { terms: { tag: ['a'], boost: 1.5 } } });
    assert.ok(r.scores.every((s) => s === 1.5));
  });
  it('term on numeric, boolean and date fields', () => {
    assert.deepEqual(ids({ query: { term: { n: 12 } } }), ['12']);
    assert.deepEqual(ids({ query: { term: { price: 4.5 } } }), ['3']);
    assert.deepEqual(ids({ query: { term: { flag: false } } }), live((s) => s.flag === false));
    assert.deepEqual(ids({ query: { term: { date: '2020-01-03T02:00:00Z' } } }), live((s) => s.date === '2020-01-03T02:00:00Z'));
  });
  it('term on _id and _type', () => {
    assert.deepEqual(ids({ query: { term: { _id: '7' } } }), ['7']);
    assert.equal(run(SNAPSHOT, ctx(), { query: { term: { _type: 'doc' } } }).total, LIVE_DOCS.length);
    assert.equal(run(SNAPSHOT, ctx(), { query: { terms: { _index: ['test', 'other'] } } }).total, LIVE_DOCS.length);
    assert.equal(run(SNAPSHOT, ctx(), { query: { term: { _index: 'other' } } }).total, 0);
  });
  it('ids with values and type', () => {
    assert.deepEqual(ids({ query: { ids: { values: ['1', '5', '9', 'zz'] } } }), ['1', '9']);
    assert.deepEqual(ids({ query: { ids: { type: 'doc', values: ['1'] } } }), ['1']);
    assert.deepEqual(ids({ query: { ids: { type: 'other', values: ['1'] } } }), []);
  });
  it('exists', () => {
    assert.deepEqual(ids({ query: { exists: { field: 'tag' } } }), live((s) => s.tag !== undefined));
    assert.deepEqual(ids({ query: { exists: { field: 'n' } } }), live((s) => s.n !== undefined));
    assert.deepEqual(ids({ query: { exists: { field: 'nope' } } }), []);
  });
  it('prefix and wildcard scan the sorted term list', () => {
    assert.deepEqual(ids({ query: { prefix: { title: 'qu' } } }), live((s) => titleWords(s).some((w) => w.startsWith('qu'))));
    assert.deepEqual(ids({ query: { wildcard: { title: 'b?o*n' } } }), live((s) => titleWords(s).some((w) => /^b.o.*n$/.test(w))));
    assert.deepEqual(ids({ query: { wildcard: { 'title.raw': '*fox' } } }), live((s) => String(s.title).endsWith('fox')));
    assert.deepEqual(ids({ query: { prefix: { tag: { value: 'c' } } } }), live((s) => tagsOf(s).includes('c')));
  });
  it('unmapped fields match nothing', () => {
    for (const q of [{ term: { nope: 'x' } }, { terms: { nope: ['x'] } }, { range: { nope: { gte: 1 } } }, { prefix: { nope: 'x' } }]) {
      assert.equal(run(SNAPSHOT, ctx(), { query: q }).total, 0);
    }
  });
});

describe('range', () => {
  it('numeric bounds: gte/gt/lte/lt and from/to with include flags', () => {
    const n = (s: Record<string, unknown>) => (s.n === undefined ? NaN : Number(s.n));
    assert.deepEqual(ids({ query: { range: { n: { gte: 10, lt: 20 } } } }), live((s) => n(s) >= 10 && n(s) < 20));
    assert.deepEqual(ids({ query: { range: { n: { gt: 10, lte: 20 } } } }), live((s) => n(s) > 10 && n(s) <= 20));
    assert.deepEqual(ids({ query: { range: { n: { from: 30, to: null, include_lower: false } } } }), live((s) => n(s) > 30));
    assert.deepEqual(ids({ query: { range: { n: { gt: 10.5, lt: 12.5 } } } }), ['11', '12']);
    assert.deepEqual(ids({ query: { range: { price: { gt: 3, lt: 6 } } } }), live((s) => Number(s.price) > 3 && Number(s.price) < 6));
  });
  it('keyword range compares terms', () => {
    assert.deepEqual(ids({ query: { range: { tag: { gt: 'a', lte: 'b' } } } }), live((s) => tagsOf(s).includes('b')));
  });
  it('dates: formats, date math with rounding as ES does', () => {
    const t = (s: string) => Date.parse(s);
    assert.deepEqual(
      ids({ query: { range: { date: { gte: '2020-01-03', lt: '2020-01-05' } } } }),
      live((s) => dateOf(s) >= t('2020-01-03T00:00:00Z') && dateOf(s) < t('2020-01-05T00:00:00Z')),
    );
    // lte rounds up: all of the 4th.
    assert.deepEqual(
      ids({ query: { range: { date: { gte: '2020-01-03', lte: '2020-01-04' } } } }),
      live((s) => dateOf(s) >= t('2020-01-03T00:00:00Z') && dateOf(s) < t('2020-01-05T00:00:00Z')),
    );
    // now is 2020-01-15T12:00Z: now-1d/d is 2020-01-14T00:00Z (gte rounds down); lt now/d excludes today.
    assert.deepEqual(
      ids({ query: { range: { date: { gte: 'now-1d/d', lt: 'now/d' } } } }),
      live((s) => dateOf(s) >= t('2020-01-14T00:00:00Z') && dateOf(s) < t('2020-01-15T00:00:00Z')),
    );
    // gt rounds up: after the whole 14th.
    assert.deepEqual(ids({ query: { range: { date: { gt: '2020-01-14||/d', lt: '2020-01-16' } } } }), live((s) => dateOf(s) >= t('2020-01-15T00:00:00Z') && dateOf(s) < t('2020-01-16T00:00:00Z')));
    assert.deepEqual(
      ids({ query: { range: { date: { gte: '03/01/2020', lt: '04/01/2020', format: 'dd/MM/yyyy' } } } }),
      live((s) => dateOf(s) >= t('2020-01-03T00:00:00Z') && dateOf(s) < t('2020-01-04T00:00:00Z')),
    );
    assert.deepEqual(
      ids({ query: { range: { date: { gte: '2020-01-03T08:00:00', lt: '2020-01-04T08:00:00', time_zone: '+08:00' } } } }),
      live((s) => dateOf(s) >= t('2020-01-03T00:00:00Z') && dateOf(s) < t('2020-01-04T00:00:00Z')),
    );
  });
  it('range is constant score', () => {
    const r = run(SNAPSHOT, ctx(), { query: { range: { n: { gte: 1, boost: 2 } } } });
    assert.ok(r.scores.every((s) => s === 2));
  });
});

describe('bool', () => {
  it('must, filter, should, must_not combine', () => {
    assert.deepEqual(
      ids({ query: { bool: { must: { match: { title: 'fox' } }, filter: [{ term: { flag: true } }], must_not: [{ term: { tag: 'c' } }] } } }),
      live((s) => titleWords(s).includes('fox') && s.flag === true && !tagsOf(s).includes('c')),
    );
  });
  it('should-only requires one should; with must present should is optional', () => {
    assert.deepEqual(ids({ query: { bool: { should: [{ term: { tag: 'a' } }, { term: { tag: 'c' } }] } } }), live((s) => tagsOf(s).some((t) => t === 'a' || t === 'c')));
    assert.deepEqual(ids({ query: { bool: { must: [{ term: { flag: true } }], should: [{ term: { tag: 'a' } }] } } }), live((s) => s.flag === true));
  });
  it('should with must present counts for scoring only', () => {
    const r = run(SNAPSHOT, ctx(), { query: { bool: { must: [{ term: { flag: true } }], should: [{ term: { tag: 'a' } }] } } });
    const withA = new Set(live((s) => tagsOf(s).includes('a')));
    const topGroup = r.ids.slice(0, r.ids.filter((id) => withA.has(id)).length);
    assert.ok(topGroup.every((id) => withA.has(id)));
  });
  it('minimum_should_match on bool', () => {
    const q = { bool: { should: [{ term: { tag: 'a' } }, { term: { tag: 'b' } }, { term: { flag: true } }], minimum_should_match: 2 } };
    assert.deepEqual(ids({ query: q }), live((s) => [tagsOf(s).includes('a'), tagsOf(s).includes('b'), s.flag === true].filter(Boolean).length >= 2));
  });
  it('in filter context should clauses are required (one of them) even next to must', () => {
    const q = { bool: { filter: { bool: { must: [{ term: { flag: true } }], should: [{ term: { tag: 'a' } }] } } } };
    assert.deepEqual(ids({ query: q }), live((s) => s.flag === true && tagsOf(s).includes('a')));
  });
  it('filter-only bool scores 0; must_not-only bool matches the rest with 0', () => {
    const f = run(SNAPSHOT, ctx(), { query: { bool: { filter: { term: { tag: 'a' } } } } });
    assert.ok(f.scores.every((s) => s === 0));
    assert.deepEqual(ids({ query: { bool: { must_not: { term: { tag: 'a' } } } } }), live((s) => !tagsOf(s).includes('a')));
  });
  it('an empty bool is match_all; nested bools', () => {
    assert.equal(run(SNAPSHOT, ctx(), { query: { bool: {} } }).total, LIVE_DOCS.length);
    const q = { bool: { should: [{ bool: { must: [{ term: { tag: 'a' } }, { term: { flag: true } }] } }, { term: { _id: '1' } }] } };
    assert.deepEqual(ids({ query: q }), live((s) => tagsOf(s).includes('a') && s.flag === true).concat(['1']).sort());
  });
  it('filters do not change scores', () => {
    const plain = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } } });
    const filtered = run(SNAPSHOT, ctx(), { query: { bool: { must: { match: { title: 'fox' } }, filter: { range: { n: { gte: 0 } } } } } });
    const byId = new Map(plain.ids.map((id, i) => [id, plain.scores[i]]));
    filtered.ids.forEach((id, i) => assert.equal(filtered.scores[i], byId.get(id)));
  });
});

describe('constant_score and dis_max', () => {
  it('constant_score gives its boost', () => {
    const r = run(SNAPSHOT, ctx(), { query: { constant_score: { filter: { match: { title: 'fox' } }, boost: 1.5 } } });
    assert.equal(r.total, live((s) => titleWords(s).includes('fox')).length);
    assert.ok(r.scores.every((s) => s === 1.5));
  });
  it('dis_max matches any clause', () => {
    assert.deepEqual(ids({ query: { dis_max: { queries: [{ term: { tag: 'a' } }, { term: { tag: 'c' } }] } } }), live((s) => tagsOf(s).some((t) => t === 'a' || t === 'c')));
  });
});

describe('query_string and q=', () => {
  it('field:value, AND/OR/NOT, +/-, parentheses', () => {
    const w = (s: Record<string, unknown>, x: string) => titleWords(s).includes(x);
    assert.deepEqual(ids({ query: { query_string: { query: 'title:fox AND title:dog' } } }), live((s) => w(s, 'fox') && w(s, 'dog')));
    assert.deepEqual(ids({ query: { query_string: { query: 'title:fox OR tag:c' } } }), live((s) => w(s, 'fox') || tagsOf(s).includes('c')));
    assert.deepEqual(ids({ query: { query_string: { query: 'title:fox -tag:c' } } }), live((s) => w(s, 'fox') && !tagsOf(s).includes('c')));
    assert.deepEqual(ids({ query: { query_string: { query: 'title:fox NOT tag:c' } } }), live((s) => w(s, 'fox') && !tagsOf(s).includes('c')));
    assert.deepEqual(ids({ query: { query_string: { query: '+title:fox +(tag:a OR tag:c)' } } }), live((s) => w(s, 'fox') && tagsOf(s).some((t) => t === 'a' || t === 'c')));
  });
  it('conjunctions bind as in Lucene: a AND b OR c is +a +b c', () => {
    const w = (s: Record<string, unknown>, x: string) => titleWords(s).includes(x);
    assert.deepEqual(ids({ query: { query_string: { query: 'title:fox AND title:dog OR title:quick' } } }), live((s) => w(s, 'fox') && w(s, 'dog')));
    // With default_operator AND, `a OR b c` is a b +c.
    assert.deepEqual(
      ids({ query: { query_string: { query: 'title:fox OR title:dog title:quick', default_operator: 'AND' } } }),
      live((s) => w(s, 'quick')),
    );
  });
  it('default_operator and df', () => {
    const w = (s: Record<string, unknown>, x: string) => titleWords(s).includes(x);
    assert.deepEqual(ids({ query: { query_string: { query: 'fox dog', default_field: 'title', default_operator: 'AND' } } }), live((s) => w(s, 'fox') && w(s, 'dog')));
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: 'fox dog', df: 'title' }).ids.sort(), live((s) => w(s, 'fox') || w(s, 'dog')));
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: 'fox dog', df: 'title', defaultOperator: 'AND' }).ids.sort(), live((s) => w(s, 'fox') && w(s, 'dog')));
  });
  it('quoted phrases and wildcards (lowercased on text fields)', () => {
    assert.deepEqual(ids({ query: { query_string: { query: 'title:"fox fox"' } } }), ids({ query: { match_phrase: { title: 'fox fox' } } }));
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: 'title:QU*' }).ids.sort(), live((s) => titleWords(s).some((x) => x.startsWith('qu'))));
  });
  it('the default field * searches all fields leniently', () => {
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: 'fox' }).ids.sort(), live((s) => titleWords(s).includes('fox')));
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: '_all:dog' }).ids.sort(), live((s) => titleWords(s).includes('dog')));
  });
  it('lenient=true makes a bad number match nothing; ranges and _exists_', () => {
    assert.equal(run(SNAPSHOT, ctx(), undefined, { q: 'n:foo', lenient: true }).total, 0);
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: 'n:[9 TO 12]' }).ids.sort(), ['11', '12', '9']);
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: 'n:{9 TO 12}' }).ids.sort(), ['11']);
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: 'n:>37' }).ids.sort(), ['38', '39']);
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { q: '_exists_:tag' }).ids.sort(), live((s) => s.tag !== undefined));
  });
});

describe('n-gram plate search', () => {
  it('an inner fragment matches plates containing it (operator and)', () => {
    const frag = DOCS[7]!.source.plate as string;
    const inner = frag.slice(2, 5);
    const q = { query: { match: { plate: { query: inner, operator: 'and' } } } };
    assert.deepEqual(ids(q), live((s) => String(s.plate).toLowerCase().includes(inner.toLowerCase())));
    assert.ok(ngrams(inner).length === 6);
  });
});
