/**
 * One shard's query phase (DESIGN.md section 2, "Searches"): build the engine
 * query against the shard's mapping, evaluate it segment by segment, count
 * every match exactly and keep the top `from + size` in sort order.
 */
import { fielddataOnTextField, illegalArgument } from '../../errors/es-errors.ts';
import type { MatchSet } from '../aggs/types.ts';
import type { NumericArray, SearcherSnapshot, Segment } from '../segment/types.ts';
import { andInto, cardinality, lowestBit } from './doc-bits.ts';
import { popcount32 } from '../segment/bitset.ts';
import { wordBounds } from './word-bounds.ts';
import { evaluate } from './query-eval.ts';
import type { SegmentEvalContext } from './query-eval.ts';
import { keyFromSortValue, keyReader, numericSortValue, resolveSort, SingleNumericKeys } from './sort-keys.ts';
import type { ResolvedSortField, SegmentKeyReader } from './sort-keys.ts';
import { acquireArena, releaseArena } from './scratch-arena.ts';
import { copyBits, giveBits } from './recycled-bits.ts';
import { ShardTermStats } from './term-stats.ts';
import { TopDocsCollector } from './top-docs.ts';
import { checkCollapseField, collapsedQueryPhase } from './collapse.ts';
import type { Query } from './query.ts';
import type { ParsedSearch, QueryPhaseOptions, QuerySource, ShardQueryResult, ShardSearchContext, SortValue } from './types.ts';

/** Sorting by score (the default): `_score` descending. */
const BY_SCORE: readonly ResolvedSortField[] = [{ kind: 'score', reverse: true }];

export function resolveShardSort(search: ParsedSearch, ctx: ShardSearchContext): readonly ResolvedSortField[] {
  if (search.sort === null || search.sort.length === 0) return BY_SCORE;
  return resolveSort(search.sort, ctx);
}

/**
 * The engine query a parsed query becomes on a shard, built once per request
 * and index: the shards of one index share mapping, analyzers, type and "now",
 * so analysis and date parsing run for the first shard and the others reuse
 * the (immutable) result. Failures are not kept: every shard reports its own.
 */
const builtQueries = new WeakMap<QuerySource, { readonly ctx: ShardSearchContext; readonly query: Query }>();

function engineQuery(source: QuerySource, ctx: ShardSearchContext): Query {
  const built = builtQueries.get(source);
  if (built !== undefined && sameQueryContext(built.ctx, ctx)) return built.query;
  const query = source.toQuery(ctx);
  builtQueries.set(source, { ctx, query });
  return query;
}

function sameQueryContext(a: ShardSearchContext, b: ShardSearchContext): boolean {
  return (
    a.mapping === b.mapping &&
    a.analyzers === b.analyzers &&
    a.nowMillis === b.nowMillis &&
    a.typeName === b.typeName &&
    a.index === b.index &&
    a.indexUuid === b.indexUuid
  );
}

/**
 * `docvalue_fields` that have no field data fail the search as
 * Elasticsearch's fetch phase fails it (MappedFieldType.fielddataBuilder):
 * shapes and ranges have none, text fields only with `fielddata`. Checked
 * here so that a shard fails before any hit is fetched.
 */
function checkDocValueFields(names: readonly string[], mapping: ShardSearchContext['mapping']): void {
  for (const name of names) {
    const fm = mapping.field(name);
    if (fm === undefined) continue;
    if (fm.type === 'text' && fm.fielddata !== true) throw fielddataOnTextField(fm.path);
    if (fm.type === 'geo_shape' || fm.type.endsWith('_range')) {
      throw illegalArgument(`Fielddata is not supported on field [${fm.path}] of type [${fm.mappedType ?? fm.type}]`);
    }
  }
}

function sortNeedsScores(fields: readonly ResolvedSortField[]): boolean {
  return fields.some((f) => f.kind === 'score');
}

