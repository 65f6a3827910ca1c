import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { mergeTopHits } from '../../../shared/engine/search/merge-top-hits.ts';
import { executeQueryPhase } from '../../../shared/engine/search/query-phase.ts';
import { renderHit } from '../../../shared/engine/search/render-hit.ts';
import type { ShardCursor } from '../../../shared/engine/search/types.ts';
import { LIVE_DOCS, SNAPSHOT, ctx, tagsOf } from './corpus.ts';
import { buildSegment, contextOf, field, idOf, run, segmentsOf, snapshotOf, type TestDoc } from './fixtures.ts';
import { idOf as segmentDocId, type Segment } from '../../../shared/engine/segment/types.ts';

type Src = Record<string, unknown>;

/** Live docs ordered by a key (missing last), ties by doc order (= id order here). */
function ordered(key: (s: Src) => number | string | undefined, desc = false): string[] {
  const withKey = LIVE_DOCS.map((d) => ({ id: d.id, k: key(d.source), i: Number(d.id) }));
  return withKey
    .sort((a, b) => {
      if (a.k === undefined && b.k === undefined) return a.i - b.i;
      if (a.k === undefined) return 1;
      if (b.k === undefined) return -1;
      if (a.k !== b.k) return (a.k < b.k ? -1 : 1) * (desc ? -1 : 1);
      return a.i - b.i;
    })
    .map((x) => x.id);
}

const nOf = (s: Src) => (s.n === undefined ? undefined : Number(s.n));

