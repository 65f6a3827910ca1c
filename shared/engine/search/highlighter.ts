/**
 * Highlighting of one field of one hit (Elasticsearch's `plain` and
 * `unified` highlighters): the field's values analyzed again from the
 * stored source (field-tokens.ts), the tokens that match the query's terms
 * for that field marked, overlapping marks merged (an n-gram field
 * highlights `A12` in `京A12345` as one span, `京<em>A12</em>345`), and the
 * text cut into fragments:
 *
 * - unified: sentences (a sentence longer than `fragment_size` is cut at a
 *   word boundary after it), as its sentence BreakIterator does;
 * - plain: runs of tokens of about `fragment_size` characters.
 *
 * The best `number_of_fragments` fragments are kept (most distinct terms,
 * then most matches), in text order unless `order: score`;
 * `number_of_fragments: 0` highlights each matching value whole.
 */
import type { FieldToken } from './field-tokens.ts';
import type { Query } from './query.ts';
import type { ResolvedHighlight } from './highlight-options.ts';
import { compileWildcard, wildcardMatches } from './term-scan.ts';
import { luceneRegex } from '../regex/lucene-regex.ts';
import { boundedEditDistance } from './fuzzy-terms.ts';

/** What of a query highlights a field: exact terms, term predicates (prefix, wildcard, range) and phrases. */
export interface FieldTerms {
  readonly terms: Set<string>;
  readonly predicates: ((term: string) => boolean)[];
  readonly phrases: { readonly terms: readonly string[]; readonly positions: readonly number[]; readonly slop: number }[];
}

function emptyTerms(): FieldTerms {
  return { terms: new Set(), predicates: [], phrases: [] };
}

/**
 * The terms of `q` that highlight `field`; with `anyField` (require_field_match
 * false) the terms of every field count.
 */
export function termsForField(q: Query, field: string, anyField: boolean, out: FieldTerms = emptyTerms()): FieldTerms {
  const mine = (f: string) => anyField || f === field;
  switch (q.kind) {
    case 'term':
      if (mine(q.field)) out.terms.add(q.term);
      break;
    case 'synonym':
    case 'term_set':
      if (mine(q.field)) for (const t of q.terms) out.terms.add(t);
      break;
    case 'phrase':
      if (mine(q.field)) out.phrases.push({ terms: q.terms, positions: q.positions, slop: q.slop });
      break;
    case 'prefix':
      if (mine(q.field)) {
        const p = q.prefix;
        out.predicates.push((t) => t.startsWith(p));
      }
      break;
    case 'wildcard':
      if (mine(q.field)) {
        const w = compileWildcard(q.pattern);
        out.predicates.push((t) => wildcardMatches(w, t));
      }
      break;
    case 'regexp':
      if (mine(q.field)) {
        const re = luceneRegex(q.pattern);
        out.predicates.push((t) => re.matches(t));
      }
      break;
    case 'fuzzy':
      if (mine(q.field)) {
        const query = [...q.term].map((c) => c.codePointAt(0)!);
        const prefix = [...q.term].slice(0, q.prefixLength).join('');
        out.predicates.push(
          (t) => t.startsWith(prefix) && boundedEditDistance(query, [...t].map((c) => c.codePointAt(0)!), q.maxEdits, q.transpositions) <= q.maxEdits,
        );
      }
      break;
    case 'term_range':
      if (mine(q.field)) {
        const { lower, upper, includeLower, includeUpper } = q;
        out.predicates.push(
          (t) => (lower === null || (includeLower ? t >= lower : t > lower)) && (upper === null || (includeUpper ? t <= upper : t < upper)),
        );
      }
      break;
    case 'bool':
      for (const c of [...q.must, ...q.filter, ...q.should]) termsForField(c, field, anyField, out);
      break;
    case 'dis_max':
      for (const c of q.queries) termsForField(c, field, anyField, out);
      break;
    case 'constant_score':
      termsForField(q.filter, field, anyField, out);
      break;
    default:
      break;
  }
  return out;
}

export function hasTerms(t: FieldTerms): boolean {
  return t.terms.size > 0 || t.predicates.length > 0 || t.phrases.length > 0;
}

/** Indices of the tokens the terms match (phrase terms only where the phrase occurs). */
function matchedTokens(tokens: readonly FieldToken[], terms: FieldTerms): Set<number> {
  const out = new Set<number>();
  tokens.forEach((tok, i) => {
    if (terms.terms.has(tok.term) || terms.predicates.some((p) => p(tok.term))) out.add(i);
  });
  if (terms.phrases.length > 0) {
    const byPosition = new Map<number, number[]>();
    tokens.forEach((tok, i) => {
      const list = byPosition.get(tok.position);
      if (list) list.push(i);
      else byPosition.set(tok.position, [i]);
    });
    const at = (pos: number, term: string): number => (byPosition.get(pos) ?? []).find((i) => tokens[i]!.term === term) ?? -1;
    for (const ph of terms.phrases) {
      const first = ph.terms[0];
      if (first === undefined) continue;
      tokens.forEach((tok, i) => {
        if (tok.term !== first) return;
        const hit = [i];
        for (let k = 1; k < ph.terms.length; k++) {
          const want = tok.position + (ph.positions[k]! - ph.positions[0]!);
          let found = -1;
          for (let d = 0; d <= ph.slop && found < 0; d++) {
            found = at(want + d, ph.terms[k]!);
            if (found < 0 && d > 0) found = at(want - d, ph.terms[k]!);
          }
          if (found < 0) return;
          hit.push(found);
        }
        for (const h of hit) out.add(h);
      });
    }
  }
  return out;
}

