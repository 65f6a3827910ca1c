/**
 * How a completion field keeps its inputs in a segment: one term per
 * (document, input) in the field's own term dictionary, written to and read
 * from the segment files like any keyword field's (postings name the
 * document). The term is `<key>\u0000<input>\u0000<weight>`, where the key
 * is the input analyzed (its tokens joined by 0x1F when
 * `preserve_separators`, a removed position such as a stop word marked by
 * 0x1E when `preserve_position_increments`, as Lucene's CompletionAnalyzer
 * marks them). Terms sort by key, so the inputs a prefix completes are one
 * range of the dictionary, found with `lowerBound`; the input and its
 * weight ride along in the term, so a suggestion needs no other column, and
 * an input's weight belongs to that input (a document may give each of its
 * inputs another weight). Inputs never hold 0x00, 0x1E or 0x1F
 * (mapping/completion-values.ts refuses them, as Lucene does).
 */
import type { Analyzer } from '../analysis/types.ts';
import type { CompletionOptions } from '../mapping/types.ts';

const SEP = '\u001f';
const HOLE = '\u001e';
const END = '\u0000';

/** The analyzed key of a text (an input at indexing, a prefix at search time). */
export function completionKey(text: string, analyzer: Analyzer, opts: CompletionOptions): string {
  const sep = opts.preserveSeparators ? SEP : '';
  let out = '';
  let last = -1;
  for (const t of analyzer.analyze(text)) {
    const holes = opts.preservePositionIncrements ? Math.max(0, t.position - last - 1) : 0;
    if (last >= 0 || holes > 0) out += (last >= 0 ? sep : '') + `${HOLE}${sep}`.repeat(holes);
    out += t.token;
    last = t.position;
  }
  return out;
}

/** The term of one input: `value` is `<weight>\u0000<input>` as the document parser gives it. */
export function completionTerm(value: string, analyzer: Analyzer, opts: CompletionOptions): string | null {
  const cut = value.indexOf(END);
  const weight = value.slice(0, cut);
  const input = value.slice(cut + 1);
  const key = completionKey(input, analyzer, opts);
  if (key === '') return null;
  return `${key}${END}${input}${END}${weight}`;
}

export interface CompletionEntry {
  readonly key: string;
  readonly input: string;
  readonly weight: number;
}

export function parseCompletionTerm(term: string): CompletionEntry {
  const a = term.indexOf(END);
  const b = term.lastIndexOf(END);
  return { key: term.slice(0, a), input: term.slice(a + 1, b), weight: Number(term.slice(b + 1)) };
}
