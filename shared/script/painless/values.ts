/**
 * Runtime values of the Painless subset and the methods a script may call on
 * them. JSON's values are Painless's: maps are plain objects (their keys are
 * data: read and written as own properties only, shared/json/own-keys.ts),
 * lists are arrays. A date from doc values and a field's doc values are
 * small classes of their own.
 *
 * Numbers are JavaScript numbers: Painless's int, long and double become one
 * type here (docs/compat.md says what that changes).
 */
import { getOwn, setOwn } from '../../json/own-keys.ts';

export type ScriptMap = { [key: string]: Value };
export type Value = null | boolean | number | string | Value[] | ScriptMap | DateValue | DocField | DocLookup | Lambda;

/** A thrown runtime failure, as the Java exception Painless would raise; the interpreter adds the position. */
export class PainlessRuntimeError extends Error {
  constructor(
    readonly javaType: string,
    readonly javaReason: string | null,
    public pos = -1,
  ) {
    super(javaReason ?? javaType);
  }
}

export const npe = (): PainlessRuntimeError => new PainlessRuntimeError('null_pointer_exception', null);
const classCast = (from: Value, to: string): PainlessRuntimeError =>
  new PainlessRuntimeError('class_cast_exception', `Cannot cast ${javaClass(from)} to ${to}`);
export const illegalArg = (reason: string): PainlessRuntimeError => new PainlessRuntimeError('illegal_argument_exception', reason);

/** Longest string a script may build (a loop of `s += s` must not take the node's memory). */
export const MAX_STRING_LENGTH = 16 * 1024 * 1024;
/** Most elements a list a script builds may hold. */
export const MAX_COLLECTION_SIZE = 4_000_000;

export function checkedString(s: string): string {
  if (s.length > MAX_STRING_LENGTH) throw new PainlessRuntimeError('painless_error', `the script built a string longer than [${MAX_STRING_LENGTH}] characters`);
  return s;
}

function checkedSize(n: number): void {
  if (n > MAX_COLLECTION_SIZE) throw new PainlessRuntimeError('painless_error', `the script built a collection of more than [${MAX_COLLECTION_SIZE}] elements`);
}

/** A date as `doc['date'].value` gives it (JodaCompatibleZonedDateTime in 6.8), in UTC. */
export class DateValue {
  constructor(readonly millis: number) {}
  toJSON(): string {
    return new Date(this.millis).toISOString();
  }
}

/** One field's doc values of one document (ScriptDocValues): a read-only list with `value`. */
export class DocField {
  constructor(
    readonly field: string,
    readonly values: readonly Value[],
  ) {}
}

/** `doc`: the doc values of the current document, by field. */
export class DocLookup {
  constructor(readonly get: (field: string) => DocField) {}
}

/** A lambda argument (`t -> t == params.tag`). */
export class Lambda {
  constructor(
    readonly arity: number,
    readonly call: (args: readonly Value[]) => Value,
  ) {}
}

export function isMap(v: Value | undefined): v is ScriptMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof DateValue) && !(v instanceof DocField) && !(v instanceof DocLookup) && !(v instanceof Lambda);
}

/** The Java class Painless would name for a value, in error messages. */
export function javaClass(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'java.lang.Integer' : 'java.lang.Double';
  if (typeof v === 'string') return 'java.lang.String';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  if (v instanceof DateValue) return 'org.elasticsearch.script.JodaCompatibleZonedDateTime';
  if (v instanceof DocField) return 'org.elasticsearch.index.fielddata.ScriptDocValues';
  if (v instanceof DocLookup) return 'org.elasticsearch.search.lookup.LeafDocLookup';
  if (v instanceof Lambda) return 'java.util.function.Function';
  return 'java.util.HashMap';
}

/** Java's `equals` (Painless `==`): numbers by value, lists and maps by content. */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => valuesEqual(x, b[i]!));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && valuesEqual(a[k]!, b[k]!));
  }
  if (a instanceof DateValue && b instanceof DateValue) return a.millis === b.millis;
  return false;
}