export function executeQueryPhase(
  snapshot: SearcherSnapshot,
  search: ParsedSearch,
  ctx: ShardSearchContext,
  opts: QueryPhaseOptions,
): ShardQueryResult {
  const query = engineQuery(search.query, ctx);
  const postFilter = search.postFilter === null ? null : engineQuery(search.postFilter, ctx);
  const fields = resolveShardSort(search, ctx);
  if (opts.size > 0) checkDocValueFields(search.docvalueFields, ctx.mapping);
  const sortedByField = search.sort !== null && search.sort.length > 0;
  const needScores = sortNeedsScores(fields) || search.trackScores || search.minScore !== null;
  if (search.collapse !== null) {
    checkCollapseField(ctx.mapping, search.collapse.field);
    // a field alias collapses on its target
    const collapseField = ctx.mapping.field(search.collapse.field)?.path ?? search.collapse.field;
    const hits = collapsedQueryPhase(snapshot, query, postFilter, fields, needScores, collapseField, opts.size, ctx);
    if (opts.collectMatches !== true) return hits;
    // Aggregations see every match, not one per group.
    const all = executeQueryPhase(snapshot, { ...search, collapse: null }, ctx, { size: 0, collectMatches: true });
    return { ...hits, matches: all.matches };
  }
  const collector = new TopDocsCollector(fields, Math.max(0, opts.size));
  const nFields = fields.length;

  // The cursor: a scroll's last hit, or search_after (ties with it count as already seen).
  const after = opts.after ?? null;
  if (after !== null || search.searchAfter !== null) {
    const values = after !== null ? after.sortValues : search.searchAfter;
    const slot = collector.afterSlot;
    if (values !== null && values.length !== nFields && sortedByField) {
      throw illegalArgument(`search_after has ${values.length} value(s) but sort has ${nFields}.`);
    }
    for (let i = 0; i < nFields; i++) {
      const field = fields[i]!;
      if (field.kind === 'score' && (values === null || !sortedByField)) {
        collector.setNum(slot, i, after !== null ? after.score : Number(values?.[i] ?? NaN));
        continue;
      }
      const k = keyFromSortValue(field, values === null ? null : (values[i] ?? null), after === null);
      collector.setNum(slot, i, k.num);
      collector.setStr(slot, i, k.str);
    }
    collector.docs[slot] = after !== null ? after.doc : Infinity;
    collector.hasAfter = true;
  }

  if (isDocOrderStream(fields, search, needScores, opts)) {
    return streamInDocOrder(snapshot, search, ctx, query, opts.size, after === null ? -1 : after.doc);
  }

  const stats = new ShardTermStats(snapshot);
  const matches: MatchSet[] | null = opts.collectMatches === true ? [] : null;
  const minScore = search.minScore;
  const terminateAfter = search.terminateAfter;
  let collected = 0;
  let terminated = false;
  const first = fields[0]!;
  const hits: SegmentHits = { total: 0, maxScore: -Infinity };
  const arena = acquireArena();

  try {
    for (const view of snapshot.views) {
      if (terminated) break;
      if (view.numDocs === 0) continue;
      arena.reset();
      const seg = view.segment;
      const segCtx: SegmentEvalContext = { view, segment: seg, stats, filterCache: ctx.filterCache, arena };
      const set = evaluate(query, segCtx, needScores);
      // A shared set (filter cache) is copied only when something below changes it.
      let bits = set.bits;
      let owned = set.mutable;
      if (!owned && (view.liveDocs !== null || minScore !== null || terminateAfter > 0)) {
        bits = copyBits(bits);
        owned = true;
      }
      if (view.liveDocs !== null) andInto(bits, view.liveDocs);
      const scores = set.scores;
      const constant = set.constant;
      if (minScore !== null) dropBelowMinScore(bits, scores, constant, minScore);
      if (terminateAfter > 0) {
        // Collection stops after `terminate_after` docs (EarlyTerminatingCollector).
        collected = keepFirst(bits, terminateAfter - collected);
        if (collected < 0) {
          collected = terminateAfter;
          terminated = true;
        } else collected = terminateAfter - collected;
      }
      if (matches !== null) {
        let matchScores: Float32Array | null = null;
        if (needScores && opts.matchScores !== false) {
          matchScores = new Float32Array(seg.maxDoc);
          if (scores === null) matchScores.fill(constant);
          else matchScores.set(scores.subarray(0, seg.maxDoc));
        }
        // Nothing changes `bits` after this unless a post filter copies them first.
        matches.push({ view, bits, scores: matchScores, owned });
        owned = false;
      }
      if (postFilter !== null) {
        if (!owned) bits = bits.slice();
        andInto(bits, evaluate(postFilter, segCtx, false).bits);
      }

      if (scores === null && collector.cap === 0 && !collector.hasAfter) {
        // Counting only.
        const n = cardinality(bits);
        hits.total += n;
        if (n > 0 && needScores && constant > hits.maxScore) hits.maxScore = constant;
        if (owned) giveBits(bits);
        continue;
      }
      const docBase = view.docBase;
      if (!needScores && scores === null && nFields === 1 && first.kind === 'numeric' && collector.cap > 0 && !collector.hasAfter) {
        const numeric = numericKeys(first, seg);
        if (numeric !== null) {
          const collect = collector.cap >= GATHER_FROM_SIZE ? gatherByNumericKey : collectByNumericKey;
          hits.total += collect(bits, numeric.values, numeric.missing, first.reverse, collector, docBase);
          if (owned) giveBits(bits);
          continue;
        }
      }
      const readers: SegmentKeyReader[] = fields.map((f) => keyReader(f, seg));
      // Constant-score docs in score order: once the queue is full, later docs tie and lose on doc id.
      const constantByScore = scores === null && !sortedByField && !collector.hasAfter;
      collectSegmentHits(bits, scores, constant, constantByScore, needScores, fields, readers, collector, docBase, hits);
      if (owned) giveBits(bits);
    }
  } catch (err) {
    collector.release();
    throw err;
  } finally {
    releaseArena(arena);
  }
  const total = hits.total;
  const maxScore = hits.maxScore;
  const slots = collector.sortedSlots();
  const docs = new Int32Array(slots.length);
  const scores = new Float32Array(slots.length);
  const column = sortedByField && nFields === 1 ? numericColumn(first, collector, slots) : null;
  const sortValues: SortValue[][] | null = sortedByField && column === null ? [] : null;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    docs[i] = collector.docs[slot]!;
    scores[i] = needScores ? collector.scores[slot]! : NaN;
    if (sortValues !== null) {
      const row: SortValue[] = [];
      for (let k = 0; k < nFields; k++) {
        const field = fields[k]!;
        if (field.kind === 'string' || field.kind === 'id') row.push(collector.str(slot, k));
        else row.push(numericSortValue(field, collector.num(slot, k)));
      }
      sortValues.push(row);
    }
  }
  const result = {
    totalHits: total,
    maxScore: needScores && total > 0 ? maxScore : NaN,
    docs,
    scores,
    sortValues,
    terminatedEarly: terminateAfter > 0 ? terminated : null,
    matches,
  };
  return column === null ? result : withColumn(result, column);
}

