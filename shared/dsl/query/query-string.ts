/**
 * `query_string` (and the URI `q=` parameter): a practical subset of Lucene's
 * classic query syntax as Elasticsearch 6.8 runs it — `field:value`, quoted
 * phrases (`"a b"~2`), `AND`/`OR`/`NOT`/`&&`/`||`/`!`, `+`/`-`, parentheses,
 * `^boost`, wildcards (`ba*`, `b?r`), regular expressions (`/joh?n(ath[oa]n)/`),
 * ranges (`[a TO b]`, `{a TO *}`, `>=5`), `_exists_:field`. Clause occurrence follows QueryParserBase.addClause, so
 * `a AND b OR c` means what it means in Lucene.
 */
import { EsError, javaCause, queryShardException } from '../../errors/es-errors.ts';
import { MATCH_NONE } from '../../engine/search/query.ts';
import type { Query } from '../../engine/search/query.ts';
import type { ShardSearchContext } from '../../engine/search/types.ts';
import { analyzedQueryFor, prefixQueryFor, rangeQueryFor, regexpQueryFor, wildcardQueryFor, withBoost } from './field-queries.ts';
import { luceneRegex } from '../../engine/regex/lucene-regex.ts';
import { calculateMinShouldMatch } from './minimum-should-match.ts';
import type { Operator, QueryStringBuilder } from './query-builders.ts';
import { existsFields, resolveFields } from './resolve-fields.ts';

type Tok =
  | { t: 'term'; text: string; wildcard: boolean }
  | { t: 'phrase'; text: string }
  | { t: 'regexp'; text: string }
  | { t: 'range'; lower: string | null; upper: string | null; incLower: boolean; incUpper: boolean }
  | { t: 'cmp'; op: '>' | '>=' | '<' | '<='; value: string }
  | { t: 'colon' }
  | { t: 'lparen' }
  | { t: 'rparen' }
  | { t: 'plus' }
  | { t: 'minus' }
  | { t: 'not' }
  | { t: 'and' }
  | { t: 'or' }
  | { t: 'boost'; value: number }
  | { t: 'slop'; value: number };

const SPECIAL = new Set([' ', '\t', '\n', '\r', '(', ')', ':', '^', '"', '[', ']', '{', '}', '~']);

/** How deep `(` may nest in a query string (the queries they make are walked recursively, as the request's JSON is). */
const MAX_PAREN_DEPTH = 100;

/** Lucene's ParseException (the cause of the query_shard_exception built below). */
function syntaxError(query: string, why: string): EsError {
  return javaCause('parse_exception', `Cannot parse '${query}': ${why}`);
}