describe('sorting', () => {
  it('by a numeric field in every syntax', () => {
    const asc = ordered(nOf);
    const desc = ordered(nOf, true);
    assert.deepEqual(run(SNAPSHOT, ctx(), { sort: 'n' }).ids, asc);
    assert.deepEqual(run(SNAPSHOT, ctx(), { sort: ['n'] }).ids, asc);
    assert.deepEqual(run(SNAPSHOT, ctx(), { sort: [{ n: 'desc' }] }).ids, desc);
    assert.deepEqual(run(SNAPSHOT, ctx(), { sort: { n: { order: 'desc' } } }).ids, desc);
    assert.deepEqual(run(SNAPSHOT, ctx(), undefined, { sort: 'n:desc' }).ids, desc);
  });

  it('reports sort values, with Long.MAX_VALUE/MIN_VALUE for missing longs', () => {
    const r = run(SNAPSHOT, ctx(), { sort: [{ n: 'asc' }] });
    assert.deepEqual(r.result.sortValues![0], [0]);
    assert.deepEqual(r.result.sortValues![r.ids.length - 1], [9223372036854775807n]);
    const d = run(SNAPSHOT, ctx(), { sort: [{ n: 'desc' }] });
    assert.deepEqual(d.result.sortValues![d.ids.length - 1], [-9223372036854775808n]);
  });

  it('keeps one-number sort values as a column (rows made from it on read), and rows where a value is not a plain number', () => {
    const price = run(SNAPSHOT, ctx(), { sort: [{ price: 'desc' }] });
    const column = price.result.sortColumn;
    assert.ok(column !== undefined);
    assert.deepEqual(price.result.sortValues, Array.from(column, (v) => [v]));
    assert.deepEqual(price.result.sortValues![0], [58.5]);
    // A missing long prints as Long.MAX_VALUE (a bigint): no column.
    const n = run(SNAPSHOT, ctx(), { sort: [{ n: 'asc' }] });
    assert.equal(n.result.sortColumn, undefined);
    assert.deepEqual(n.result.sortValues![n.ids.length - 1], [9223372036854775807n]);
  });

  it('missing _first and a missing value', () => {
    const first = run(SNAPSHOT, ctx(), { sort: [{ n: { order: 'asc', missing: '_first' } }] }).ids;
    assert.deepEqual(first.slice(0, 3), ['10', '21', '32']);
    const asValue = run(SNAPSHOT, ctx(), { sort: [{ n: { order: 'asc', missing: 20.5 } }] }).ids;
    assert.deepEqual(asValue.slice(17, 22), ['20', '10', '21', '32', '22']);
  });

  it('by date (sort values in epoch millis) and by keyword (string values, multi-valued min/max)', () => {
    const byDate = run(SNAPSHOT, ctx(), { sort: [{ date: 'desc' }, { n: 'asc' }] });
    assert.deepEqual(byDate.ids, ordered((s) => Date.parse(String(s.date)) * 100 - Number(s.n ?? 99), true));
    assert.equal(byDate.result.sortValues![0]![0], Date.parse('2020-01-28T03:00:00Z'));
    const byTag = run(SNAPSHOT, ctx(), { sort: [{ tag: 'desc' }, '_doc'] });
    assert.deepEqual(byTag.ids, ordered((s) => (tagsOf(s).length ? [...tagsOf(s)].sort().at(-1) : undefined), true));
    assert.equal(byTag.result.sortValues![0]![0], 'c');
    assert.equal(byTag.result.sortValues![byTag.ids.length - 1]![0], null);
  });

  it('by boolean (0/1), with mode', () => {
    const r = run(SNAPSHOT, ctx(), { sort: [{ flag: 'desc' }, { n: { order: 'asc', mode: 'max' } }] });
    assert.deepEqual(r.result.sortValues![0], [1, 0]);
  });

  it('_score and _doc', () => {
    const byScore = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } }, sort: ['_score'] });
    const plain = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } } });
    assert.deepEqual(byScore.ids, plain.ids);
    assert.deepEqual(run(SNAPSHOT, ctx(), { sort: ['_doc'] }).ids, LIVE_DOCS.map((d) => d.id));
    assert.deepEqual(run(SNAPSHOT, ctx(), { sort: [{ _doc: 'desc' }] }).ids, LIVE_DOCS.map((d) => d.id).reverse());
  });

  it('does not score when sorting by field unless track_scores', () => {
    const r = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } }, sort: ['n'] });
    assert.ok(r.scores.every((s) => Number.isNaN(s)));
    assert.ok(Number.isNaN(r.result.maxScore));
    const t = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox' } }, sort: ['n'], track_scores: true });
    assert.ok(t.scores.every((s) => s > 0));
  });

  it('refuses text fields (fielddata) and unmapped fields without unmapped_type', () => {
    assert.throws(() => run(SNAPSHOT, ctx(), { sort: ['title'] }), (e: EsError) => e.type === 'illegal_argument_exception' && /Fielddata is disabled on text fields/.test(e.reason));
    assert.throws(
      () => run(SNAPSHOT, ctx(), { sort: ['nope'] }),
      (e: EsError) => e.type === 'query_shard_exception' && e.reason === 'No mapping found for [nope] in order to sort on',
    );
    const r = run(SNAPSHOT, ctx(), { sort: [{ nope: { unmapped_type: 'long' } }, 'n'] });
    assert.deepEqual(r.ids, ordered(nOf));
  });

  it('top N with a heap equals the first N of the full order', () => {
    const full = run(SNAPSHOT, ctx(), { sort: [{ price: 'desc' }] });
    const top = run(SNAPSHOT, ctx(), { sort: [{ price: 'desc' }] }, {}, 5);
    assert.deepEqual(top.ids, full.ids.slice(0, 5));
    assert.equal(top.total, LIVE_DOCS.length);
  });
});

