/**
 * The subset of Painless that bucket_selector and bucket_script conditions
 * use, parsed and evaluated here (never `eval`): number literals, `params.x` /
 * `params['x']`, `true`, `false`, `null`, arithmetic `+ - * / %`, comparisons,
 * `==`/`!=`, `&&`, `||`, `!`, `? :` and parentheses, with an optional leading
 * `return` and trailing `;`. moving_fn scripts (context `moving_fn`) also
 * read `values` (the window, a double[]: `values.length`, `values[i]`) and
 * call `MovingFunctions.*` (moving-functions.ts), and any script may use
 * `Double.NaN`. Anything else (other variables, method calls, assignments,
 * loops) is a compile error, as an unknown construct would be.
 *
 * Integer literals are Java ints (`7 / 2` is 3); bucket values arrive as
 * doubles, so `params.a / params.b` divides as doubles, as in Painless.
 */
import { EsError, illegalArgument } from '../../errors/es-errors.ts';
import { MOVING_FUNCTIONS, type MovingFunctionName } from './moving-functions.ts';

/** Where a script runs: bucket_selector / bucket_script, or moving_fn (which has `values`). */
export type ScriptContext = 'bucket' | 'moving_fn';

type Node =
  | { readonly k: 'num'; readonly v: number; readonly int: boolean }
  | { readonly k: 'bool'; readonly v: boolean }
  | { readonly k: 'null' }
  | { readonly k: 'param'; readonly name: string }
  | { readonly k: 'unary'; readonly op: '!' | '-' | '+'; readonly e: Node }
  | { readonly k: 'bin'; readonly op: string; readonly l: Node; readonly r: Node }
  | { readonly k: 'cond'; readonly c: Node; readonly t: Node; readonly f: Node }
  | { readonly k: 'values' }
  | { readonly k: 'length'; readonly e: Node }
  | { readonly k: 'index'; readonly e: Node; readonly i: Node }
  | { readonly k: 'call'; readonly fn: MovingFunctionName; readonly args: readonly Node[] };

