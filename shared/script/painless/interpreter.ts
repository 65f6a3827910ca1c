/**
 * Runs a parsed Painless script: the syntax tree is compiled once into
 * JavaScript closures over a frame of variable slots (never `eval`), then
 * run per document. Deterministic: the language has no clock, no random
 * numbers and no I/O, so every shard copy that runs a script on the same
 * document gets the same result.
 *
 * Loops are bounded as Painless bounds them: at most
 * MAX_LOOP_ITERATIONS iterations per run, then a painless_error.
 */
import { scriptCompileError, scriptRuntimeError, type EsError } from '../../errors/es-errors.ts';
import type { Expr, Stmt } from './ast.ts';
import { STATIC_CLASSES, parseScript } from './parser.ts';
import {
  DateValue,
  DocField,
  DocLookup,
  Lambda,
  METHOD_NAMES,
  PainlessRuntimeError,
  asBoolean,
  asNumber,
  asString,
  callMethod,
  callStatic,
  checkedString,
  compareValues,
  construct,
  getField,
  getIndex,
  isMap,
  javaClass,
  javaString,
  npe,
  setField,
  setIndex,
  valuesEqual,
  type ScriptMap,
  type Value,
} from './values.ts';

/** Painless's loop counter limit (CompilerSettings.maxLoopCounter's default). */
export const MAX_LOOP_ITERATIONS = 1_000_000;

const NORMAL = 0;
const BREAK = 1;
const CONTINUE = 2;
const RETURN = 3;

interface Frame {
  readonly slots: Value[];
  ret: Value;
  /** The value of the last top-level expression statement: a script without `return` returns it. */
  last: Value;
  loops: number;
}

type Ev = (f: Frame) => Value;
type Ex = (f: Frame) => number;

interface Scope {
  readonly parent: Scope | null;
  readonly names: Map<string, { slot: number; floating: boolean }>;
}

/** Declared types whose values divide as doubles. */
const FLOAT_TYPES = new Set(['double', 'float', 'Double', 'Float']);
const INT_TYPES = new Set(['int', 'long', 'short', 'byte', 'Integer', 'Long']);

function at<T>(pos: number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PainlessRuntimeError && err.pos < 0) err.pos = pos;
    throw err;
  }
}

function loopTick(f: Frame): void {
  if (++f.loops > MAX_LOOP_ITERATIONS) {
    throw new PainlessRuntimeError('painless_error', 'The maximum number of statements that can be executed in a loop has been reached.');
  }
}

function isInt(v: number): boolean {
  return Number.isInteger(v);
}

function arithmetic(op: string, a: Value, b: Value, floating: boolean): Value {
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) return checkedString(javaString(a) + javaString(b));
  if ((op === '&' || op === '|' || op === '^') && typeof a === 'boolean' && typeof b === 'boolean') {
    return op === '&' ? a && b : op === '|' ? a || b : a !== b;
  }
  const x = asNumber(a);
  const y = asNumber(b);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      if (!floating && isInt(x) && isInt(y)) {
        if (y === 0) throw new PainlessRuntimeError('arithmetic_exception', '/ by zero');
        return Math.trunc(x / y);
      }
      return x / y;
    case '%':
      if (!floating && isInt(x) && isInt(y) && y === 0) throw new PainlessRuntimeError('arithmetic_exception', '/ by zero');
      return x % y;
    case '&':
      return Number(BigInt.asIntN(64, BigInt(Math.trunc(x)) & BigInt(Math.trunc(y))));
    case '|':
      return Number(BigInt.asIntN(64, BigInt(Math.trunc(x)) | BigInt(Math.trunc(y))));
    case '^':
      return Number(BigInt.asIntN(64, BigInt(Math.trunc(x)) ^ BigInt(Math.trunc(y))));
  }
  throw new PainlessRuntimeError('illegal_argument_exception', `unsupported operator [${op}]`);
}

