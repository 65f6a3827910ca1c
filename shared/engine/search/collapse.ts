/**
 * Field collapsing (`collapse`, Lucene's CollapsingTopDocsCollector): one hit
 * per distinct value of a keyword or numeric field, the group's best
 * document by the request's sort. A shard keeps the best document of every
 * group that matches, then reports its top `from + size` groups with their
 * collapse values (as a last, hidden sort value), so the coordinator can
 * drop a group another shard already reported (CollapseTopFieldDocs.merge).
 * `hits.total` counts documents, not groups, as in Elasticsearch.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../mapping/types.ts';
import type { SearcherSnapshot, Segment } from '../segment/types.ts';
import { andInto, lowestBit } from './doc-bits.ts';
import { evaluate } from './query-eval.ts';
import type { Query } from './query.ts';
import { acquireArena, releaseArena } from './scratch-arena.ts';
import { keyReader, numericSortValue, type ResolvedSortField } from './sort-keys.ts';
import { ShardTermStats } from './term-stats.ts';
import type { ShardQueryResult, ShardSearchContext, SortValue } from './types.ts';

export interface CollapseSpec {
  readonly field: string;
  readonly innerHits: readonly CollapseInnerHits[];
  readonly maxConcurrentGroupSearches: number | null;
}

/** `collapse.inner_hits`: a search of each group, rendered under the hit's `inner_hits`. */
export interface CollapseInnerHits {
  readonly name: string;
  /** The search body of each group's search (from, size, sort, _source, ...); the query is added per group. */
  readonly body: Readonly<Record<string, unknown>>;
}

/** The collapse field's checks (CollapseBuilder.build). */
export function checkCollapseField(mapping: MappingLookup, field: string): 'keyword' | 'numeric' {
  const fm = mapping.field(field);
  if (fm === undefined) throw illegalArgument(`no mapping found for \`${field}\` in order to collapse on`);
  // an ip is neither a KeywordFieldType nor a NumberFieldType to CollapseBuilder
  if (fm.mappedType === 'ip' || (fm.type !== 'keyword' && !['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'date', 'boolean'].includes(fm.type))) {
    throw illegalArgument(`unknown type for collapse field \`${field}\`, only keywords and numbers are accepted`);
  }
  if (!fm.docValues) throw illegalArgument(`cannot collapse on field \`${field}\` without \`doc_values\``);
  return fm.type === 'keyword' ? 'keyword' : 'numeric';
}

/** The collapse value of local doc `d`: its one value, or null without one. */
export function collapseValue(seg: Segment, field: string, d: number): string | number | null {
  const dv = seg.docValues.get(field);
  if (dv === undefined) return null;
  if (dv.kind === 'numeric') {
    if (dv.starts === null) {
      const v = dv.values[d]!;
      return Number.isNaN(v) ? null : v;
    }
    const n = dv.starts[d + 1]! - dv.starts[d]!;
    if (n === 0) return null;
    if (n > 1) throw illegalArgument(`failed to collapse ${d}, the collapse field must be single valued`);
    return dv.values[dv.starts[d]!]!;
  }
  if (dv.starts === null) {
    const o = dv.ords[d]!;
    return o < 0 ? null : dv.dict.get(o);
  }
  const n = dv.starts[d + 1]! - dv.starts[d]!;
  if (n === 0) return null;
  if (n > 1) throw illegalArgument(`failed to collapse ${d}, the collapse field must be single valued`);
  return dv.dict.get(dv.ords[dv.starts[d]!]!);
}

interface Group {
  doc: number;
  score: number;
  nums: number[];
  strs: (string | null)[];
  value: string | number | null;
}

function compareGroups(fields: readonly ResolvedSortField[], a: Group, b: Group): number {
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const rev = f.reverse ? -1 : 1;
    if (f.kind === 'string' || f.kind === 'id') {
      const x = a.strs[i] ?? null;
      const y = b.strs[i] ?? null;
      if (x === y) continue;
      const first = f.missingFirst;
      if (x === null) return first ? -1 : 1;
      if (y === null) return first ? 1 : -1;
      return (x < y ? -1 : 1) * rev;
    }
    const x = a.nums[i]!;
    const y = b.nums[i]!;
    if (x !== y) return (x < y ? -1 : 1) * rev;
  }
  return a.doc - b.doc;
}

/**
 * The query phase of a collapsed search on one shard: the best document of
 * each group, the top `size` groups (from + size), sort values with the
 * collapse value appended.
 */
export function collapsedQueryPhase(
  snapshot: SearcherSnapshot,
  query: Query,
  postFilter: Query | null,
  fields: readonly ResolvedSortField[],
  needScores: boolean,
  collapseField: string,
  size: number,
  ctx: ShardSearchContext,
): ShardQueryResult {
  const stats = new ShardTermStats(snapshot);
  const groups = new Map<string | number | null, Group>();
  // Strings and numbers are distinct keys even when they print the same.
  const keyOf = (v: string | number | null): string | number | null => v;
  let total = 0;
  let maxScore = -Infinity;
  const arena = acquireArena();
  try {
    for (const view of snapshot.views) {
      if (view.numDocs === 0) continue;
      arena.reset();
      const seg = view.segment;
      const segCtx = { view, segment: seg, stats, filterCache: ctx.filterCache, arena };
      const set = evaluate(query, segCtx, needScores);
      const bits = set.mutable ? set.bits : set.bits.slice();
      if (view.liveDocs !== null) andInto(bits, view.liveDocs);
      if (postFilter !== null) andInto(bits, evaluate(postFilter, segCtx, false).bits);
      const readers = fields.map((f) => keyReader(f, seg));
      for (let w = 0; w < bits.length; w++) {
        let word = bits[w]!;
        while (word !== 0) {
          const d = (w << 5) + lowestBit(word);
          word &= word - 1;
          total++;
          const score = set.scores === null ? set.constant : set.scores[d]!;
          if (needScores && score > maxScore) maxScore = score;
          const g: Group = { doc: view.docBase + d, score, nums: [], strs: [], value: collapseValue(seg, collapseField, d) };
          fields.forEach((f, i) => {
            if (f.kind === 'score') g.nums[i] = score;
            else if (f.kind === 'doc') g.nums[i] = view.docBase + d;
            else if (f.kind === 'numeric') g.nums[i] = readers[i]!.numeric(d);
            else g.strs[i] = readers[i]!.string(d);
          });
          const key = keyOf(g.value);
          const best = groups.get(key);
          if (best === undefined || compareGroups(fields, g, best) < 0) groups.set(key, g);
        }
      }
    }
  } finally {
    releaseArena(arena);
  }
  const top = [...groups.values()].sort((a, b) => compareGroups(fields, a, b)).slice(0, Math.max(0, size));
  const sortValues: SortValue[][] = top.map((g) => [
    ...fields.map((f, i): SortValue => (f.kind === 'string' || f.kind === 'id' ? (g.strs[i] ?? null) : numericSortValue(f, g.nums[i]!))),
    g.value,
  ]);
  return {
    totalHits: total,
    maxScore: needScores && total > 0 ? maxScore : NaN,
    docs: Int32Array.from(top.map((g) => g.doc)),
    scores: Float32Array.from(top.map((g) => (needScores ? g.score : NaN))),
    sortValues,
    terminatedEarly: null,
    matches: null,
  };
}