/**
 * The sort values of a one-field numeric sort as a column, when every one
 * is a number other than NaN (a long field's missing values print as
 * strings): a shard's top 1,000 by time then travels as one Float64Array
 * without a row per hit first. Null otherwise.
 */
function numericColumn(field: ResolvedSortField, collector: TopDocsCollector, slots: readonly number[]): Float64Array | null {
  if (field.kind === 'string' || field.kind === 'id') return null;
  const out = new Float64Array(slots.length);
  for (let i = 0; i < slots.length; i++) {
    const v = numericSortValue(field, collector.num(slots[i]!, 0));
    if (typeof v !== 'number' || Number.isNaN(v)) return null;
    out[i] = v;
  }
  return out;
}

/** `result` with `sortColumn`, its rows made when `sortValues` is first read. */
function withColumn(result: Omit<ShardQueryResult, 'sortValues'>, column: Float64Array): ShardQueryResult {
  let rows: SortValue[][] | null = null;
  return {
    ...result,
    sortColumn: column,
    get sortValues(): SortValue[][] {
      if (rows === null) {
        rows = new Array<SortValue[]>(column.length);
        for (let i = 0; i < column.length; i++) rows[i] = [column[i]!];
      }
      return rows;
    },
  };
}

/** Clears the bits of docs scoring below `minScore`. */
function dropBelowMinScore(bits: Uint32Array, scores: Float64Array | null, constant: number, minScore: number): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const b = lowestBit(word);
      word &= word - 1;
      const s = scores === null ? constant : scores[(w << 5) + b]!;
      if (s < minScore) bits[w]! &= ~(1 << b);
    }
  }
}