export interface CompiledScript {
  readonly source: string;
  readonly lang: string;
  /** Script `params` (user constants), merged under the buckets_path variables. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly ast: Node;
}

interface Token {
  readonly t: 'num' | 'id' | 'str' | 'op' | 'eof';
  readonly v: string;
  readonly pos: number;
}

const OPS = ['&&', '||', '==', '!=', '<=', '>=', '===', '!==', '<', '>', '+', '-', '*', '/', '%', '!', '(', ')', '.', '[', ']', '?', ':', ';', ','];

function scriptError(reason: string, source: string, pos: number, cause: string): EsError {
  const before = source.slice(Math.max(0, pos - 25), pos);
  const stack = [source.slice(Math.max(0, pos - 25), pos + 25), `${' '.repeat(before.length)}^---- HERE`];
  return new EsError('script_exception', reason, 400, { script_stack: stack, script: source, lang: 'painless' }, illegalArgument(cause));
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[dDfFlL]?/.exec(src.slice(i))!;
      out.push({ t: 'num', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw scriptError('compile error', src, i, `unterminated string at [${i}]`);
      out.push({ t: 'str', v: src.slice(i + 1, end), pos: i });
      i = end + 1;
      continue;
    }
    const op = OPS.filter((o) => src.startsWith(o, i)).sort((a, b) => b.length - a.length)[0];
    if (op === undefined) throw scriptError('compile error', src, i, `unexpected character ['${c}'].`);
    out.push({ t: 'op', v: op, pos: i });
    i += op.length;
  }
  out.push({ t: 'eof', v: '<EOF>', pos: src.length });
  return out;
}

class Parser {
  private i = 0;
  constructor(
    private readonly toks: Token[],
    private readonly src: string,
    private readonly context: ScriptContext,
  ) {}

  private peek(): Token {
    return this.toks[this.i]!;
  }

  private next(): Token {
    return this.toks[this.i++]!;
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }

  private expect(v: string): void {
    const t = this.next();
    if (t.t !== 'op' || t.v !== v) this.fail(t, `unexpected token ['${t.v}'] was expecting one of [${v}].`);
  }

  fail(t: Token, cause: string): never {
    throw scriptError('compile error', this.src, t.pos, cause);
  }

  program(): Node {
    const first = this.peek();
    if (first.t === 'id' && first.v === 'return') this.next();
    const e = this.expr();
    while (this.isOp(';')) this.next();
    const t = this.peek();
    if (t.t !== 'eof') this.fail(t, `unexpected token ['${t.v}'] was expecting one of [<EOF>].`);
    return e;
  }

  private expr(): Node {
    const c = this.or();
    if (this.isOp('?')) {
      this.next();
      const t = this.expr();
      this.expect(':');
      const f = this.expr();
      return { k: 'cond', c, t, f };
    }
    return c;
  }

  private binary(next: () => Node, ops: readonly string[]): Node {
    let l = next();
    while (this.peek().t === 'op' && ops.includes(this.peek().v)) {
      const op = this.next().v;
      const r = next();
      l = { k: 'bin', op, l, r };
    }
    return l;
  }

  private or = (): Node => this.binary(this.and, ['||']);
  private and = (): Node => this.binary(this.equality, ['&&']);
  private equality = (): Node => this.binary(this.relational, ['==', '!=', '===', '!==']);
  private relational = (): Node => this.binary(this.additive, ['<', '<=', '>', '>=']);
  private additive = (): Node => this.binary(this.multiplicative, ['+', '-']);
  private multiplicative = (): Node => this.binary(this.unary, ['*', '/', '%']);

  private unary = (): Node => {
    const t = this.peek();
    if (t.t === 'op' && (t.v === '!' || t.v === '-' || t.v === '+')) {
      this.next();
      return { k: 'unary', op: t.v, e: this.unary() };
    }
    return this.postfix(this.primary());
  };

  /** `values.length` and `values[i]`. */
  private postfix(e: Node): Node {
    if (e.k !== 'values' || !(this.isOp('.') || this.isOp('['))) return e;
    if (this.next().v === '.') {
      const id = this.next();
      if (id.t !== 'id' || id.v !== 'length') this.fail(id, `Unknown field [${id.v}] for type [double[]].`);
      return { k: 'length', e };
    }
    const i = this.expr();
    this.expect(']');
    return { k: 'index', e, i };
  }

  /** `MovingFunctions.name(args)`. */
  private movingFunction(at: Token): Node {
    this.expect('.');
    const id = this.next();
    if (id.t !== 'id') this.fail(id, `unexpected token ['${id.v}'] was expecting one of [ID].`);
    this.expect('(');
    const args: Node[] = [];
    if (!this.isOp(')')) {
      args.push(this.expr());
      while (this.isOp(',')) {
        this.next();
        args.push(this.expr());
      }
    }
    this.expect(')');
    const arity = Object.prototype.hasOwnProperty.call(MOVING_FUNCTIONS, id.v) ? MOVING_FUNCTIONS[id.v as MovingFunctionName].arity : -1;
    if (arity !== args.length) this.fail(at, `Unknown call [${id.v}] with [${args.length}] arguments on type [MovingFunctions].`);
    return { k: 'call', fn: id.v as MovingFunctionName, args };
  }

  private primary(): Node {
    const t = this.next();
    if (t.t === 'num') {
      const text = t.v.replace(/[lL]$/, '');
      const isDouble = /[.eEdDfF]/.test(text);
      const v = Number(text.replace(/[dDfF]$/, ''));
      if (!isDouble && !(v <= 2147483647)) this.fail(t, `Invalid int constant [${t.v}].`);
      return { k: 'num', v, int: !isDouble };
    }
    if (t.t === 'op' && t.v === '(') {
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.t === 'id') {
      if (t.v === 'true' || t.v === 'false') return { k: 'bool', v: t.v === 'true' };
      if (t.v === 'null') return { k: 'null' };
      if (t.v === 'params') return this.paramAccess(t);
      if (t.v === 'values' && this.context === 'moving_fn') return { k: 'values' };
      if (t.v === 'MovingFunctions' && this.context === 'moving_fn') return this.movingFunction(t);
      if (t.v === 'Double' && this.isOp('.')) {
        this.next();
        const f = this.next();
        if (f.t === 'id' && f.v === 'NaN') return { k: 'num', v: NaN, int: false };
        this.fail(f, `Unknown field [${f.v}] for type [Double].`);
      }
      this.fail(t, `Variable [${t.v}] is not defined.`);
    }
    this.fail(t, `unexpected token ['${t.v}'] was expecting one of [{<EOF>, ';'}].`);
  }