function tokenize(query: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = query.length;
  const readWord = (): { text: string; wildcard: boolean } => {
    let text = '';
    let wildcard = false;
    while (i < n) {
      const c = query[i]!;
      if (c === '\\' && i + 1 < n) {
        text += query[i + 1]!;
        i += 2;
        continue;
      }
      if (SPECIAL.has(c)) break;
      if (c === '*' || c === '?') wildcard = true;
      text += c;
      i++;
    }
    return { text, wildcard };
  };
  while (i < n) {
    const c = query[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '(') {
      out.push({ t: 'lparen' });
      i++;
    } else if (c === ')') {
      out.push({ t: 'rparen' });
      i++;
    } else if (c === ':') {
      out.push({ t: 'colon' });
      i++;
    } else if (c === '+') {
      out.push({ t: 'plus' });
      i++;
    } else if (c === '-') {
      out.push({ t: 'minus' });
      i++;
    } else if (c === '!') {
      out.push({ t: 'not' });
      i++;
    } else if (c === '&' && query[i + 1] === '&') {
      out.push({ t: 'and' });
      i += 2;
    } else if (c === '|' && query[i + 1] === '|') {
      out.push({ t: 'or' });
      i += 2;
    } else if (c === '^' || c === '~') {
      i++;
      const m = /^\d+(\.\d+)?/.exec(query.slice(i));
      const value = m === null ? (c === '~' ? 2 : 1) : Number(m[0]);
      if (m !== null) i += m[0].length;
      out.push(c === '^' ? { t: 'boost', value } : { t: 'slop', value });
    } else if (c === '"') {
      let text = '';
      i++;
      while (i < n && query[i] !== '"') {
        if (query[i] === '\\' && i + 1 < n) i++;
        text += query[i]!;
        i++;
      }
      if (i >= n) throw syntaxError(query, 'Lexical error: unterminated quoted string');
      i++;
      out.push({ t: 'phrase', text });
    } else if (c === '/') {
      // Lucene's REGEXPTOKEN: from a `/` to the next one not escaped (`\/` is a slash in the pattern).
      let text = '';
      i++;
      while (i < n && query[i] !== '/') {
        if (query[i] === '\\' && query[i + 1] === '/') i++;
        text += query[i]!;
        i++;
      }
      if (i >= n) throw syntaxError(query, 'Lexical error: unterminated regular expression');
      i++;
      out.push({ t: 'regexp', text });
    } else if (c === '[' || c === '{') {
      const close = query.slice(i + 1).search(/[\]}]/);
      if (close < 0) throw syntaxError(query, 'Encountered "<EOF>"');
      const body = query.slice(i + 1, i + 1 + close);
      const endChar = query[i + 1 + close]!;
      const m = /^\s*(\S+)\s+TO\s+(\S+)\s*$/.exec(body);
      if (m === null) throw syntaxError(query, `Encountered "${body}"`);
      const bound = (s: string): string | null => (s === '*' ? null : s.replace(/^"(.*)"$/, '$1'));
      out.push({ t: 'range', lower: bound(m[1]!), upper: bound(m[2]!), incLower: c === '[', incUpper: endChar === ']' });
      i += close + 2;
    } else if ((c === '>' || c === '<') && out.length > 0 && out[out.length - 1]!.t === 'colon') {
      const op = query[i + 1] === '=' ? (`${c}=` as '>=' | '<=') : (c as '>' | '<');
      i += op.length;
      const w = readWord();
      out.push({ t: 'cmp', op, value: w.text });
    } else {
      const w = readWord();
      if (w.text === '') {
        i++;
        continue;
      }
      if (w.text === 'AND') out.push({ t: 'and' });
      else if (w.text === 'OR') out.push({ t: 'or' });
      else if (w.text === 'NOT') out.push({ t: 'not' });
      else out.push({ t: 'term', text: w.text, wildcard: w.wildcard });
    }
  }
  return out;
}

const CONJ_NONE = 0;
const CONJ_AND = 1;
const CONJ_OR = 2;
const MOD_NONE = 0;
const MOD_NOT = 10;
const MOD_REQ = 11;

type Occur = 'must' | 'should' | 'must_not';
interface Clause {
  q: Query;
  occur: Occur;
}

class QueryStringParser {
  private pos = 0;
  private readonly lenient: boolean;
  private readonly defaultFields: [string, number][];

  constructor(
    private readonly toks: Tok[],
    private readonly source: string,
    private readonly b: QueryStringBuilder,
    private readonly ctx: ShardSearchContext,
  ) {
    const specs: (readonly [string, number])[] = b.fields.length > 0 ? [...b.fields] : [[b.defaultField ?? '*', 1]];
    const resolved = resolveFields(ctx, specs);
    this.defaultFields = resolved.fields;
    this.lenient = b.lenient ?? resolved.allFields;
  }

  private peek(): Tok | undefined {
    return this.toks[this.pos];
  }

  /** Parentheses open at this point of the parse. */
  private depth = 0;

  parseTop(): Query {
    const q = this.parseQuery(null);
    if (this.pos < this.toks.length) throw syntaxError(this.source, `Encountered " ")" ") "" at line 1`);
    return q;
  }