/**
 * Keeps the first `room` set bits and clears the rest; returns the room left
 * (room minus the bits kept), or -1 when some bit was cleared.
 */
function keepFirst(bits: Uint32Array, room: number): number {
  let cleared = false;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const b = lowestBit(word);
      word &= word - 1;
      if (room > 0) room--;
      else {
        bits[w]! &= ~(1 << b);
        cleared = true;
      }
    }
  }
  return cleared ? -1 : room;
}

/** The running count and best score of a query phase, across segments. */
interface SegmentHits {
  total: number;
  maxScore: number;
}

/** A single-valued numeric sort field's values on a segment, or null (multi-valued, or another kind of reader). */
function numericKeys(field: ResolvedSortField, seg: Segment): { values: NumericArray; missing: number } | null {
  if (field.kind !== 'numeric') return null;
  const reader = keyReader(field, seg);
  return reader instanceof SingleNumericKeys ? { values: reader.values, missing: reader.missing } : null;
}

/**
 * Top-N by one single-valued numeric key without scores (a filter sorted by
 * time: the pass records' fragment search), as one small loop the compiler
 * optimises once: a doc whose key sorts after the worst kept one is only
 * counted. Returns the docs counted.
 */
function collectByNumericKey(bits: Uint32Array, values: NumericArray, missing: number, reverse: boolean, collector: TopDocsCollector, docBase: number): number {
  const stage = collector.stage;
  let total = 0;
  let full = collector.isFull();
  let worst = full ? collector.worstNum(0) : 0;
  // Words whose every value sorts after the worst kept one are only counted.
  const bounds = wordBounds(values);
  const best = reverse ? bounds.max : bounds.min;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    if (word === 0) continue;
    if (full && (reverse ? best[w]! < worst : best[w]! > worst)) {
      total += popcount32(word);
      continue;
    }
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      total++;
      let k = values[d]!;
      if (k !== k) k = missing;
      // A doc whose key sorts strictly after the worst kept one cannot enter a full queue.
      if (full && (reverse ? k < worst : k > worst)) continue;
      collector.setNum(stage, 0, k);
      collector.docs[stage] = docBase + d;
      collector.scores[stage] = 0;
      collector.offerStaged();
      if (!full) full = collector.isFull();
      if (full) worst = collector.worstNum(0);
    }
  }
  return total;
}

/** From this many hits a page on, collection by one numeric key gathers candidates (TopDocsCollector.gather) instead of keeping a heap. */
const GATHER_FROM_SIZE = 128;

/**
 * collectByNumericKey for large pages (a shard's top 1,000 by time): each
 * candidate is appended unordered and the candidates are ordered once at
 * the end (TopDocsCollector.gather) instead of going through a heap of
 * 1,000. Returns the docs counted.
 */
function gatherByNumericKey(bits: Uint32Array, values: NumericArray, missing: number, reverse: boolean, collector: TopDocsCollector, docBase: number): number {
  let total = 0;
  let bound = collector.gatherBound;
  const bounds = wordBounds(values);
  const best = reverse ? bounds.max : bounds.min;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    if (word === 0) continue;
    if (reverse ? best[w]! < bound : best[w]! > bound) {
      total += popcount32(word);
      continue;
    }
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      total++;
      let k = values[d]!;
      if (k !== k) k = missing;
      if (reverse ? k < bound : k > bound) continue;
      if (collector.gather(k, docBase + d)) bound = collector.gatherBound;
    }
  }
  return total;
}