function compare(op: string, a: Value, b: Value): boolean {
  if (typeof a !== 'number' || typeof b !== 'number') {
    if (a === null || b === null) throw npe();
    // Painless compares numbers only; anything else is a ClassCastException.
    compareValues(asNumber(a), asNumber(b));
  }
  const x = a as number;
  const y = b as number;
  switch (op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    default:
      return x >= y;
  }
}

function cast(type: string, v: Value): Value {
  switch (type) {
    case 'int':
    case 'long':
    case 'short':
    case 'byte':
    case 'Integer':
    case 'Long':
      if (typeof v === 'string' && v.length === 1 && type === 'int') return v.charCodeAt(0);
      return Math.trunc(asNumber(v));
    case 'double':
    case 'float':
    case 'Double':
    case 'Float':
    case 'Number':
      return asNumber(v);
    case 'char':
      if (typeof v === 'number') return String.fromCharCode(v);
      return asString(v);
    case 'String':
      return v === null ? null : asString(v);
    case 'boolean':
    case 'Boolean':
      return asBoolean(v);
    case 'List':
    case 'ArrayList':
    case 'Collection':
      if (v !== null && !Array.isArray(v)) throw new PainlessRuntimeError('class_cast_exception', `Cannot cast ${javaClass(v)} to java.util.List`);
      return v;
    case 'Map':
    case 'HashMap':
    case 'LinkedHashMap':
      if (v !== null && !isMap(v)) throw new PainlessRuntimeError('class_cast_exception', `Cannot cast ${javaClass(v)} to java.util.Map`);
      return v;
    default:
      return v;
  }
}

function instanceOf(v: Value, type: string): boolean {
  if (v === null) return false;
  switch (type) {
    case 'String':
    case 'CharSequence':
      return typeof v === 'string';
    case 'Integer':
    case 'Long':
    case 'Short':
    case 'Byte':
      return typeof v === 'number' && isInt(v);
    case 'Double':
    case 'Float':
      return typeof v === 'number' && !isInt(v);
    case 'Number':
      return typeof v === 'number';
    case 'Boolean':
      return typeof v === 'boolean';
    case 'List':
    case 'ArrayList':
    case 'Collection':
    case 'Iterable':
      return Array.isArray(v) || v instanceof DocField;
    case 'Map':
    case 'HashMap':
    case 'LinkedHashMap':
      return isMap(v);
    case 'def':
    case 'Object':
      return true;
    default:
      return false;
  }
}

function iterate(v: Value): readonly Value[] {
  if (Array.isArray(v)) return [...v];
  if (v instanceof DocField) return v.values;
  if (isMap(v)) return Object.keys(v);
  if (v === null) throw npe();
  throw new PainlessRuntimeError('illegal_argument_exception', `Cannot iterate over [${javaClass(v)}]`);
}

class Compiler {
  private slotCount = 0;

  constructor(private readonly src: string) {}

  get slots(): number {
    return this.slotCount;
  }

  fail(pos: number, cause: string): never {
    throw scriptCompileError(this.src, pos, cause);
  }

  declare(scope: Scope, name: string, pos: number, floating: boolean): number {
    if (scope.names.has(name)) this.fail(pos, `variable [${name}] is already defined`);
    const slot = this.slotCount++;
    scope.names.set(name, { slot, floating });
    return slot;
  }