describe('top few by one numeric field (the filter-and-newest shape)', () => {
  const dateOf = (s: Src) => Date.parse(String(s.date));
  const tagged = (s: Src) => tagsOf(s).includes('b');

  it('keeps the first few of the full order across segments, ties in doc order, for both directions', () => {
    for (const desc of [true, false]) {
      for (const size of [1, 3, 5, 12]) {
        const want = LIVE_DOCS.filter((d) => tagged(d.source))
          .map((d) => ({ id: d.id, k: dateOf(d.source), i: Number(d.id) }))
          .sort((a, b) => (a.k !== b.k ? (a.k < b.k ? -1 : 1) * (desc ? -1 : 1) : a.i - b.i))
          .map((x) => x.id);
        const r = run(SNAPSHOT, ctx(), { query: { bool: { filter: { term: { tag: 'b' } } } }, sort: [{ date: desc ? 'desc' : 'asc' }] }, {}, size);
        assert.deepEqual(r.ids, want.slice(0, size), `${desc ? 'desc' : 'asc'} size ${size}`);
        assert.equal(r.total, want.length);
      }
    }
  });

  it('puts docs without the field last, whichever the direction', () => {
    for (const desc of [true, false]) {
      const want = ordered(nOf, desc);
      const r = run(SNAPSHOT, ctx(), { sort: [{ n: desc ? 'desc' : 'asc' }] }, {}, want.length);
      assert.deepEqual(r.ids, want);
      assert.deepEqual(run(SNAPSHOT, ctx(), { sort: [{ n: desc ? 'desc' : 'asc' }] }, {}, 4).ids, want.slice(0, 4));
    }
  });
});

describe('top few by a numeric field over many words of matches', () => {
  // Values at random (a few docs without one) over segments of thousands of docs: most words of
  // matches are skipped by their least/greatest value once the queue is full, none wrongly.
  const mapping = [field('t', 'long'), field('k', 'keyword')];
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const docs: TestDoc[] = Array.from({ length: 6000 }, (_, i) => {
    const source: Record<string, unknown> = { k: i % 7 === 0 ? 'x' : 'y' };
    if (i % 97 !== 5) source.t = Math.floor(next() * 100_000);
    return { id: String(i), source };
  });
  const snapshot = snapshotOf(segmentsOf(docs, mapping, 3));
  const context = () => contextOf(mapping);

  // Pages from 128 hits on are gathered unordered and ordered once (TopDocsCollector.gather); 300 of the
  // 858 matches are cut to the best 300 on the way, 1,000 never; a few docs deleted in the second snapshot.
  const deleted = docs.filter((d) => Number(d.id) % 11 === 3).map((d) => d.id);
  const withDeletes = snapshotOf(segmentsOf(docs, mapping, 3), deleted);
  it('keeps what a full sort keeps, both directions, missing first or last, small and large pages', () => {
    for (const [snap, gone] of [[snapshot, new Set<string>()], [withDeletes, new Set(deleted)]] as const) {
      for (const order of ['asc', 'desc'] as const) {
        for (const missing of ['_last', '_first', 0] as const) {
          const absent = missing === 0 ? 0 : (missing === '_first' ? -1 : 1) * (order === 'asc' ? Infinity : -Infinity);
          const key = (d: TestDoc) => (d.source.t === undefined ? absent : (d.source.t as number));
          const want = docs
            .filter((d) => d.source.k === 'x' && !gone.has(d.id))
            .sort((a, b) => (key(a) !== key(b) ? (key(a) < key(b) ? -1 : 1) * (order === 'asc' ? 1 : -1) : Number(a.id) - Number(b.id)))
            .map((d) => d.id);
          for (const size of [1, 10, 50, 128, 300, 1000]) {
            const r = run(snap, context(), { query: { bool: { filter: { term: { k: 'x' } } } }, sort: [{ t: { order, missing } }] }, {}, size);
            assert.deepEqual(r.ids, want.slice(0, size), `${order} missing ${missing} size ${size} deletes ${gone.size}`);
            assert.equal(r.total, want.length);
          }
        }
      }
    }
  });
});