  private paramAccess(at: Token): Node {
    let name: string;
    if (this.isOp('.')) {
      this.next();
      const id = this.next();
      if (id.t !== 'id') this.fail(id, `unexpected token ['${id.v}'] was expecting one of [ID].`);
      name = id.v;
    } else if (this.isOp('[')) {
      this.next();
      const s = this.next();
      if (s.t !== 'str') this.fail(s, `unexpected token ['${s.v}'] was expecting one of [STRING].`);
      name = s.v;
      this.expect(']');
    } else {
      this.fail(at, 'the whole [params] map cannot be used as a value in this expression language.');
    }
    const after = this.peek();
    if (after.t === 'op' && (after.v === '.' || after.v === '[' || after.v === '(')) {
      this.fail(after, 'method calls and field access on params values are not supported in this expression language.');
    }
    return { k: 'param', name };
  }
}

/** Parses a script once; throws Elasticsearch's `script_exception` (compile error) for anything outside the subset. */
export function compileScript(source: string, lang: string, params: Readonly<Record<string, unknown>>, context: ScriptContext = 'bucket'): CompiledScript {
  if (lang !== 'painless' && lang !== 'expression') {
    throw illegalArgument(`script_lang not supported [${lang}]`);
  }
  const ast = new Parser(tokenize(source), source, context).program();
  return { source, lang, params, ast };
}

interface Val {
  readonly v: number | boolean | null | readonly number[];
  readonly int: boolean;
}

/** What a script reads besides its params: buckets_path variables, and moving_fn's window. */
interface Env {
  readonly vars: ReadonlyMap<string, number>;
  readonly values: readonly number[];
}

const NULL: Val = { v: null, int: false };
const TRUE: Val = { v: true, int: false };
const FALSE: Val = { v: false, int: false };

function runtimeError(script: CompiledScript, cause: string): EsError {
  return new EsError('script_exception', 'runtime error', 400, { script_stack: [], script: script.source, lang: script.lang }, illegalArgument(cause));
}

function toVal(x: unknown, script: CompiledScript, name: string): Val {
  if (x === null || x === undefined) return NULL;
  if (typeof x === 'number') return { v: x, int: false };
  if (typeof x === 'boolean') return x ? TRUE : FALSE;
  throw runtimeError(script, `params value [${name}] is not a number or a boolean`);
}

function num(x: Val, script: CompiledScript, op: string): number {
  if (typeof x.v === 'number') return x.v;
  if (x.v === null) throw runtimeError(script, `null operand of [${op}]`);
  throw runtimeError(script, `Cannot apply [${op}] to types [boolean] and [number].`);
}

function bool(x: Val, script: CompiledScript, op: string): boolean {
  if (typeof x.v === 'boolean') return x.v;
  throw runtimeError(script, `Cannot cast to [boolean] for [${op}].`);
}

/** User params are Java values: integral numbers are ints/longs. */
function userParam(x: unknown, script: CompiledScript, name: string): Val {
  const v = toVal(x, script, name);
  return typeof v.v === 'number' && Number.isInteger(v.v) ? { v: v.v, int: true } : v;
}

