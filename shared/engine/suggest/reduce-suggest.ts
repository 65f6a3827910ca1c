/**
 * The coordinator's reduce of the shards' suggestions (Suggest.reduce) and
 * their JSON (Suggest.toXContent): entries are merged position by position,
 * options with the same text merged into one (term: frequencies summed,
 * scores the best; phrase: the best score above the highest cutoff),
 * sorted and cut to `size`. Completion options are the best `size`
 * documents over every shard, by score, without repeating a text when
 * `skip_duplicates` asks. Suggestions are printed sorted by name, as 6.x
 * prints them; with `typed_keys`, as `term#name`, `phrase#name`,
 * `completion#name`.
 */
import { illegalState } from '../../errors/es-errors.ts';
import { formatFloat } from '../search/render-hit.ts';
import type { CompletionOption, PhraseOption, ShardSuggestResult, ShardSuggestion, SuggestEntry, TermOption } from './types.ts';

function byText(a: { text: string }, b: { text: string }): number {
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
}

/** TermSuggestion's SCORE and FREQUENCY comparators. */
function termOrder(sort: 'score' | 'frequency'): (a: TermOption, b: TermOption) => number {
  if (sort === 'frequency') return (a, b) => b.freq - a.freq || b.score - a.score || byText(a, b);
  return (a, b) => b.score - a.score || b.freq - a.freq || byText(a, b);
}

/** Entry i of every shard, checked to be about the same text (Suggestion.Entry.reduce). */
function entriesAt<O>(lists: readonly (readonly SuggestEntry<O>[])[], i: number): SuggestEntry<O>[] {
  const out = lists.map((l) => l[i]).filter((e): e is SuggestEntry<O> => e !== undefined);
  const leader = out[0]!;
  for (const e of out) {
    if (e.text !== leader.text) {
      throw illegalState(
        `Can't merge suggest entries, this might be caused by suggest calls across multiple indices with different analysis chains. Suggest entries have different text actual [${e.text}] expected [${leader.text}]`,
      );
    }
  }
  return out;
}

function reduceTerm(parts: readonly Extract<ShardSuggestion, { type: 'term' }>[]): SuggestEntry<TermOption>[] {
  const first = parts[0]!;
  const n = Math.max(...parts.map((p) => p.entries.length));
  const out: SuggestEntry<TermOption>[] = [];
  for (let i = 0; i < n; i++) {
    const entries = entriesAt(parts.map((p) => p.entries), i);
    const merged = new Map<string, TermOption>();
    for (const e of entries) {
      for (const o of e.options) {
        const m = merged.get(o.text);
        merged.set(o.text, m === undefined ? o : { text: o.text, score: Math.max(m.score, o.score), freq: m.freq + o.freq });
      }
    }
    const options = [...merged.values()].sort(termOrder(first.sort)).slice(0, first.size);
    out.push({ text: entries[0]!.text, offset: entries[0]!.offset, length: entries[0]!.length, options });
  }
  return out;
}

function reducePhrase(parts: readonly Extract<ShardSuggestion, { type: 'phrase' }>[]): SuggestEntry<PhraseOption>[] {
  const first = parts[0]!;
  const n = Math.max(...parts.map((p) => p.entries.length));
  const out: SuggestEntry<PhraseOption>[] = [];
  for (let i = 0; i < n; i++) {
    const entries = entriesAt(parts.map((p) => p.entries), i);
    const cutoff = Math.max(...entries.map((e) => e.cutoffScore ?? Number.MIN_VALUE));
    const merged = new Map<string, PhraseOption>();
    for (const e of entries) {
      for (const o of e.options) {
        const m = merged.get(o.text);
        if (m === undefined || o.score > m.score) merged.set(o.text, m === undefined ? o : { ...m, score: o.score });
      }
    }
    const options = [...merged.values()]
      .filter((o) => o.score > cutoff)
      .sort((a, b) => b.score - a.score)
      .slice(0, first.size);
    out.push({ text: entries[0]!.text, offset: entries[0]!.offset, length: entries[0]!.length, options });
  }
  return out;
}

function reduceCompletion(parts: readonly Extract<ShardSuggestion, { type: 'completion' }>[]): SuggestEntry<CompletionOption>[] {
  const first = parts[0]!;
  const entries = entriesAt(parts.map((p) => p.entries), 0);
  const all = entries
    .flatMap((e) => e.options)
    .sort((a, b) => b.score - a.score || a.shardOrder - b.shardOrder || a.doc - b.doc);
  const options: CompletionOption[] = [];
  const seen = new Set<string>();
  for (const o of all) {
    if (options.length >= first.size) break;
    if (first.skipDuplicates) {
      if (seen.has(o.text)) continue;
      seen.add(o.text);
    }
    options.push(o);
  }
  return [{ text: entries[0]!.text, offset: entries[0]!.offset, length: entries[0]!.length, options }];
}

function optionJson(type: ShardSuggestion['type'], o: TermOption | PhraseOption | CompletionOption): string {
  if (type === 'term') {
    const t = o as TermOption;
    return `{"text":${JSON.stringify(t.text)},"score":${formatFloat(t.score)},"freq":${t.freq}}`;
  }
  if (type === 'phrase') {
    const p = o as PhraseOption;
    const hl = p.highlighted === null ? '' : `,"highlighted":${JSON.stringify(p.highlighted)}`;
    return `{"text":${JSON.stringify(p.text)}${hl},"score":${formatFloat(p.score)}}`;
  }
  const c = o as CompletionOption;
  const source = c.source === null ? '' : `,"_source":${c.source}`;
  return `{"text":${JSON.stringify(c.text)},"_index":${JSON.stringify(c.index)},"_type":${JSON.stringify(c.type)},"_id":${JSON.stringify(c.id)},"_score":${formatFloat(c.score)}${source}}`;
}

/**
 * The `suggest` object of a search response as JSON text, from the answers
 * of the shards that answered (each a list in request order).
 */
export function reduceSuggestToJson(shards: readonly ShardSuggestResult[], opts: { typedKeys: boolean }): string {
  if (shards.length === 0) return '{}';
  const names = shards[0]!.map((s) => s.name);
  const parts: string[] = [];
  const order = names.map((name, i) => ({ name, i })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, i } of order) {
    const per = shards.map((s) => s[i]!);
    const type = per[0]!.type;
    let entries: SuggestEntry<TermOption | PhraseOption | CompletionOption>[];
    if (type === 'term') entries = reduceTerm(per as Extract<ShardSuggestion, { type: 'term' }>[]);
    else if (type === 'phrase') entries = reducePhrase(per as Extract<ShardSuggestion, { type: 'phrase' }>[]);
    else entries = reduceCompletion(per as Extract<ShardSuggestion, { type: 'completion' }>[]);
    const key = opts.typedKeys ? `${type}#${name}` : name;
    const body = entries
      .map((e) => `{"text":${JSON.stringify(e.text)},"offset":${e.offset},"length":${e.length},"options":[${e.options.map((o) => optionJson(type, o)).join(',')}]}`)
      .join(',');
    parts.push(`${JSON.stringify(key)}:[${body}]`);
  }
  return `{${parts.join(',')}}`;
}