describe('float fields', () => {
  it('report float sort values with float digits and continue after them exactly', () => {
    const mapping = [field('f', 'float')];
    const snap = snapshotOf([buildSegment(1, [1.1, 2.2, 2.2, 3.3].map((v, i) => ({ id: `f${i}`, source: { f: Math.fround(v) } })), mapping)]);
    const c = contextOf(mapping);
    const first = run(snap, c, { sort: ['f'] }, {}, 2);
    assert.deepEqual(first.result.sortValues, [[1.1], [2.2]]);
    const next = run(snap, c, { sort: ['f'], search_after: [2.2] }, {}, 10);
    assert.deepEqual(next.ids, ['f3']);
  });
});

describe('terminate_after and min_score', () => {
  it('terminate_after stops counting and reports terminated_early', () => {
    const r = run(SNAPSHOT, ctx(), { terminate_after: 5 });
    assert.equal(r.total, 5);
    assert.equal(r.result.terminatedEarly, true);
    const all = run(SNAPSHOT, ctx(), { terminate_after: 1000 });
    assert.equal(all.result.terminatedEarly, false);
    assert.equal(run(SNAPSHOT, ctx(), {}).result.terminatedEarly, null);
  });
  it('min_score drops low scores from hits and total', () => {
    const all = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox quick' } } });
    const cut = all.scores[Math.floor(all.scores.length / 2)]!;
    const r = run(SNAPSHOT, ctx(), { query: { match: { title: 'fox quick' } }, min_score: cut });
    assert.equal(r.total, all.scores.filter((s) => s >= cut).length);
  });
  it('post_filter restricts hits only', () => {
    const r = run(SNAPSHOT, ctx(), { post_filter: { term: { tag: 'a' } } });
    assert.deepEqual(r.ids.sort(), LIVE_DOCS.filter((d) => tagsOf(d.source).includes('a')).map((d) => d.id).sort());
  });
});

describe('constant-score top hits', () => {
  it('keeps the first docs in doc order and counts the rest exactly', () => {
    const want = LIVE_DOCS.filter((d) => tagsOf(d.source).includes('b')).map((d) => d.id);
    const r = run(SNAPSHOT, ctx(), { query: { bool: { filter: { term: { tag: 'b' } } } } }, {}, 3);
    assert.deepEqual(r.ids, want.slice(0, 3));
    assert.equal(r.total, want.length);
    const none = run(SNAPSHOT, ctx(), { query: { constant_score: { filter: { term: { tag: 'b' } } } } }, {}, 0);
    assert.equal(none.total, want.length);
    assert.equal(none.result.maxScore, 1);
  });
});

describe('matches for aggregations', () => {
  it('collects the live matching docs of every segment with their scores', () => {
    const search = parseSearchBody({ query: { match: { title: 'fox' } } }, {});
    const r = executeQueryPhase(SNAPSHOT, search, ctx(), { size: 3, collectMatches: true });
    const ids: string[] = [];
    for (const m of r.matches!) {
      for (let d = 0; d < m.view.segment.maxDoc; d++) {
        if ((m.bits[d >>> 5]! & (1 << (d & 31))) !== 0) {
          ids.push(segmentDocId(m.view.segment, d));
          assert.ok(m.scores![d]! > 0);
        }
      }
    }
    assert.equal(ids.length, r.totalHits);
    assert.ok(!ids.includes('5'));
  });
});