/** Java's `String.valueOf`, as string concatenation prints a value. */
export function javaString(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    return String(v);
  }
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(javaString).join(', ')}]`;
  if (v instanceof DateValue) return v.toJSON();
  if (v instanceof DocField) return `[${v.values.map(javaString).join(', ')}]`;
  if (isMap(v)) return `{${Object.keys(v).map((k) => `${k}=${javaString(v[k]!)}`).join(', ')}}`;
  return javaClass(v);
}

export function asNumber(v: Value): number {
  if (typeof v === 'number') return v;
  if (v === null) throw npe();
  throw classCast(v, 'java.lang.Number');
}

export function asInt(v: Value): number {
  const n = asNumber(v);
  return Math.trunc(n);
}

export function asString(v: Value): string {
  if (typeof v === 'string') return v;
  if (v === null) throw npe();
  throw classCast(v, 'java.lang.String');
}

export function asBoolean(v: Value): boolean {
  if (typeof v === 'boolean') return v;
  if (v === null) throw npe();
  throw classCast(v, 'java.lang.Boolean');
}

function asList(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof DocField) return [...v.values];
  if (v === null) throw npe();
  throw classCast(v, 'java.util.List');
}

function asMap(v: Value): ScriptMap {
  if (isMap(v)) return v;
  if (v === null) throw npe();
  throw classCast(v, 'java.util.Map');
}

function asLambda(v: Value, arity: number): Lambda {
  if (v instanceof Lambda && v.arity === arity) return v;
  throw illegalArg(`expected a lambda of ${arity} argument(s)`);
}

function index(list: readonly unknown[], i: number): number {
  if (!Number.isInteger(i) || i < 0 || i >= list.length) {
    throw new PainlessRuntimeError('index_out_of_bounds_exception', `Index ${i} out of bounds for length ${list.length}`);
  }
  return i;
}

/** A copy of a JSON-like value (new ArrayList(list), new HashMap(map)). */
export function copyValue(v: Value): Value {
  if (Array.isArray(v)) return v.map(copyValue);
  if (isMap(v)) {
    const out: ScriptMap = {};
    for (const k of Object.keys(v)) setOwn(out, k, copyValue(v[k]!));
    return out;
  }
  return v;
}

/** Java's Integer.parseInt / Double.parseDouble, with their NumberFormatException; a scan, no regular expression. */
function parseNumber(s: Value, integral: boolean): number {
  const text = asString(s);
  const bad = () => new PainlessRuntimeError('number_format_exception', `For input string: "${text}"`);
  const t = integral ? text : text.trim();
  let i = 0;
  if (t[i] === '+' || t[i] === '-') i++;
  let digits = 0;
  while (i < t.length && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) {
    i++;
    digits++;
  }
  if (integral) {
    if (digits === 0 || i !== t.length || digits > 19) throw bad();
    return Number(t);
  }
  if (t[i] === '.') {
    i++;
    while (i < t.length && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) {
      i++;
      digits++;
    }
  }
  if (digits === 0) throw bad();
  if (t[i] === 'e' || t[i] === 'E') {
    i++;
    if (t[i] === '+' || t[i] === '-') i++;
    const from = i;
    while (i < t.length && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
    if (i === from) throw bad();
  }
  const end = i;
  if ('dDfF'.includes(t[i] ?? '#')) i++;
  if (i !== t.length) throw bad();
  return Number(t.slice(0, end));
}

const DOC_MISSING_VALUE = "A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field!";

/** `v.name` (Painless's getter and map shortcuts). */
export function getField(v: Value, name: string): Value {
  if (v === null) throw npe();
  if (isMap(v)) return getOwn(v, name) ?? null;
  if (v instanceof DocLookup) return v.get(name);
  if (v instanceof DocField) {
    switch (name) {
      case 'value':
        if (v.values.length === 0) throw new PainlessRuntimeError('illegal_state_exception', DOC_MISSING_VALUE);
        return v.values[0]!;
      case 'values':
        return [...v.values];
      case 'empty':
        return v.values.length === 0;
      case 'length':
        return v.values.length;
    }
  }
  if (Array.isArray(v)) {
    if (name === 'length') return v.length;
    if (name === 'empty') return v.length === 0;
  }
  if (v instanceof DateValue) {
    const d = new Date(v.millis);
    switch (name) {
      case 'millis':
        return v.millis;
      case 'year':
        return d.getUTCFullYear();
      case 'monthValue':
        return d.getUTCMonth() + 1;
      case 'dayOfMonth':
        return d.getUTCDate();
      case 'hour':
        return d.getUTCHours();
      case 'minute':
        return d.getUTCMinutes();
      case 'second':
        return d.getUTCSeconds();
    }
  }
  throw illegalArg(`Unable to find dynamic field [${name}] for class [${javaClass(v)}]`);
}

/** `v.name = value`: maps only (Painless's map shortcut). */
export function setField(v: Value, name: string, value: Value): void {
  if (v === null) throw npe();
  if (isMap(v)) {
    setOwn(v, name, value);
    return;
  }
  throw illegalArg(`Unable to find dynamic field [${name}] for class [${javaClass(v)}]`);
}

/** `v[key]`: list index or map key. */
export function getIndex(v: Value, key: Value): Value {
  if (v === null) throw npe();
  if (Array.isArray(v)) return v[index(v, asNumber(key))]!;
  if (v instanceof DocField) return v.values[index(v.values, asNumber(key))]!;
  if (v instanceof DocLookup) return v.get(asString(key));
  if (isMap(v)) return getOwn(v, key === null ? 'null' : javaString(key)) ?? null;
  throw illegalArg(`Attempting to address a non-array-like type [${javaClass(v)}] as an array.`);
}

export function setIndex(v: Value, key: Value, value: Value): void {
  if (v === null) throw npe();
  if (Array.isArray(v)) {
    v[index(v, asNumber(key))] = value;
    return;
  }
  if (isMap(v)) {
    setOwn(v, key === null ? 'null' : javaString(key), value);
    return;
  }
  throw illegalArg(`Attempting to address a non-array-like type [${javaClass(v)}] as an array.`);
}

type Method = (self: never, args: readonly Value[]) => Value;

function removeWhere(list: Value[], keep: (x: Value) => boolean): boolean {
  let w = 0;
  for (let r = 0; r < list.length; r++) if (keep(list[r]!)) list[w++] = list[r]!;
  const removed = w !== list.length;
  list.length = w;
  return removed;
}

const STRING_METHODS: Record<string, Method> = {
  length: (s: string) => s.length,
  isEmpty: (s: string) => s.length === 0,
  substring: (s: string, a) => {
    const from = asInt(a[0]!);
    const to = a.length > 1 ? asInt(a[1]!) : s.length;
    if (from < 0 || to > s.length || from > to) throw new PainlessRuntimeError('string_index_out_of_bounds_exception', `begin ${from}, end ${to}, length ${s.length}`);
    return s.slice(from, to);
  },
  indexOf: (s: string, a) => s.indexOf(asString(a[0]!), a.length > 1 ? asInt(a[1]!) : 0),
  lastIndexOf: (s: string, a) => s.lastIndexOf(asString(a[0]!)),
  contains: (s: string, a) => s.includes(asString(a[0]!)),
  startsWith: (s: string, a) => s.startsWith(asString(a[0]!)),
  endsWith: (s: string, a) => s.endsWith(asString(a[0]!)),
  toLowerCase: (s: string) => s.toLowerCase(),
  toUpperCase: (s: string) => s.toUpperCase(),
  trim: (s: string) => s.trim(),
  replace: (s: string, a) => checkedString(s.split(asString(a[0]!)).join(asString(a[1]!))),
  equals: (s: string, a) => s === a[0],
  equalsIgnoreCase: (s: string, a) => typeof a[0] === 'string' && s.toLowerCase() === a[0].toLowerCase(),
  charAt: (s: string, a) => s[index(s.split(''), asInt(a[0]!))]!,
  compareTo: (s: string, a) => {
    const o = asString(a[0]!);
    return s < o ? -1 : s > o ? 1 : 0;
  },
  concat: (s: string, a) => checkedString(s + asString(a[0]!)),
  splitOnToken: (s: string, a) => s.split(asString(a[0]!)),
  toString: (s: string) => s,
  hashCode: (s: string) => {
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
    return h;
  },
};

const NUMBER_METHODS: Record<string, Method> = {
  intValue: (n: number) => Math.trunc(n) | 0,
  longValue: (n: number) => Math.trunc(n),
  doubleValue: (n: number) => n,
  floatValue: (n: number) => Math.fround(n),
  toString: (n: number) => javaString(n),
  compareTo: (n: number, a) => Math.sign(n - asNumber(a[0]!)),
  equals: (n: number, a) => n === a[0],
};

const LIST_METHODS: Record<string, Method> = {
  size: (l: Value[]) => l.length,
  isEmpty: (l: Value[]) => l.length === 0,
  get: (l: Value[], a) => l[index(l, asNumber(a[0]!))]!,
  getLength: (l: Value[]) => l.length,
  add: (l: Value[], a) => {
    checkedSize(l.length + 1);
    if (a.length === 2) {
      const at = asInt(a[0]!);
      if (at < 0 || at > l.length) index(l, at);
      l.splice(at, 0, a[1]!);
      return null;
    }
    l.push(a[0]!);
    return true;
  },
  addAll: (l: Value[], a) => {
    const more = asList(a[0]!);
    checkedSize(l.length + more.length);
    l.push(...more);
    return more.length > 0;
  },
  set: (l: Value[], a) => {
    const i = index(l, asNumber(a[0]!));
    const old = l[i]!;
    l[i] = a[1]!;
    return old;
  },
  remove: (l: Value[], a) => {
    const x = a[0]!;
    // List.remove(int) takes an index; any other value is removed by equality (Collection.remove).
    if (typeof x === 'number') return l.splice(index(l, x), 1)[0]!;
    const at = l.findIndex((y) => valuesEqual(y, x));
    if (at < 0) return false;
    l.splice(at, 1);
    return true;
  },
  removeIf: (l: Value[], a) => {
    const f = asLambda(a[0]!, 1);
    return removeWhere(l, (x) => !asBoolean(f.call([x])));
  },
  removeAll: (l: Value[], a) => {
    const other = asList(a[0]!);
    return removeWhere(l, (x) => !other.some((y) => valuesEqual(x, y)));
  },
  retainAll: (l: Value[], a) => {
    const other = asList(a[0]!);
    return removeWhere(l, (x) => other.some((y) => valuesEqual(x, y)));
  },
  contains: (l: Value[], a) => l.some((y) => valuesEqual(y, a[0]!)),
  containsAll: (l: Value[], a) => asList(a[0]!).every((x) => l.some((y) => valuesEqual(x, y))),
  indexOf: (l: Value[], a) => l.findIndex((y) => valuesEqual(y, a[0]!)),
  lastIndexOf: (l: Value[], a) => {
    for (let i = l.length - 1; i >= 0; i--) if (valuesEqual(l[i]!, a[0]!)) return i;
    return -1;
  },
  clear: (l: Value[]) => {
    l.length = 0;
    return null;
  },
  subList: (l: Value[], a) => l.slice(asInt(a[0]!), asInt(a[1]!)),
  forEach: (l: Value[], a) => {
    const f = asLambda(a[0]!, 1);
    for (const x of [...l]) f.call([x]);
    return null;
  },
  any: (l: Value[], a) => {
    const f = asLambda(a[0]!, 1);
    return l.some((x) => asBoolean(f.call([x])));
  },
  every: (l: Value[], a) => {
    const f = asLambda(a[0]!, 1);
    return l.every((x) => asBoolean(f.call([x])));
  },
  find: (l: Value[], a) => {
    const f = asLambda(a[0]!, 1);
    return l.find((x) => asBoolean(f.call([x]))) ?? null;
  },
  findAll: (l: Value[], a) => {
    const f = asLambda(a[0]!, 1);
    return l.filter((x) => asBoolean(f.call([x])));
  },
  collect: (l: Value[], a) => {
    const f = asLambda(a[0]!, 1);
    return l.map((x) => f.call([x]));
  },
  join: (l: Value[], a) => checkedString(l.map(javaString).join(asString(a[0]!))),
  sort: (l: Value[], a) => {
    const cmp = a.length > 0 && a[0] !== null ? asLambda(a[0]!, 2) : null;
    l.sort((x, y) => (cmp ? asNumber(cmp.call([x, y])) : compareValues(x, y)));
    return null;
  },
  equals: (l: Value[], a) => valuesEqual(l, a[0]!),
  toString: (l: Value[]) => javaString(l),
};

const MAP_METHODS: Record<string, Method> = {
  get: (m: ScriptMap, a) => getOwn(m, javaString(a[0]!)) ?? null,
  getOrDefault: (m: ScriptMap, a) => getOwn(m, javaString(a[0]!)) ?? a[1]!,
  put: (m: ScriptMap, a) => {
    const k = javaString(a[0]!);
    const old = getOwn(m, k) ?? null;
    setOwn(m, k, a[1]!);
    return old;
  },
  putIfAbsent: (m: ScriptMap, a) => {
    const k = javaString(a[0]!);
    const old = getOwn(m, k);
    if (old === undefined || old === null) setOwn(m, k, a[1]!);
    return old ?? null;
  },
  putAll: (m: ScriptMap, a) => {
    const o = asMap(a[0]!);
    for (const k of Object.keys(o)) setOwn(m, k, o[k]!);
    return null;
  },
  remove: (m: ScriptMap, a) => {
    const k = javaString(a[0]!);
    const old = getOwn(m, k) ?? null;
    if (Object.hasOwn(m, k)) delete m[k];
    return old;
  },
  containsKey: (m: ScriptMap, a) => Object.hasOwn(m, javaString(a[0]!)),
  containsValue: (m: ScriptMap, a) => Object.keys(m).some((k) => valuesEqual(m[k]!, a[0]!)),
  keySet: (m: ScriptMap) => Object.keys(m),
  values: (m: ScriptMap) => Object.keys(m).map((k) => m[k]!),
  size: (m: ScriptMap) => Object.keys(m).length,
  isEmpty: (m: ScriptMap) => Object.keys(m).length === 0,
  clear: (m: ScriptMap) => {
    for (const k of Object.keys(m)) delete m[k];
    return null;
  },
  equals: (m: ScriptMap, a) => valuesEqual(m, a[0]!),
  toString: (m: ScriptMap) => javaString(m),
};

const DOC_FIELD_METHODS: Record<string, Method> = {
  size: (f: DocField) => f.values.length,
  isEmpty: (f: DocField) => f.values.length === 0,
  get: (f: DocField, a) => f.values[index(f.values, asNumber(a[0]!))]!,
  getValue: (f: DocField) => getField(f, 'value'),
  getValues: (f: DocField) => [...f.values],
  contains: (f: DocField, a) => f.values.some((y) => valuesEqual(y, a[0]!)),
  getLength: (f: DocField) => f.values.length,
};

const DATE_METHODS: Record<string, Method> = {
  getMillis: (d: DateValue) => d.millis,
  toEpochMilli: (d: DateValue) => d.millis,
  toInstant: (d: DateValue) => d,
  getYear: (d: DateValue) => new Date(d.millis).getUTCFullYear(),
  getMonthValue: (d: DateValue) => new Date(d.millis).getUTCMonth() + 1,
  getDayOfMonth: (d: DateValue) => new Date(d.millis).getUTCDate(),
  getDayOfWeek: (d: DateValue) => ((new Date(d.millis).getUTCDay() + 6) % 7) + 1,
  getHour: (d: DateValue) => new Date(d.millis).getUTCHours(),
  getHourOfDay: (d: DateValue) => new Date(d.millis).getUTCHours(),
  getMinute: (d: DateValue) => new Date(d.millis).getUTCMinutes(),
  getSecond: (d: DateValue) => new Date(d.millis).getUTCSeconds(),
  toString: (d: DateValue) => d.toJSON(),
  equals: (d: DateValue, a) => valuesEqual(d, a[0]!),
};

const DOC_LOOKUP_METHODS: Record<string, Method> = {
  get: (d: DocLookup, a) => d.get(asString(a[0]!)),
  containsKey: (d: DocLookup, a) => {
    try {
      d.get(asString(a[0]!));
      return true;
    } catch {
      return false;
    }
  },
};

/** Every method name some value supports: a call to any other name is a compile error. */
export const METHOD_NAMES: ReadonlySet<string> = new Set(
  [STRING_METHODS, NUMBER_METHODS, LIST_METHODS, MAP_METHODS, DOC_FIELD_METHODS, DATE_METHODS, DOC_LOOKUP_METHODS, { booleanValue: null, equals: null, toString: null }].flatMap(
    (t) => Object.keys(t),
  ),
);

function tableOf(v: Value): Record<string, Method> | null {
  if (typeof v === 'string') return STRING_METHODS;
  if (typeof v === 'number') return NUMBER_METHODS;
  if (Array.isArray(v)) return LIST_METHODS;
  if (v instanceof DocField) return DOC_FIELD_METHODS;
  if (v instanceof DateValue) return DATE_METHODS;
  if (v instanceof DocLookup) return DOC_LOOKUP_METHODS;
  if (isMap(v)) return MAP_METHODS;
  return null;
}

/** `v.name(args)`. */
export function callMethod(v: Value, name: string, args: readonly Value[]): Value {
  if (v === null) throw npe();
  if (typeof v === 'boolean') {
    if (name === 'booleanValue') return v;
    if (name === 'equals') return v === args[0];
    if (name === 'toString') return String(v);
  }
  const table = tableOf(v);
  const m = table !== null && Object.hasOwn(table, name) ? table[name] : undefined;
  if (m === undefined) throw illegalArg(`dynamic method [${javaClass(v)}, ${name}/${args.length}] not found`);
  return m(v as never, args);
}

/** Natural order of numbers and strings (List.sort without a comparator). */
export function compareValues(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a === null || b === null) throw npe();
  throw classCast(a, 'java.lang.Comparable');
}

function mathOf(name: string, args: readonly Value[]): Value {
  const n = (i: number) => asNumber(args[i]!);
  switch (name) {
    case 'abs':
      return Math.abs(n(0));
    case 'max':
      return Math.max(n(0), n(1));
    case 'min':
      return Math.min(n(0), n(1));
    case 'floor':
      return Math.floor(n(0));
    case 'ceil':
      return Math.ceil(n(0));
    case 'round':
      return Math.floor(n(0) + 0.5);
    case 'rint':
      return Math.round(n(0));
    case 'sqrt':
      return Math.sqrt(n(0));
    case 'cbrt':
      return Math.cbrt(n(0));
    case 'pow':
      return Math.pow(n(0), n(1));
    case 'log':
      return Math.log(n(0));
    case 'log10':
      return Math.log10(n(0));
    case 'exp':
      return Math.exp(n(0));
    case 'signum':
      return Math.sign(n(0));
    case 'hypot':
      return Math.hypot(n(0), n(1));
  }
  throw illegalArg(`Unknown call [${name}] with [${args.length}] arguments on type [Math]`);
}

/** Static members: `Math.max(a, b)`, `Integer.parseInt(s)`, `Long.MAX_VALUE` (args null: a field). */
export function callStatic(cls: string, name: string, args: readonly Value[] | null): Value {
  if (args === null) {
    const key = `${cls}.${name}`;
    switch (key) {
      case 'Math.PI':
        return Math.PI;
      case 'Math.E':
        return Math.E;
      case 'Integer.MAX_VALUE':
        return 2147483647;
      case 'Integer.MIN_VALUE':
        return -2147483648;
      case 'Long.MAX_VALUE':
        // 2^63 - 1 as the nearest double (numbers are doubles here).
        return 2 ** 63;
      case 'Long.MIN_VALUE':
        return -(2 ** 63);
      case 'Double.MAX_VALUE':
        return Number.MAX_VALUE;
      case 'Double.MIN_VALUE':
        return Number.MIN_VALUE;
    }
    throw illegalArg(`Unknown field [${name}] for type [${cls}]`);
  }
  switch (cls) {
    case 'Math':
      return mathOf(name, args);
    case 'Integer':
    case 'Long':
      if (name === 'parseInt' || name === 'parseLong' || name === 'valueOf') return typeof args[0] === 'number' ? Math.trunc(args[0]) : parseNumber(args[0]!, true);
      if (name === 'toString') return javaString(args[0]!);
      if (name === 'max') return Math.max(asNumber(args[0]!), asNumber(args[1]!));
      if (name === 'min') return Math.min(asNumber(args[0]!), asNumber(args[1]!));
      if (name === 'compare') return Math.sign(asNumber(args[0]!) - asNumber(args[1]!));
      break;
    case 'Double':
    case 'Float':
      if (name === 'parseDouble' || name === 'parseFloat' || name === 'valueOf') return typeof args[0] === 'number' ? args[0] : parseNumber(args[0]!, false);
      if (name === 'isNaN') return Number.isNaN(asNumber(args[0]!));
      if (name === 'toString') return javaString(args[0]!);
      if (name === 'compare') return Math.sign(asNumber(args[0]!) - asNumber(args[1]!));
      break;
    case 'String':
      if (name === 'valueOf') return javaString(args[0]!);
      if (name === 'join') {
        const parts = args.length === 2 && Array.isArray(args[1]) ? args[1] : args.slice(1);
        return checkedString(parts.map(javaString).join(asString(args[0]!)));
      }
      break;
    case 'Boolean':
      if (name === 'parseBoolean') return typeof args[0] === 'string' && args[0].toLowerCase() === 'true';
      if (name === 'valueOf') return typeof args[0] === 'boolean' ? args[0] : typeof args[0] === 'string' && args[0].toLowerCase() === 'true';
      if (name === 'toString') return javaString(args[0]!);
      break;
    case 'Objects':
      if (name === 'equals') return valuesEqual(args[0]!, args[1]!);
      if (name === 'isNull') return args[0] === null;
      if (name === 'nonNull') return args[0] !== null;
      if (name === 'requireNonNull') {
        if (args[0] === null) throw npe();
        return args[0]!;
      }
      if (name === 'toString') return javaString(args[0]!);
      break;
    case 'Character':
      if (name === 'isDigit') return /^[0-9]$/.test(asString(args[0]!));
      if (name === 'isLetter') return /^\p{L}$/u.test(asString(args[0]!));
      if (name === 'isWhitespace') return /^\s$/.test(asString(args[0]!));
      break;
  }
  throw illegalArg(`Unknown call [${name}] with [${args.length}] arguments on type [${cls}]`);
}

/** `new ArrayList(...)`, `new HashMap(...)`. */
export function construct(cls: string, args: readonly Value[]): Value {
  if (cls === 'ArrayList') {
    if (args.length === 0 || typeof args[0] === 'number') return [];
    return [...asList(args[0]!)];
  }
  if (args.length === 0 || typeof args[0] === 'number') return {};
  return copyValue(asMap(args[0]!));
}