  /** Query := Modifiers Clause (Conjunction Modifiers Clause)* */
  private parseQuery(field: string | null): Query {
    const clauses: Clause[] = [];
    let first: Query | null = null;
    let isFirst = true;
    while (this.pos < this.toks.length && this.peek()!.t !== 'rparen') {
      let conj = CONJ_NONE;
      const t = this.peek()!;
      if (t.t === 'and') {
        conj = CONJ_AND;
        this.pos++;
      } else if (t.t === 'or') {
        conj = CONJ_OR;
        this.pos++;
      }
      let mods = MOD_NONE;
      const m = this.peek();
      if (m?.t === 'plus') {
        mods = MOD_REQ;
        this.pos++;
      } else if (m?.t === 'minus' || m?.t === 'not') {
        mods = MOD_NOT;
        this.pos++;
      }
      if (this.pos >= this.toks.length) throw syntaxError(this.source, 'Encountered "<EOF>" at line 1');
      const q = this.parseClause(field);
      this.addClause(clauses, conj, mods, q);
      if (isFirst && conj === CONJ_NONE && mods === MOD_NONE) first = q;
      isFirst = false;
    }
    if (clauses.length === 1 && first !== null) return first;
    return this.booleanOf(clauses);
  }

  private booleanOf(clauses: Clause[]): Query {
    if (clauses.length === 0) return MATCH_NONE;
    return {
      kind: 'bool',
      must: clauses.filter((c) => c.occur === 'must').map((c) => c.q),
      filter: [],
      should: clauses.filter((c) => c.occur === 'should').map((c) => c.q),
      mustNot: clauses.filter((c) => c.occur === 'must_not').map((c) => c.q),
      minimumShouldMatch: 0,
      boost: 1,
    };
  }

  /** QueryParserBase.addClause. */
  private addClause(clauses: Clause[], conj: number, mods: number, q: Query): void {
    const and = this.b.defaultOperator === 'AND';
    const last = clauses[clauses.length - 1];
    if (last !== undefined && conj === CONJ_AND && last.occur !== 'must_not') last.occur = 'must';
    if (last !== undefined && and && conj === CONJ_OR && last.occur !== 'must_not') last.occur = 'should';
    let required: boolean;
    const prohibited = mods === MOD_NOT;
    if (!and) {
      required = mods === MOD_REQ || (conj === CONJ_AND && !prohibited);
    } else {
      required = !prohibited && conj !== CONJ_OR;
    }
    if (required && !prohibited) clauses.push({ q, occur: 'must' });
    else if (!required && !prohibited) clauses.push({ q, occur: 'should' });
    else clauses.push({ q, occur: 'must_not' });
  }

  /** Clause := [field ':'] (Term | '(' Query ')') ['^' boost] */
  private parseClause(field: string | null): Query {
    let t = this.peek()!;
    let fieldName = field;
    if (t.t === 'term' && this.toks[this.pos + 1]?.t === 'colon') {
      fieldName = t.text;
      this.pos += 2;
      t = this.peek() ?? { t: 'rparen' };
    }
    if (t.t === 'lparen') {
      this.pos++;
      // Lucene's recursive parser would overflow its stack on thousands of `(`; so would this one.
      if (++this.depth > MAX_PAREN_DEPTH) throw syntaxError(this.source, `parentheses nested deeper than ${MAX_PAREN_DEPTH}`);
      const inner = this.parseQuery(fieldName);
      this.depth--;
      if (this.peek()?.t !== 'rparen') throw syntaxError(this.source, 'Encountered "<EOF>" at line 1');
      this.pos++;
      return withBoost(inner, this.readBoost());
    }
    this.pos++;
    let q: Query;
    switch (t.t) {
      case 'term':
        q = fieldName === '_exists_' ? this.exists(t.text) : this.termQuery(fieldName, t.text, t.wildcard);
        break;
      case 'phrase': {
        let slop = this.b.phraseSlop;
        const s = this.peek();
        if (s?.t === 'slop') {
          slop = s.value;
          this.pos++;
        }
        q = this.analyzed(fieldName, t.text, true, slop);
        break;
      }
      case 'regexp':
        q = this.regexp(fieldName, t.text);
        break;
      case 'range':
        q = this.range(fieldName, t.lower, t.upper, t.incLower, t.incUpper);
        break;
      case 'cmp':
        q =
          t.op === '>' || t.op === '>='
            ? this.range(fieldName, t.value, null, t.op === '>=', true)
            : this.range(fieldName, null, t.value, true, t.op === '<=');
        break;
      default:
        throw syntaxError(this.source, `Encountered " "${t.t}" "`);
    }
    if (this.peek()?.t === 'slop') this.pos++;
    return withBoost(q, this.readBoost());
  }

