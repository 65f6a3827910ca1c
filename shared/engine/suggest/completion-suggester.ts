/**
 * The `completion` suggester (CompletionSuggester over a completion field):
 * the documents whose inputs complete the text, scored by the input's
 * weight, best first, one option per document (its best input), at most
 * `size` per shard. The text is analyzed with the field's search analyzer
 * into a key prefix; the matching inputs are the range of the field's term
 * dictionary that starts with it (completion-terms.ts), in every segment of
 * the snapshot, deleted documents left out. `fuzzy` also completes keys
 * whose start is within `fuzziness` edits of the prefix (the first
 * `prefix_length` characters exact, no edits below `min_length`), scored
 * as Lucene's FuzzyCompletionQuery scores them (the weight times the length
 * of the exact part); `regex` completes keys that start with a match of a
 * Lucene regular expression (run by the linear-time engine).
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import { luceneRegex } from '../regex/lucene-regex.ts';
import type { LinearRegex } from '../regex/linear-regex.ts';
import { filterSource } from '../search/source-filter.ts';
import { boundedPrefixEditDistance } from '../search/fuzzy-terms.ts';
import { idOf } from '../segment/types.ts';
import { completionKey, parseCompletionTerm } from './completion-terms.ts';
import type { SuggestShardContext } from './shard-context.ts';
import type { CompletionFuzzySpec, CompletionOption, CompletionSuggestSpec, ShardSuggestion } from './types.ts';

interface Match {
  readonly input: string;
  readonly key: string;
  readonly score: number;
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const c of s) out.push(c.codePointAt(0)!);
  return out;
}

/** Fuzziness.asDistance() without a text (FuzzyOptions): AUTO counts five characters. */
function maxEditsOf(f: CompletionFuzzySpec): number {
  const auto = /^AUTO(?::(\d+),(\d+))?$/i.exec(f.fuzziness);
  if (auto !== null) {
    const low = auto[1] === undefined ? 3 : Number(auto[1]);
    const high = auto[2] === undefined ? 6 : Number(auto[2]);
    return 5 < low ? 0 : 5 < high ? 1 : 2;
  }
  return Math.min(2, Math.trunc(Number(f.fuzziness)));
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** CompletionScorer.score: the weight, boosted by the exact part of a fuzzy match. */
function boosted(weight: number, boost: number): number {
  if (boost === 0) return weight;
  if (weight === 0) return boost;
  return weight * boost;
}

export function runCompletionSuggester(spec: CompletionSuggestSpec, text: string, ctx: SuggestShardContext): ShardSuggestion {
  const fm = ctx.mapping.field(spec.field);
  if (fm === undefined || fm.type === 'object') throw illegalArgument(`no mapping found for field [${spec.field}]`);
  if (fm.type !== 'completion' || fm.completion === undefined) throw illegalArgument(`Field [${spec.field}] is not a completion suggest field`);
  const opts = fm.completion;
  const analyzerName = spec.analyzer ?? fm.searchAnalyzer ?? fm.analyzer ?? 'simple';
  const analyzer = ctx.analyzers.get(analyzerName);
  if (analyzer === undefined) throw illegalArgument(`analyzer [${analyzerName}] doesn't exists`);

  let regex: LinearRegex | null = null;
  let prefix = '';
  if (spec.regex !== null) regex = luceneRegex(`(${spec.regex}).*`);
  else prefix = completionKey(text, analyzer, opts);

  const fuzzy = spec.fuzzy;
  const maxEdits = fuzzy === null ? 0 : maxEditsOf(fuzzy);
  const prefixCps = codePoints(prefix);
  const useFuzzy = fuzzy !== null && maxEdits > 0 && prefixCps.length >= fuzzy.minLength;
  // The part of the prefix a fuzzy match must have exactly: the dictionary range to read.
  const exact = useFuzzy ? String.fromCodePoint(...prefixCps.slice(0, Math.min(fuzzy!.prefixLength, prefixCps.length))) : regex !== null ? '' : prefix;

  const perDoc = new Map<number, Match>();
  for (const view of ctx.snapshot.views) {
    const inv = view.segment.inverted.get(fm.path); // a field alias completes from its target
    if (inv === undefined) continue;
    const dict = inv.terms;
    for (let t = exact === '' ? 0 : dict.lowerBound(exact); t < dict.length; t++) {
      if (exact !== '' && !dict.startsWith(t, exact)) break;
      const entry = parseCompletionTerm(dict.get(t));
      let score: number;
      if (regex !== null) {
        if (!regex.matches(entry.key)) continue;
        score = entry.weight;
      } else if (useFuzzy) {
        const ed = boundedPrefixEditDistance(prefixCps, codePoints(entry.key), maxEdits, fuzzy!.transpositions);
        if (ed > maxEdits) continue;
        score = boosted(entry.weight, Math.min(commonPrefix(prefix, entry.key), prefix.length));
      } else {
        if (!entry.key.startsWith(prefix)) continue;
        score = entry.weight;
      }
      const cursor = inv.postings(t);
      while (cursor.nextBlock()) {
        for (let i = 0; i < cursor.count; i++) {
          const local = cursor.docs[i]!;
          if (view.liveDocs !== null && (view.liveDocs[local >>> 5]! & (1 << (local & 31))) === 0) continue;
          const doc = view.docBase + local;
          const known = perDoc.get(doc);
          if (known === undefined || score > known.score || (score === known.score && entry.key < known.key)) perDoc.set(doc, { input: entry.input, key: entry.key, score });
        }
      }
    }
  }

  const ranked = [...perDoc].sort((a, b) => b[1].score - a[1].score || (a[1].key < b[1].key ? -1 : a[1].key > b[1].key ? 1 : 0) || a[0] - b[0]);
  const options: CompletionOption[] = [];
  const seen = new Set<string>();
  for (const [doc, m] of ranked) {
    if (options.length >= spec.size) break;
    if (spec.skipDuplicates) {
      if (seen.has(m.input)) continue;
      seen.add(m.input);
    }
    options.push({
      text: m.input,
      index: ctx.index,
      type: ctx.typeName,
      id: idOfDoc(ctx, doc),
      score: Math.fround(m.score),
      source: ctx.source.fetch ? sourceOf(ctx, doc) : null,
      shardOrder: 0,
      doc,
    });
  }
  return { type: 'completion', name: spec.name, size: spec.size, skipDuplicates: spec.skipDuplicates, entries: [{ text, offset: 0, length: text.length, options }] };
}

function viewOf(ctx: SuggestShardContext, doc: number) {
  for (const v of ctx.snapshot.views) if (doc >= v.docBase && doc < v.docBase + v.segment.maxDoc) return v;
  throw new RangeError(`doc ${doc} is not in this snapshot`);
}

function idOfDoc(ctx: SuggestShardContext, doc: number): string {
  const v = viewOf(ctx, doc);
  return idOf(v.segment, doc - v.docBase);
}

function sourceOf(ctx: SuggestShardContext, doc: number): string {
  const v = viewOf(ctx, doc);
  const stored = v.segment.stored.document(doc - v.docBase);
  return filterSource(Buffer.from(stored.source.buffer, stored.source.byteOffset, stored.source.length), ctx.source.includes, ctx.source.excludes);
}
