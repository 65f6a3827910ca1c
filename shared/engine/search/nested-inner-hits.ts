/**
 * `inner_hits` of `nested` queries: for each hit, the nested docs of its
 * block that match the nested query's inner query, best score first, each
 * rendered as Elasticsearch renders a nested inner hit (the root's `_id`,
 * `_nested.field` and `.offset`, the nested object of the root's `_source`).
 * The inner query runs once per segment of the hits, not once per hit.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import { getOwn } from '../../json/own-keys.ts';
import { hasBit } from '../segment/bitset.ts';
import { nestedDocs, rootDocs } from '../segment/nested-blocks.ts';
import { idOf, type Segment, type SegmentView } from '../segment/types.ts';
import { evaluate } from './query-eval.ts';
import { nestedPathDocs, prevSetBit } from './nested-join.ts';
import type { NestedQuery, Query } from './query.ts';
import { formatFloat, type HitHooks } from './render-hit.ts';
import { acquireArena, releaseArena } from './scratch-arena.ts';
import type { ShardTermStats } from './term-stats.ts';

/** The nested queries of a query tree that ask for inner hits; refused below another nested query. */
export function nestedInnerHitQueries(q: Query, out: NestedQuery[] = [], underNested = false): NestedQuery[] {
  switch (q.kind) {
    case 'nested':
      if (q.innerHits !== null) {
        if (underNested) throw illegalArgument(`[inner_hits] of a nested query inside another nested query is not supported (path [${q.path}])`);
        out.push(q);
      }
      nestedInnerHitQueries(q.query, out, true);
      break;
    case 'bool':
      for (const c of [...q.must, ...q.filter, ...q.should, ...q.mustNot]) nestedInnerHitQueries(c, out, underNested);
      break;
    case 'dis_max':
      for (const c of q.queries) nestedInnerHitQueries(c, out, underNested);
      break;
    case 'constant_score':
      nestedInnerHitQueries(q.filter, out, underNested);
      break;
    default:
      break;
  }
  return out;
}

interface SegmentMatches {
  readonly bits: Uint32Array;
  readonly scores: Float64Array | null;
  readonly constant: number;
  readonly pathDocs: Uint32Array;
}

export interface InnerHitsContext {
  readonly index: string;
  readonly type: string;
  readonly stats: () => ShardTermStats;
}

/** The `tail` hook rendering `"inner_hits":{...}` for the given nested queries. */
export function nestedInnerHitsHooks(queries: readonly NestedQuery[], c: InnerHitsContext): HitHooks {
  const perSegment = queries.map(() => new Map<Segment, SegmentMatches>());
  const matchesOf = (k: number, view: SegmentView): SegmentMatches => {
    const cache = perSegment[k]!;
    let m = cache.get(view.segment);
    if (m === undefined) {
      const q = queries[k]!;
      const arena = acquireArena();
      try {
        const set = evaluate(q.query, { view, segment: view.segment, stats: c.stats(), filterCache: null, arena }, true, 1);
        // Arena arrays are reused after this segment: keep copies.
        m = { bits: set.bits.slice(), scores: set.scores === null ? null : set.scores.slice(), constant: set.constant, pathDocs: nestedPathDocs(view.segment, q.path) };
      } finally {
        releaseArena(arena);
      }
      cache.set(view.segment, m);
    }
    return m;
  };
  return {
    tail: (view, doc) => {
      const parts = queries.map((q, k) => `${JSON.stringify(q.innerHits!.name)}:${renderInnerHits(q, view, doc, nestedDocs(view.segment) === null ? null : matchesOf(k, view), c)}`);
      return `"inner_hits":{${parts.join(',')}}`;
    },
  };
}

function renderInnerHits(q: NestedQuery, view: SegmentView, root: number, m: SegmentMatches | null, c: InnerHitsContext): string {
  const spec = q.innerHits!;
  const hits: { doc: number; offset: number; score: number }[] = [];
  if (m !== null) {
    const roots = rootDocs(view.segment)!;
    let offset = 0;
    for (let d = prevSetBit(roots, root) + 1; d < root; d++) {
      if (!hasBit(m.pathDocs, d)) continue;
      if (hasBit(m.bits, d)) hits.push({ doc: d, offset, score: m.scores === null ? m.constant : m.scores[d]! });
      offset++;
    }
  }
  hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
  const page = hits.slice(spec.from, spec.from + spec.size);
  const maxScore = hits.length === 0 ? 'null' : formatFloat(Math.max(...hits.map((h) => h.score)));
  let source: unknown = undefined;
  const id = JSON.stringify(idOf(view.segment, root));
  const rendered = page.map((h) => {
    const members = [`"_index":${JSON.stringify(c.index)}`, `"_type":${JSON.stringify(c.type)}`, `"_id":${id}`, `"_nested":{"field":${JSON.stringify(q.path)},"offset":${h.offset}}`];
    if (spec.version) members.push(`"_version":${view.segment.versions[root]!}`);
    members.push(`"_score":${formatFloat(h.score)}`);
    if (spec.source) {
      source ??= JSON.parse(Buffer.from(view.segment.stored.document(root).source).toString('utf8')) as unknown;
      const obj = nestedObjectAt(source, q.path, h.offset);
      if (obj !== undefined) members.push(`"_source":${JSON.stringify(obj)}`);
    }
    return `{${members.join(',')}}`;
  });
  return `{"hits":{"total":${hits.length},"max_score":${maxScore},"hits":[${rendered.join(',')}]}}`;
}

/** The `offset`-th value of the nested object at `path` in a root source (FetchPhase.createNestedSearchHit). */
function nestedObjectAt(source: unknown, path: string, offset: number): unknown {
  let v: unknown = source;
  const parts = path.split('.');
  for (let i = 0; i < parts.length; i++) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const obj = v as Record<string, unknown>;
    v = getOwn(obj, parts[i]!);
    if (v === undefined) {
      // A source may spell the rest of the path as one dotted key.
      v = getOwn(obj, parts.slice(i).join('.'));
      break;
    }
  }
  if (Array.isArray(v)) return v[offset];
  return offset === 0 ? v : undefined;
}