function evalNode(n: Node, env: Env, script: CompiledScript): Val {
  switch (n.k) {
    case 'num':
      return { v: n.v, int: n.int };
    case 'bool':
      return n.v ? TRUE : FALSE;
    case 'null':
      return NULL;
    case 'param': {
      const v = env.vars.get(n.name);
      if (v !== undefined) return { v, int: false };
      if (Object.prototype.hasOwnProperty.call(script.params, n.name)) return userParam(script.params[n.name], script, n.name);
      return NULL;
    }
    case 'unary': {
      const e = evalNode(n.e, env, script);
      if (n.op === '!') return bool(e, script, '!') ? FALSE : TRUE;
      const x = num(e, script, n.op);
      return { v: n.op === '-' ? (e.int ? -x | 0 : -x) : x, int: e.int };
    }
    case 'cond':
      return bool(evalNode(n.c, env, script), script, '?') ? evalNode(n.t, env, script) : evalNode(n.f, env, script);
    case 'bin':
      return evalBinary(n.op, n.l, n.r, env, script);
    case 'values':
      return { v: env.values, int: false };
    case 'length':
      return { v: env.values.length, int: true };
    case 'index': {
      const i = num(evalNode(n.i, env, script), script, '[]');
      if (!Number.isInteger(i) || i < 0 || i >= env.values.length) {
        throw runtimeError(script, `Index ${i} out of bounds for length ${env.values.length}`);
      }
      return { v: env.values[i]!, int: false };
    }
    case 'call': {
      const args = n.args.map((a) => evalNode(a, env, script).v);
      const argError = (x: unknown, what: string): EsError => runtimeError(script, `${what} expected for [MovingFunctions.${n.fn}], got [${x === null ? 'null' : typeof x}]`);
      try {
        return { v: MOVING_FUNCTIONS[n.fn].call(args, argError), int: false };
      } catch (err) {
        // MovingFunctions' IllegalArgumentException (too few values for holtWinters)
        if (err instanceof RangeError) throw runtimeError(script, err.message);
        throw err;
      }
    }
  }
}

function evalBinary(op: string, ln: Node, rn: Node, env: Env, script: CompiledScript): Val {
  if (op === '&&') {
    if (!bool(evalNode(ln, env, script), script, op)) return FALSE;
    return bool(evalNode(rn, env, script), script, op) ? TRUE : FALSE;
  }
  if (op === '||') {
    if (bool(evalNode(ln, env, script), script, op)) return TRUE;
    return bool(evalNode(rn, env, script), script, op) ? TRUE : FALSE;
  }
  const l = evalNode(ln, env, script);
  const r = evalNode(rn, env, script);
  if (op === '==' || op === '===' || op === '!=' || op === '!==') {
    const eq = l.v === r.v || (typeof l.v === 'number' && typeof r.v === 'number' && l.v === r.v);
    return (op === '==' || op === '===') === eq ? TRUE : FALSE;
  }
  const a = num(l, script, op);
  const b = num(r, script, op);
  const int = l.int && r.int;
  switch (op) {
    case '<':
      return a < b ? TRUE : FALSE;
    case '<=':
      return a <= b ? TRUE : FALSE;
    case '>':
      return a > b ? TRUE : FALSE;
    case '>=':
      return a >= b ? TRUE : FALSE;
    case '+':
      return { v: int ? (a + b) | 0 : a + b, int };
    case '-':
      return { v: int ? (a - b) | 0 : a - b, int };
    case '*':
      return { v: int ? Math.imul(a, b) : a * b, int };
    case '/':
      if (int) {
        if (b === 0) throw runtimeError(script, '/ by zero');
        return { v: Math.trunc(a / b) | 0, int };
      }
      return { v: a / b, int };
    case '%':
      if (int && b === 0) throw runtimeError(script, '/ by zero');
      return { v: a % b, int };
    default:
      throw runtimeError(script, `unsupported operator [${op}]`);
  }
}

/** Runs a script with the buckets_path variables (doubles); returns its value. */
export function runScript(script: CompiledScript, vars: ReadonlyMap<string, number>): number | boolean | null {
  const v = evalNode(script.ast, { vars, values: [] }, script).v;
  if (typeof v === 'object' && v !== null) throw runtimeError(script, 'Cannot cast from [double[]] to [double].');
  return v;
}

/** Runs a moving_fn script over one window; its value must be a number (MovingFunctionScript returns a double). */
export function runMovingFunction(script: CompiledScript, values: readonly number[]): number {
  const v = evalNode(script.ast, { vars: new Map(), values }, script).v;
  if (typeof v !== 'number') throw runtimeError(script, `Cannot cast from [${v === null ? 'null' : typeof v === 'boolean' ? 'boolean' : 'double[]'}] to [double].`);
  return v;
}