  lookup(scope: Scope, name: string): { slot: number; floating: boolean } | undefined {
    for (let s: Scope | null = scope; s !== null; s = s.parent) {
      const v = s.names.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /** Whether an expression is statically a double (float literal, cast, declared double): `/` divides as doubles. */
  floating(e: Expr, scope: Scope): boolean {
    switch (e.k) {
      case 'lit':
        return typeof e.v === 'number' && e.int === false;
      case 'cast':
        return FLOAT_TYPES.has(e.type);
      case 'var':
        return this.lookup(scope, e.name)?.floating ?? false;
      case 'bin':
        return this.floating(e.l, scope) || this.floating(e.r, scope);
      case 'unary':
        return this.floating(e.e, scope);
      case 'static':
        return (e.cls === 'Math' && e.name !== 'round' && e.name !== 'abs' && e.name !== 'max' && e.name !== 'min') || e.cls === 'Double' || e.cls === 'Float';
      case 'call':
        return e.name === 'doubleValue' || e.name === 'floatValue';
      default:
        return false;
    }
  }

  block(stmts: readonly Stmt[], scope: Scope): Ex {
    const inner: Scope = { parent: scope, names: new Map() };
    const parts = stmts.map((s) => this.stmt(s, inner, false));
    if (parts.length === 1) return parts[0]!;
    return (f) => {
      for (let i = 0; i < parts.length; i++) {
        const c = parts[i]!(f);
        if (c !== NORMAL) return c;
      }
      return NORMAL;
    };
  }

  stmt(s: Stmt, scope: Scope, topLevel: boolean): Ex {
    switch (s.k) {
      case 'empty':
        return () => NORMAL;
      case 'expr': {
        const e = this.expr(s.e, scope);
        if (topLevel) {
          return (f) => {
            f.last = e(f);
            return NORMAL;
          };
        }
        return (f) => {
          e(f);
          return NORMAL;
        };
      }
      case 'decl': {
        const floating = FLOAT_TYPES.has(s.type);
        const integral = INT_TYPES.has(s.type);
        const parts = s.vars.map((v) => {
          const init = v.init === null ? null : this.expr(v.init, scope);
          const slot = this.declare(scope, v.name, v.pos, floating);
          const dflt: Value = floating || integral ? 0 : s.type === 'boolean' ? false : null;
          const type = s.type;
          return (f: Frame) => {
            f.slots[slot] = init === null ? dflt : at(v.pos, () => cast(type, init(f)));
          };
        });
        return (f) => {
          for (const p of parts) p(f);
          return NORMAL;
        };
      }
      case 'block':
        return this.block(s.body, scope);
      case 'if': {
        const c = this.condition(s.c, scope);
        const then = this.stmt(s.then, { parent: scope, names: new Map() }, false);
        const otherwise = s.else === null ? null : this.stmt(s.else, { parent: scope, names: new Map() }, false);
        return (f) => (c(f) ? then(f) : otherwise === null ? NORMAL : otherwise(f));
      }
      case 'while': {
        const c = this.condition(s.c, scope);
        const body = this.stmt(s.body, { parent: scope, names: new Map() }, false);
        return (f) => {
          while (c(f)) {
            at(s.pos, () => loopTick(f));
            const r = body(f);
            if (r === BREAK) break;
            if (r === RETURN) return RETURN;
          }
          return NORMAL;
        };
      }
      case 'do': {
        const c = this.condition(s.c, scope);
        const body = this.stmt(s.body, { parent: scope, names: new Map() }, false);
        return (f) => {
          do {
            at(s.pos, () => loopTick(f));
            const r = body(f);
            if (r === BREAK) break;
            if (r === RETURN) return RETURN;
          } while (c(f));
          return NORMAL;
        };
      }
      case 'for': {
        const inner: Scope = { parent: scope, names: new Map() };
        const init = s.init === null ? null : this.stmt(s.init, inner, false);
        const c = s.c === null ? null : this.condition(s.c, inner);
        const update = s.update.map((u) => this.expr(u, inner));
        const body = this.stmt(s.body, { parent: inner, names: new Map() }, false);
        return (f) => {
          if (init !== null) init(f);
          while (c === null || c(f)) {
            at(s.pos, () => loopTick(f));
            const r = body(f);
            if (r === BREAK) break;
            if (r === RETURN) return RETURN;
            for (const u of update) u(f);
          }
          return NORMAL;
        };
      }
      case 'foreach': {
        const iterable = this.expr(s.iterable, scope);
        const inner: Scope = { parent: scope, names: new Map() };
        const slot = this.declare(inner, s.name, s.pos, false);
        const body = this.stmt(s.body, { parent: inner, names: new Map() }, false);
        return (f) => {
          const items = at(s.pos, () => iterate(iterable(f)));
          for (const item of items) {
            at(s.pos, () => loopTick(f));
            f.slots[slot] = item;
            const r = body(f);
            if (r === BREAK) break;
            if (r === RETURN) return RETURN;
          }
          return NORMAL;
        };
      }
      case 'return': {
        const e = s.e === null ? null : this.expr(s.e, scope);
        return (f) => {
          f.ret = e === null ? null : e(f);
          return RETURN;
        };
      }
      case 'break':
        return () => BREAK;
      case 'continue':
        return () => CONTINUE;
    }
  }

  condition(e: Expr, scope: Scope): (f: Frame) => boolean {
    const ev = this.expr(e, scope);
    return (f) => at(e.pos, () => asBoolean(ev(f)));
  }

  exprs(list: readonly Expr[], scope: Scope): Ev[] {
    return list.map((a) => this.expr(a, scope));
  }

  expr(e: Expr, scope: Scope): Ev {
    switch (e.k) {
      case 'lit': {
        const v = e.v;
        return () => v;
      }
      case 'var': {
        const v = this.lookup(scope, e.name);
        if (v === undefined) this.fail(e.pos, `cannot resolve symbol [${e.name}]`);
        const slot = v.slot;
        return (f) => f.slots[slot]!;
      }
      case 'field': {
        const obj = this.expr(e.obj, scope);
        const { name, nullSafe, pos } = e;
        return (f) => {
          const o = obj(f);
          if (o === null && nullSafe) return null;
          return at(pos, () => getField(o, name));
        };
      }
      case 'index': {
        const obj = this.expr(e.obj, scope);
        const key = this.expr(e.key, scope);
        return (f) => {
          const o = obj(f);
          const k = key(f);
          return at(e.pos, () => getIndex(o, k));
        };
      }
      case 'call': {
        if (!METHOD_NAMES.has(e.name)) this.fail(e.pos, `Unknown call [${e.name}] with [${e.args.length}] arguments: not in the supported subset of Painless`);
        const obj = this.expr(e.obj, scope);
        const args = this.exprs(e.args, scope);
        const { name, nullSafe, pos } = e;
        return (f) => {
          const o = obj(f);
          if (o === null && nullSafe) return null;
          const vals = args.map((a) => a(f));
          return at(pos, () => callMethod(o, name, vals));
        };
      }
      case 'static': {
        if (!STATIC_CLASSES.has(e.cls)) this.fail(e.pos, `unknown class [${e.cls}]`);
        if (e.cls === 'Math' && e.name === 'random') this.fail(e.pos, 'Math.random() is not supported: a script must give every shard copy the same result');
        const args = e.args === null ? null : this.exprs(e.args, scope);
        const { cls, name, pos } = e;
        return (f) => {
          const vals = args === null ? null : args.map((a) => a(f));
          return at(pos, () => callStatic(cls, name, vals));
        };
      }
      case 'new': {
        const args = this.exprs(e.args, scope);
        return (f) => {
          const vals = args.map((a) => a(f));
          return at(e.pos, () => construct(e.cls, vals));
        };
      }
      case 'list': {
        const items = this.exprs(e.items, scope);
        return (f) => items.map((i) => i(f));
      }
      case 'map': {
        const entries = e.entries.map(([k, v]) => [this.expr(k, scope), this.expr(v, scope)] as const);
        return (f) => {
          const out: ScriptMap = {};
          for (const [k, v] of entries) setIndex(out, k(f), v(f));
          return out;
        };
      }
      case 'unary': {
        const inner = this.expr(e.e, scope);
        switch (e.op) {
          case '!':
            return (f) => at(e.pos, () => !asBoolean(inner(f)));
          case '-':
            return (f) => at(e.pos, () => -asNumber(inner(f)));
          case '+':
            return (f) => at(e.pos, () => asNumber(inner(f)));
          case '~':
            return (f) => at(e.pos, () => ~asNumber(inner(f)));
        }
        break;
      }
      case 'cast': {
        const inner = this.expr(e.e, scope);
        return (f) => at(e.pos, () => cast(e.type, inner(f)));
      }
      case 'bin':
        return this.binary(e, scope);
      case 'and': {
        const l = this.condition(e.l, scope);
        const r = this.condition(e.r, scope);
        return (f) => l(f) && r(f);
      }
      case 'or': {
        const l = this.condition(e.l, scope);
        const r = this.condition(e.r, scope);
        return (f) => l(f) || r(f);
      }
      case 'cond': {
        const c = this.condition(e.c, scope);
        const t = this.expr(e.t, scope);
        const o = this.expr(e.f, scope);
        return (f) => (c(f) ? t(f) : o(f));
      }
      case 'elvis': {
        const l = this.expr(e.l, scope);
        const r = this.expr(e.r, scope);
        return (f) => l(f) ?? r(f);
      }
      case 'instanceof': {
        const inner = this.expr(e.e, scope);
        return (f) => instanceOf(inner(f), e.type);
      }
      case 'assign':
        return this.assignment(e, scope);
      case 'incdec': {
        const delta = e.op === '++' ? 1 : -1;
        const { read, write } = this.lvalue(e.target, scope);
        return (f) =>
          at(e.pos, () => {
            const ref = read(f);
            const old = asNumber(ref.value);
            write(f, ref, old + delta);
            return e.prefix ? old + delta : old;
          });
      }
      case 'lambda':
        return this.lambda(e, scope);
    }
    return this.fail((e as Expr).pos, 'unsupported expression');
  }

  private lambda(e: Expr & { k: 'lambda' }, scope: Scope): Ev {
    const inner: Scope = { parent: scope, names: new Map() };
    const slots = e.params.map((p) => this.declare(inner, p, e.pos, false));
    const body = this.stmt(e.body, inner, false);
    return (f) =>
      new Lambda(slots.length, (args) => {
        slots.forEach((s, i) => (f.slots[s] = args[i] ?? null));
        const saved = f.ret;
        const r = body(f);
        const value = r === RETURN ? f.ret : null;
        f.ret = saved;
        return value;
      });
  }

  private binary(e: Expr & { k: 'bin' }, scope: Scope): Ev {
    const l = this.expr(e.l, scope);
    const r = this.expr(e.r, scope);
    const { op, pos } = e;
    switch (op) {
      case '==':
        return (f) => valuesEqual(l(f), r(f));
      case '!=':
        return (f) => !valuesEqual(l(f), r(f));
      case '===':
        return (f) => {
          const a = l(f);
          const b = r(f);
          return typeof a === 'object' && a !== null ? a === b : valuesEqual(a, b);
        };
      case '!==':
        return (f) => {
          const a = l(f);
          const b = r(f);
          return typeof a === 'object' && a !== null ? a !== b : !valuesEqual(a, b);
        };
      case '<':
      case '<=':
      case '>':
      case '>=':
        return (f) => {
          const a = l(f);
          const b = r(f);
          return at(pos, () => compare(op, a, b));
        };
      default: {
        const floating = this.floating(e, scope);
        return (f) => {
          const a = l(f);
          const b = r(f);
          return at(pos, () => arithmetic(op, a, b, floating));
        };
      }
    }
  }

  /** How to read and write an assignment target: a variable, `obj.field` or `obj[key]`. */
  private lvalue(
    target: Expr,
    scope: Scope,
  ): { read: (f: Frame) => { value: Value; obj: Value; key: Value }; write: (f: Frame, ref: { obj: Value; key: Value }, v: Value) => void } {
    if (target.k === 'var') {
      const v = this.lookup(scope, target.name);
      if (v === undefined) this.fail(target.pos, `cannot resolve symbol [${target.name}]`);
      const slot = v.slot;
      return {
        read: (f) => ({ value: f.slots[slot]!, obj: null, key: null }),
        write: (f, _ref, value) => {
          f.slots[slot] = value;
        },
      };
    }
    if (target.k === 'field') {
      const obj = this.expr(target.obj, scope);
      const name = target.name;
      return {
        read: (f) => {
          const o = obj(f);
          return { value: getField(o, name), obj: o, key: name };
        },
        write: (_f, ref, value) => setField(ref.obj, name, value),
      };
    }
    if (target.k === 'index') {
      const obj = this.expr(target.obj, scope);
      const key = this.expr(target.key, scope);
      return {
        read: (f) => {
          const o = obj(f);
          const k = key(f);
          return { value: getIndex(o, k), obj: o, key: k };
        },
        write: (_f, ref, value) => setIndex(ref.obj, ref.key, value),
      };
    }
    this.fail(target.pos, 'invalid assignment target');
  }

  private assignment(e: Expr & { k: 'assign' }, scope: Scope): Ev {
    const value = this.expr(e.value, scope);
    const floating = this.floating(e.target, scope) || this.floating(e.value, scope);
    if (e.op === '=') {
      // Plain assignment does not read the old value (a missing map key is fine).
      if (e.target.k === 'var') {
        const v = this.lookup(scope, e.target.name);
        if (v === undefined) this.fail(e.target.pos, `cannot resolve symbol [${e.target.name}]`);
        const slot = v.slot;
        return (f) => (f.slots[slot] = value(f));
      }
      if (e.target.k === 'field') {
        const obj = this.expr(e.target.obj, scope);
        const name = e.target.name;
        const pos = e.target.pos;
        return (f) => {
          const o = obj(f);
          const v = value(f);
          at(pos, () => setField(o, name, v));
          return v;
        };
      }
      const t = e.target as Expr & { k: 'index' };
      const obj = this.expr(t.obj, scope);
      const key = this.expr(t.key, scope);
      return (f) => {
        const o = obj(f);
        const k = key(f);
        const v = value(f);
        at(e.pos, () => setIndex(o, k, v));
        return v;
      };
    }
    const op = e.op.slice(0, -1);
    const { read, write } = this.lvalue(e.target, scope);
    return (f) =>
      at(e.pos, () => {
        const ref = read(f);
        const next = arithmetic(op, ref.value, value(f), floating);
        write(f, ref, next);
        return next;
      });
  }
}

/** A compiled script, run once per document. */
export interface CompiledPainless {
  readonly source: string;
  /**
   * Runs the script with the given global variables (`ctx`, `params`, `doc`);
   * returns its `return` value, or the value of its last expression
   * statement. Throws a script_exception (runtime error) EsError.
   */
  run(globals: Readonly<Record<string, Value>>): Value;
}

/** Compiles `source`; `globals` are the variables the context provides. Throws a script_exception (compile error). */
export function compilePainless(source: string, globals: readonly string[]): CompiledPainless {
  const stmts = parseScript(source);
  const compiler = new Compiler(source);
  const root: Scope = { parent: null, names: new Map() };
  const globalSlots = globals.map((g) => compiler.declare(root, g, 0, false));
  const top: Scope = { parent: root, names: new Map() };
  const body = stmts.map((s) => compiler.stmt(s, top, true));
  const size = compiler.slots;
  return {
    source,
    run(vars) {
      const f: Frame = { slots: new Array<Value>(size).fill(null), ret: null, last: null, loops: 0 };
      globals.forEach((g, i) => (f.slots[globalSlots[i]!] = Object.hasOwn(vars, g) ? vars[g]! : null));
      try {
        for (const s of body) {
          const c = s(f);
          if (c === RETURN) return f.ret;
          if (c !== NORMAL) break;
        }
        return f.last;
      } catch (err) {
        throw toScriptError(source, err);
      }
    },
  };
}

function toScriptError(source: string, err: unknown): EsError {
  if (err instanceof PainlessRuntimeError) return scriptRuntimeError(source, Math.max(0, err.pos), err.javaType, err.javaReason);
  if (err instanceof RangeError) return scriptRuntimeError(source, 0, 'stack_overflow_error', null);
  throw err;
}

export { DateValue, DocField, DocLookup };
export type { Value, ScriptMap };