interface Span {
  start: number;
  end: number;
  readonly term: string;
}

/** Matched spans of one value, overlapping ones merged. */
function spansOf(tokens: readonly FieldToken[], matched: Set<number>, value: number): Span[] {
  const raw: Span[] = [];
  tokens.forEach((t, i) => {
    if (t.value === value && matched.has(i)) raw.push({ start: t.start, end: t.end, term: t.term });
  });
  raw.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [];
  for (const s of raw) {
    const last = out[out.length - 1];
    if (last !== undefined && s.start < last.end) {
      if (s.end > last.end) last.end = s.end;
    } else out.push({ ...s });
  }
  return out;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

function render(text: string, from: number, to: number, spans: readonly Span[], opts: ResolvedHighlight): string {
  const enc = opts.encoder === 'html' ? escapeHtml : (s: string) => s;
  const pre = opts.preTags[0] ?? '<em>';
  const post = opts.postTags[0] ?? '</em>';
  let out = '';
  let pos = from;
  for (const s of spans) {
    if (s.end <= from || s.start >= to) continue;
    const a = Math.max(s.start, from);
    const b = Math.min(s.end, to);
    out += enc(text.slice(pos, a)) + pre + enc(text.slice(a, b)) + post;
    pos = b;
  }
  return out + enc(text.slice(pos, to));
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Sentence ranges of a text: a sentence ends after `.`, `!` or `?` followed by white space (or the end). */
function sentences(text: string): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  while (start < text.length && isSpace(text[start])) start++;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if ((c === '.' || c === '!' || c === '?' || c === '。' || c === '！' || c === '？') && (i + 1 === text.length || isSpace(text[i + 1]) || c.charCodeAt(0) > 0x3000)) {
      let end = i + 1;
      while (end < text.length && isSpace(text[end])) end++;
      out.push([start, end]);
      start = end;
      i = end - 1;
    }
  }
  if (start < text.length) out.push([start, text.length]);
  return out;
}

/** The first word boundary at or after `from` (end of text when none). */
function wordEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !isSpace(text[i])) i++;
  return i;
}

/** Candidate fragments of one value, as [start, end) ranges. */
function fragmentsOf(text: string, tokens: readonly FieldToken[], value: number, spans: readonly Span[], opts: ResolvedHighlight): [number, number][] {
  const size = Math.max(1, opts.fragmentSize);
  if (opts.type === 'plain') {
    const out: [number, number][] = [];
    let start = 0;
    for (const t of tokens) {
      if (t.value !== value) continue;
      if (t.end - start > size && t.start > start) {
        out.push([start, t.start]);
        start = t.start;
      }
    }
    out.push([start, text.length]);
    return out.map(([a, b]) => {
      let e = b;
      while (e > a && isSpace(text[e - 1])) e--;
      return [a, e] as [number, number];
    });
  }
  const out: [number, number][] = [];
  for (const [a, b] of sentences(text)) {
    if (b - a <= size) {
      out.push([a, b]);
      continue;
    }
    // A long sentence: a fragment from its first match's word (or its start) to a word boundary after fragment_size.
    const first = spans.find((s) => s.start >= a && s.start < b);
    let from = a;
    if (first !== undefined && first.start - a > size) {
      from = first.start;
      while (from > a && !isSpace(text[from - 1])) from--;
    }
    out.push([from, Math.min(b, wordEnd(text, from + size))]);
  }
  return out;
}

/** The highlighted fragments of a field, or null when nothing matched and no_match_size is 0. */
export function highlightField(values: readonly string[], tokens: readonly FieldToken[], terms: FieldTerms, opts: ResolvedHighlight): string[] | null {
  const matched = matchedTokens(tokens, terms);
  const candidates: { value: number; from: number; to: number; distinct: number; count: number; order: number }[] = [];
  const spansByValue: Span[][] = values.map((_, v) => spansOf(tokens, matched, v));
  values.forEach((text, v) => {
    const spans = spansByValue[v]!;
    if (spans.length === 0) return;
    if (opts.numberOfFragments === 0) {
      candidates.push({ value: v, from: 0, to: text.length, distinct: new Set(spans.map((s) => s.term)).size, count: spans.length, order: candidates.length });
      return;
    }
    for (const [from, to] of fragmentsOf(text, tokens, v, spans, opts)) {
      const inside = spans.filter((s) => s.start < to && s.end > from);
      if (inside.length === 0) continue;
      candidates.push({ value: v, from, to, distinct: new Set(inside.map((s) => s.term)).size, count: inside.length, order: candidates.length });
    }
  });
  if (candidates.length === 0) {
    if (opts.noMatchSize <= 0 || values.length === 0) return null;
    const text = values[0]!;
    let end = Math.min(text.length, opts.noMatchSize);
    if (end < text.length) {
      const lastToken = tokens.filter((t) => t.value === 0 && t.end <= end).pop();
      if (lastToken !== undefined) end = lastToken.end;
    }
    return [render(text, 0, end, [], opts)];
  }
  let chosen = candidates;
  if (opts.numberOfFragments > 0) {
    chosen = [...candidates].sort((a, b) => b.distinct - a.distinct || b.count - a.count || a.order - b.order).slice(0, opts.numberOfFragments);
    if (opts.order !== 'score') chosen.sort((a, b) => a.order - b.order);
  }
  return chosen.map((c) => render(values[c.value]!, c.from, c.to, spansByValue[c.value]!, opts));
}
