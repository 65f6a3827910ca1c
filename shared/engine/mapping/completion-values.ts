/**
 * A completion field's value in a document (CompletionFieldMapper.parse): a
 * string, an array of strings and objects, or `{input, weight}` where
 * `input` is a string or an array of strings and `weight` an integer in
 * [0, 2^31-1] (a number or a string holding one; default 1). An input is cut
 * to `max_input_length` UTF-16 units (not inside a surrogate pair); an input
 * given twice keeps its highest weight. Each input comes out as one string,
 * `<weight>\u0000<input>`, which the segment builder turns into a term of
 * the field (shared/engine/suggest/completion-terms.ts).
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import { xContentTokenName as tokenName } from '../../json/token-names.ts';

const MAX_WEIGHT = 2147483647;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function weightOf(v: unknown): number {
  let n: number;
  if (typeof v === 'string') {
    if (!/^[+-]?\d+$/.test(v.trim())) throw illegalArgument(`weight must be an integer, but was [${v}]`);
    n = Number(v.trim());
  } else if (typeof v === 'number' || typeof v === 'bigint') {
    n = Number(v);
    if (!Number.isInteger(n)) throw illegalArgument(`weight must be an integer, but was [${String(v)}]`);
  } else {
    throw illegalArgument(`weight must be a number or string, but was [${tokenName(v)}]`);
  }
  if (n < 0 || n > MAX_WEIGHT) throw illegalArgument(`weight must be in the interval [0..2147483647], but was [${n}]`);
  return n;
}

/** Lucene's SuggestField refuses its reserved characters in an input. */
function checkInput(input: string): void {
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c === 0x1f || c === 0x1e || c === 0x00) {
      throw illegalArgument(`Illegal input [${input}] reserved character [0x${c.toString(16)}] at position ${i}`);
    }
  }
}

function truncate(input: string, max: number): string {
  if (input.length <= max) return input;
  let len = max;
  const last = input.charCodeAt(len - 1);
  if (last >= 0xd800 && last <= 0xdbff) len += 1;
  return input.slice(0, len);
}

/** The `<weight>\u0000<input>` values of one completion value (null values are skipped, as Elasticsearch skips them). */
export function completionValues(raw: unknown, maxInputLength: number): string[] {
  const inputs = new Map<string, number>();
  const add = (input: string, weight: number): void => {
    if (input.trim() === '') return;
    checkInput(input);
    const cut = truncate(input, maxInputLength);
    const known = inputs.get(cut);
    if (known === undefined || known < weight) inputs.set(cut, weight);
  };
  const one = (v: unknown): void => {
    if (v === null) return;
    if (typeof v === 'string') {
      add(v, 1);
      return;
    }
    if (!isObject(v)) throw illegalArgument(`failed to parse: expected text or object, but got ${tokenName(v)}`);
    let list: string[] = [];
    let weight = 1;
    for (const key of Object.keys(v)) {
      const x = v[key];
      if (key === 'input') {
        if (typeof x === 'string') list = [x];
        else if (Array.isArray(x)) {
          list = x.map((i) => {
            if (typeof i !== 'string') throw illegalArgument(`input array must have string values, but was [${tokenName(i)}]`);
            return i;
          });
        } else throw illegalArgument(`input must be a string or an array of strings, but was [${tokenName(x)}]`);
      } else if (key === 'weight') {
        weight = weightOf(x);
      } else if (key === 'contexts') {
        throw illegalArgument('contexts field is not supported for this completion field');
      } else {
        throw illegalArgument(`unknown field name [${key}], must be one of [input, weight, contexts]`);
      }
    }
    for (const input of list) add(input, weight);
  };
  if (Array.isArray(raw)) for (const v of raw) one(v);
  else one(raw);
  return [...inputs].map(([input, weight]) => `${weight}\u0000${input}`);
}