  private readBoost(): number {
    const b = this.peek();
    if (b?.t === 'boost') {
      this.pos++;
      return Math.fround(b.value);
    }
    return 1;
  }

  private fieldsFor(field: string | null): [string, number][] {
    if (field === null) return this.defaultFields;
    if (field === '*' || field === '_all' || field.includes('*')) return resolveFields(this.ctx, [[field, 1]]).fields;
    return [[field, 1]];
  }

  /** Per-field queries combined as a dis_max (best_fields with the tie breaker). */
  private perField(field: string | null, make: (f: string) => Query): Query {
    const queries: Query[] = [];
    for (const [f, boost] of this.fieldsFor(field)) {
      let q: Query;
      try {
        q = make(f);
      } catch (e) {
        if (this.lenient && e instanceof EsError) continue;
        throw e;
      }
      if (q.kind !== 'match_none') queries.push(withBoost(q, boost));
    }
    if (queries.length === 0) return MATCH_NONE;
    if (queries.length === 1) return queries[0]!;
    return { kind: 'dis_max', queries, tieBreaker: this.b.tieBreaker, boost: 1 };
  }

  private analyzed(field: string | null, text: string, phrase: boolean, slop: number): Query {
    const operator: Operator = this.b.defaultOperator;
    return this.perField(field, (f) =>
      analyzedQueryFor(
        this.ctx,
        f,
        text,
        { operator, analyzer: this.b.analyzer, minimumShouldMatch: null, lenient: this.lenient, zeroTermsQuery: 'NONE', phrase, slop },
        1,
      ),
    );
  }

  private termQuery(field: string | null, text: string, wildcard: boolean): Query {
    if (!wildcard) return this.analyzed(field, text, false, 0);
    if (text === '*' && field !== null) return this.exists(field);
    return this.perField(field, (f) => {
      const fm = this.ctx.mapping.field(f);
      // Wildcard terms are normalized (lowercased) on text fields, as the analyzer's normalizer does.
      const pattern = fm?.type === 'text' ? text.toLowerCase() : text;
      if (/^[^*?]*\*$/.test(pattern)) return prefixQueryFor(this.ctx, f, pattern.slice(0, -1), 1);
      return wildcardQueryFor(this.ctx, f, pattern, 1);
    });
  }

  private regexp(field: string | null, text: string): Query {
    return this.perField(field, (f) => {
      const fm = this.ctx.mapping.field(f);
      // Normalized (lowercased) on text fields, as wildcard terms are.
      const pattern = fm?.type === 'text' ? text.toLowerCase() : text;
      luceneRegex(pattern);
      return regexpQueryFor(this.ctx, f, pattern, 1);
    });
  }

  private range(field: string | null, lower: string | null, upper: string | null, incLower: boolean, incUpper: boolean): Query {
    return this.perField(field, (f) =>
      rangeQueryFor(this.ctx, f, { from: lower, to: upper, includeLower: incLower, includeUpper: incUpper, timeZone: null, format: null }, 1),
    );
  }

  private exists(field: string): Query {
    const fields = existsFields(this.ctx, field);
    if (fields.length === 0) return MATCH_NONE;
    return { kind: 'exists', fields, boost: 1 };
  }
}

export function buildQueryString(b: QueryStringBuilder, ctx: ShardSearchContext): Query {
  let q: Query;
  try {
    const toks = tokenize(b.query);
    if (toks.length === 0) return MATCH_NONE;
    q = new QueryStringParser(toks, b.query, b, ctx).parseTop();
  } catch (e) {
    if (e instanceof EsError && e.type === 'parse_exception' && e.javaException) {
      throw queryShardException(`Failed to parse query [${b.query}]`, e, ctx.index, ctx.indexUuid);
    }
    throw e;
  }
  if (b.minimumShouldMatch !== null && q.kind === 'bool') {
    q = { ...q, minimumShouldMatch: Math.max(0, calculateMinShouldMatch(q.should.length, b.minimumShouldMatch)) };
  }
  return withBoost(q, b.boost);
}