describe('search_after and scroll cursors', () => {
  it('search_after continues strictly after the given sort values', () => {
    const full = run(SNAPSHOT, ctx(), { sort: [{ tag: 'asc' }, { n: 'desc' }] }).ids;
    const first = run(SNAPSHOT, ctx(), { sort: [{ tag: 'asc' }, { n: 'desc' }] }, {}, 7);
    const next = run(SNAPSHOT, ctx(), { sort: [{ tag: 'asc' }, { n: 'desc' }], search_after: first.result.sortValues![6] }, {}, 7);
    assert.deepEqual([...first.ids, ...next.ids], full.slice(0, 14));
    assert.equal(next.total, LIVE_DOCS.length);
  });

  it('search_after must have one value per sort field', () => {
    assert.throws(() => run(SNAPSHOT, ctx(), { sort: ['n'], search_after: [1, 2] }), /search_after has 2 value\(s\) but sort has 1\./);
  });

  for (const [name, body] of [
    ['by score with ties', { query: { match: { title: 'fox dog' } } }],
    ['by a field with missing values and ties', { sort: [{ tag: 'desc' }] }],
    ['by _doc', { sort: ['_doc'] }],
  ] as const) {
    it(`a cursor over a pinned snapshot returns every doc exactly once (${name})`, () => {
      const search = parseSearchBody(body, {});
      const c = ctx();
      const expected = executeQueryPhase(SNAPSHOT, search, c, { size: 1000 });
      const seen: number[] = [];
      let after: ShardCursor | null = null;
      for (let page = 0; page < 100; page++) {
        const r = executeQueryPhase(SNAPSHOT, search, c, { size: 3, after });
        if (r.docs.length === 0) break;
        seen.push(...r.docs);
        const last = r.docs.length - 1;
        after = { sortValues: r.sortValues === null ? null : r.sortValues[last]!, score: r.scores[last]!, doc: r.docs[last]! };
      }
      assert.deepEqual(seen, Array.from(expected.docs));
      assert.equal(new Set(seen).size, expected.totalHits);
    });
  }
});