/** Every other top-N collection over one segment's matches. */
function collectSegmentHits(
  bits: Uint32Array,
  scores: Float64Array | null,
  constant: number,
  constantByScore: boolean,
  needScores: boolean,
  fields: readonly ResolvedSortField[],
  readers: readonly SegmentKeyReader[],
  collector: TopDocsCollector,
  docBase: number,
  hits: SegmentHits,
): void {
  const stage = collector.stage;
  const nFields = fields.length;
  const first = fields[0]!;
  const firstNumeric = first.kind === 'score' || first.kind === 'doc' || first.kind === 'numeric';
  let total = 0;
  let maxScore = hits.maxScore;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    if (word !== 0 && scores === null && collector.cap === 0 && !collector.hasAfter) {
      total += cardinality(bits.subarray(w));
      if (needScores && constant > maxScore) maxScore = constant;
      break;
    }
    if (constantByScore && word !== 0 && collector.isFull() && constant <= collector.worstNum(0)) {
      total += cardinality(bits.subarray(w));
      if (needScores && constant > maxScore) maxScore = constant;
      break;
    }
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      const score = scores === null ? constant : scores[d]!;
      total++;
      if (needScores && score > maxScore) maxScore = score;
      if (collector.cap === 0) continue;
      if (firstNumeric) {
        // A doc whose first key sorts strictly after the worst kept one cannot enter a full queue.
        const k = first.kind === 'score' ? score : first.kind === 'doc' ? docBase + d : readers[0]!.numeric(d);
        if (collector.isFull()) {
          const worst = collector.worstNum(0);
          if (first.reverse ? k < worst : k > worst) continue;
        }
        collector.setNum(stage, 0, k);
      }
      for (let i = firstNumeric ? 1 : 0; i < nFields; i++) {
        const field = fields[i]!;
        if (field.kind === 'score') collector.setNum(stage, i, score);
        else if (field.kind === 'doc') collector.setNum(stage, i, docBase + d);
        else if (field.kind === 'numeric') collector.setNum(stage, i, readers[i]!.numeric(d));
        else collector.setStr(stage, i, readers[i]!.string(d));
      }
      collector.docs[stage] = docBase + d;
      collector.scores[stage] = score;
      collector.offerStaged();
    }
  }
  hits.total += total;
  hits.maxScore = maxScore;
}

/**
 * `sort: ["_doc"]` without scores, post filter, min_score or terminate_after:
 * the hits are simply the first `size` matches after the cursor in doc
 * order. Counting is a popcount and collecting stops once the page is full,
 * so a scroll reads each page in time proportional to the page, not to the
 * shard (the cheap path DESIGN.md promises for scroll with `_doc`).
 */
function isDocOrderStream(fields: readonly ResolvedSortField[], search: ParsedSearch, needScores: boolean, opts: QueryPhaseOptions): boolean {
  return (
    fields.length === 1 &&
    fields[0]!.kind === 'doc' &&
    !fields[0]!.reverse &&
    !needScores &&
    search.postFilter === null &&
    search.minScore === null &&
    search.terminateAfter === 0 &&
    search.searchAfter === null &&
    opts.collectMatches !== true
  );
}

function streamInDocOrder(
  snapshot: SearcherSnapshot,
  search: ParsedSearch,
  ctx: ShardSearchContext,
  query: Query,
  size: number,
  afterDoc: number,
): ShardQueryResult {
  const stats = new ShardTermStats(snapshot);
  const out: number[] = [];
  let total = 0;
  const arena = acquireArena();
  try {
    for (const view of snapshot.views) {
      if (view.numDocs === 0) continue;
      arena.reset();
      const seg = view.segment;
      const set = evaluate(query, { view, segment: seg, stats, filterCache: ctx.filterCache, arena }, false);
      const bits = set.mutable ? set.bits : set.bits.slice();
      if (view.liveDocs !== null) andInto(bits, view.liveDocs);
      total += cardinality(bits);
      if (out.length >= size || afterDoc >= view.docBase + seg.maxDoc) continue;
      const from = Math.max(0, afterDoc + 1 - view.docBase);
      for (let w = from >>> 5; w < bits.length && out.length < size; w++) {
        let word = bits[w]!;
        if (w === from >>> 5) word &= ~((1 << (from & 31)) - 1);
        while (word !== 0 && out.length < size) {
          const d = (w << 5) + lowestBit(word);
          word &= word - 1;
          out.push(view.docBase + d);
        }
      }
    }
  } finally {
    releaseArena(arena);
  }
  const docs = Int32Array.from(out);
  // No sort value rows: in `_doc` order a hit's sort value is its doc (mergeTopHits makes the rows of the page).
  return { totalHits: total, maxScore: NaN, docs, scores: new Float32Array(docs.length).fill(NaN), sortValues: null, terminatedEarly: null, matches: null };
}