describe('merging shards and rendering hits', () => {
  const mapping = [field('n', 'long'), field('k', 'keyword')];
  const shardA = snapshotOf([buildSegment(1, [{ id: 'a1', source: { n: 5, k: 'x' } }, { id: 'a2', source: { n: 1 } }], mapping)]);
  const shardB = snapshotOf([buildSegment(1, [{ id: 'b1', source: { n: 5, k: 'y' }, routing: 'r1', version: 3 }, { id: 'b2', source: { n: 3 } }], mapping)]);
  const c = contextOf(mapping);

  it('merges by sort values, ties by shard index then doc', () => {
    const search = parseSearchBody({ sort: [{ n: 'desc' }] }, {});
    const results = [shardA, shardB].map((s) => executeQueryPhase(s, search, c, { size: 10 }));
    const merged = mergeTopHits(search, results, 0, 10);
    const ids = merged.map((h) => idOf(h.shardIndex === 0 ? shardA : shardB, h.doc));
    assert.deepEqual(ids, ['a1', 'b1', 'b2', 'a2']);
    assert.deepEqual(mergeTopHits(search, results, 1, 2).map((h) => h.sortValues), [[5], [3]]);
    const byKeyword = parseSearchBody({ sort: [{ k: 'asc' }] }, {});
    const kr = [shardA, shardB].map((s) => executeQueryPhase(s, byKeyword, c, { size: 10 }));
    assert.deepEqual(
      mergeTopHits(byKeyword, kr, 0, 10).map((h) => idOf(h.shardIndex === 0 ? shardA : shardB, h.doc)),
      ['a1', 'b1', 'a2', 'b2'],
    );
  });

  it('merges by score when not sorting, skipping shards that failed', () => {
    const search = parseSearchBody({}, {});
    const results = [executeQueryPhase(shardA, search, c, { size: 10 }), null, executeQueryPhase(shardB, search, c, { size: 10 })];
    assert.deepEqual(mergeTopHits(search, results, 0, 10).map((h) => h.shardIndex), [0, 0, 2, 2]);
  });

  it('renders a hit in Elasticsearch order, passing the source through', () => {
    const search = parseSearchBody({ version: true, sort: ['n'] }, {});
    const text = renderHit(shardB, 0, { index: 'idx', type: 'doc', score: null, sortValues: [5], search });
    assert.equal(text, '{"_index":"idx","_type":"doc","_id":"b1","_version":3,"_score":null,"_routing":"r1","_source":{"n":5,"k":"y"},"sort":[5]}');
    const plain = renderHit(shardA, 1, { index: 'idx', type: 'doc', score: 1, sortValues: null, search: parseSearchBody({ _source: false }, {}) });
    assert.equal(plain, '{"_index":"idx","_type":"doc","_id":"a2","_score":1.0}');
    const filtered = renderHit(shardA, 0, { index: 'idx', type: 'doc', score: 0.2876821, sortValues: null, search: parseSearchBody({ _source: ['k'] }, {}) });
    assert.equal(filtered, '{"_index":"idx","_type":"doc","_id":"a1","_score":0.2876821,"_source":{"k":"x"}}');
  });

  it('renders _routing without _source, and reads no stored block for a hit of a segment without routings', () => {
    const search = parseSearchBody({ _source: false }, {});
    assert.equal(renderHit(shardB, 0, { index: 'idx', type: 'doc', score: null, sortValues: null, search }), '{"_index":"idx","_type":"doc","_id":"b1","_score":null,"_routing":"r1"}');
    const unrouted = buildSegment(1, [{ id: 'u1', source: { n: 1 } }], mapping);
    assert.equal(unrouted.stored.mayHaveRouting(), false);
    const reads = { n: 0 };
    const counting: Segment = { ...unrouted, stored: { ...unrouted.stored, mayHaveRouting: () => false, sourceLength: (d) => unrouted.stored.sourceLength(d), document: (d) => (reads.n++, unrouted.stored.document(d)) } };
    const snap = snapshotOf([counting]);
    assert.equal(renderHit(snap, 0, { index: 'idx', type: 'doc', score: null, sortValues: null, search }), '{"_index":"idx","_type":"doc","_id":"u1","_score":null}');
    assert.equal(reads.n, 0);
    assert.equal(renderHit(snap, 0, { index: 'idx', type: 'doc', score: null, sortValues: null, search: parseSearchBody({}, {}) }), '{"_index":"idx","_type":"doc","_id":"u1","_score":null,"_source":{"n":1}}');
    assert.equal(reads.n, 1);
  });

  it('renders any _id as the JSON string Elasticsearch prints: quotes, backslashes, control characters, CJK and emoji', () => {
    const ids = ['plain-1', 'quo"te', 'back\\slash', 'tab\there', '京A12345', 'emoji-😀', 'ctl\u0001', 'del\u007f'];
    const snap = snapshotOf([buildSegment(1, ids.map((id) => ({ id, source: { n: 1 } })), mapping)]);
    const search = parseSearchBody({}, {});
    ids.forEach((id, d) => {
      const text = renderHit(snap, d, { index: 'idx', type: 'doc', score: null, sortValues: null, search });
      assert.equal((JSON.parse(text) as { _id: string })._id, id);
      assert.ok(text.includes(`"_id":${JSON.stringify(id)}`), text);
    });
  });

  it('renders docvalue_fields', () => {
    const search = parseSearchBody({ docvalue_fields: ['n', 'k', 'missing'] }, {});
    const text = renderHit(shardA, 0, { index: 'idx', type: 'doc', score: 1, sortValues: null, search });
    assert.equal(text, '{"_index":"idx","_type":"doc","_id":"a1","_score":1.0,"_source":{"n":5,"k":"x"},"fields":{"n":[5],"k":["x"]}}');
  });

  it('_source from the URL overrides the body; stored_fields without _source turns it off', () => {
    assert.deepEqual(parseSearchBody({ _source: 'include.field2' }, { sourceIncludes: ['include.field1'] }).source, { fetch: true, includes: ['include.field1'], excludes: [] });
    assert.deepEqual(parseSearchBody({ _source: { includes: 'a', excludes: ['*.b'] } }, {}).source, { fetch: true, includes: ['a'], excludes: ['*.b'] });
    assert.equal(parseSearchBody({ stored_fields: ['x'] }, {}).source.fetch, false);
    assert.equal(parseSearchBody({ stored_fields: ['x', '_source'] }, {}).source.fetch, true);
    assert.equal(parseSearchBody({}, { source: 'false' }).source.fetch, false);
  });
});

