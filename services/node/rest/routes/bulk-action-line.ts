/**
 * The action/metadata lines of a `_bulk` body (BulkRequest.add): read
 * strictly by readActionLine, with Elasticsearch's errors; most of them are
 * read straight from their bytes by quickActionLine first (a load's lines are
 * all `{"index":{"_id":"..."}}`: parsing each into objects, then reading the
 * objects, was a tenth of the thread serving HTTP under a load).
 */
import { illegalArgument, isEsError, type EsError } from '../../../../shared/errors/es-errors.ts';
import { parseStrictJson } from '../../../../shared/json/strict-json.ts';
import { getOwn } from '../../../../shared/json/own-keys.ts';
import { skipJsonSpace } from '../../../../shared/json/json-space.ts';
import { xContentTokenName as tokenName } from '../../../../shared/json/token-names.ts';

export type BulkAction = 'index' | 'create' | 'update' | 'delete';

const ACTIONS: ReadonlySet<string> = new Set(['index', 'create', 'update', 'delete']);

export function malformed(line: number, detail: string): EsError {
  return illegalArgument(`Malformed action/metadata line [${line}], ${detail}`);
}

/** The one key of an action line's object (`index`, ...), or null when it has none or several. */
function onlyKey(obj: object): string | null {
  let key: string | null = null;
  for (const k in obj) {
    if (key !== null) return null;
    key = k;
  }
  return key;
}

/** Bulk action metadata keys, as BulkRequest.add knows them (with their deprecated spellings). */
const META_KEYS: ReadonlySet<string> = new Set([
  '_index', '_type', '_id', 'routing', '_routing', 'parent', '_parent', 'op_type', '_op_type', 'opType',
  'version', '_version', 'version_type', '_version_type', 'versionType', 'if_seq_no', 'if_primary_term',
  'retry_on_conflict', '_retry_on_conflict', '_retryOnConflict', 'pipeline', 'fields', '_source',
]);

/** XContentParser.longValue() of a metadata value, with Numbers.toLong's errors. */
function metaLong(v: unknown, field: string, lineNo: number): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string') {
    if (/^[+-]?\d+$/.test(v)) return Number(v);
    const d = v.trim() === '' ? NaN : Number(v);
    if (Number.isFinite(d)) return Math.trunc(d);
    throw illegalArgument(`For input string: "${v}"`);
  }
  throw malformed(lineNo, `expected a simple value for field [${field}] but found [${tokenName(v)}]`);
}

export interface ActionMeta {
  readonly index: string | null;
  readonly type: string | null;
  readonly id: string | null;
  readonly routing: string | null;
  readonly version: number | null;
  readonly versionType: string | null;
  readonly ifSeqNo: number | null;
  readonly ifPrimaryTerm: number | null;
  readonly sourceSpec: unknown;
}

/** The metadata of one action line; unknown keys and non-simple values refuse the whole request, as in Elasticsearch. */
function readMeta(meta: Record<string, unknown>, lineNo: number): ActionMeta {
  const simple = (key: string): string | null => {
    const v = getOwn(meta, key);
    if (v === undefined || v === null) return null;
    if (typeof v === 'object') throw malformed(lineNo, `expected a simple value for field [${key}] but found [${tokenName(v)}]`);
    return String(v);
  };
  const long = (key: string): number | null => {
    const v = getOwn(meta, key);
    return v === undefined || v === null ? null : metaLong(v, key, lineNo);
  };
  for (const key of Object.keys(meta)) {
    if (!META_KEYS.has(key)) throw illegalArgument(`Action/metadata line [${lineNo}] contains an unknown parameter [${key}]`);
    const v = getOwn(meta, key);
    if (key !== '_source' && key !== 'fields' && v !== null && typeof v === 'object') {
      throw malformed(lineNo, `expected a simple value for field [${key}] but found [${tokenName(v)}]`);
    }
  }
  return {
    index: simple('_index'),
    type: simple('_type'),
    id: simple('_id'),
    routing: simple('routing') ?? simple('_routing') ?? simple('parent') ?? simple('_parent'),
    version: long('version') ?? long('_version'),
    versionType: simple('version_type') ?? simple('_version_type') ?? simple('versionType'),
    ifSeqNo: long('if_seq_no'),
    ifPrimaryTerm: long('if_primary_term'),
    sourceSpec: getOwn(meta, '_source'),
  };
}

/** An action line, parsed strictly; a line that is not JSON is "malformed", as Elasticsearch words it. */
function parseActionLine(text: string, lineNo: number): unknown {
  try {
    return parseStrictJson(text);
  } catch (err) {
    if (isEsError(err) && /^(Duplicate field|Document nesting)/.test(err.reason)) throw err;
    throw malformed(lineNo, 'expected START_OBJECT or END_OBJECT but found [VALUE_STRING]');
  }
}


/** An action line's action and metadata, read strictly; throws the error that refuses the whole request. */
export function readActionLine(text: string, lineNo: number): { action: BulkAction; meta: ActionMeta } {
  const actionObj = parseActionLine(text, lineNo);
  if (typeof actionObj !== 'object' || actionObj === null || Array.isArray(actionObj)) {
    throw malformed(lineNo, 'expected START_OBJECT or END_OBJECT but found [VALUE_STRING]');
  }
  const key = onlyKey(actionObj);
  if (key === null) {
    const keys = Object.keys(actionObj);
    if (keys.length === 0) throw malformed(lineNo, 'expected FIELD_NAME but found [END_OBJECT]');
    throw malformed(lineNo, `expected field [create], [delete], [index] or [update] but found [${keys[0]}]`);
  }
  if (!ACTIONS.has(key)) throw malformed(lineNo, `expected field [create], [delete], [index] or [update] but found [${key}]`);
  const action = key as BulkAction;
  const metaObj = getOwn(actionObj as Record<string, unknown>, action) ?? {};
  if (typeof metaObj !== 'object' || metaObj === null || Array.isArray(metaObj)) throw malformed(lineNo, 'expected START_OBJECT');
  return { action, meta: readMeta(metaObj as Record<string, unknown>, lineNo) };
}

// ---- the quick path -------------------------------------------------------------------

const QUOTE = 0x22;

/** Metadata keys quickActionLine reads (`fields` and `_source` may be objects: readActionLine's). Value: its slot in `QuickSlots`. */
const QUICK_KEYS: ReadonlyMap<string, number> = new Map(
  [
    '_index', '_type', '_id', 'routing', '_routing', 'parent', '_parent', 'op_type', '_op_type', 'opType',
    'version', '_version', 'version_type', '_version_type', 'versionType', 'if_seq_no', 'if_primary_term',
    'retry_on_conflict', '_retry_on_conflict', '_retryOnConflict', 'pipeline',
  ].map((k, i) => [k, i]),
);
/** Slots (in QUICK_KEYS) read as longs: readMeta's `long` keys. */
const LONG_SLOTS: ReadonlySet<number> = new Set(['version', '_version', 'if_seq_no', 'if_primary_term'].map((k) => QUICK_KEYS.get(k)!));
const slot = (k: string): number => QUICK_KEYS.get(k)!;
const S_INDEX = slot('_index');
const S_TYPE = slot('_type');
const S_ID = slot('_id');
const S_ROUTING = [slot('routing'), slot('_routing'), slot('parent'), slot('_parent')];
const S_VERSION = [slot('version'), slot('_version')];
const S_VERSION_TYPE = [slot('version_type'), slot('_version_type'), slot('versionType')];
const S_IF_SEQ_NO = slot('if_seq_no');
const S_IF_PRIMARY_TERM = slot('if_primary_term');

class LineReader {
  body: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;

  /** Reads body[start, end) from its start. */
  reset(body: Buffer, start: number, end: number): this {
    this.body = body;
    this.pos = start;
    this.end = end;
    return this;
  }

  space(): void {
    this.pos = skipJsonSpace(this.body, this.pos, this.end);
  }

  take(c: number): boolean {
    this.space();
    if (this.body[this.pos] !== c || this.pos >= this.end) return false;
    this.pos++;
    return true;
  }

  /** A string without escapes or control characters (the body is valid UTF-8: parseBulk checked it), or null. */
  string(): string | null {
    if (!this.take(QUOTE)) return null;
    const body = this.body;
    const start = this.pos;
    let p = start;
    for (; p < this.end; p++) {
      const b = body[p]!;
      if (b === QUOTE) break;
      if (b === 0x5c || b < 0x20) return null;
    }
    if (p >= this.end) return null;
    this.pos = p + 1;
    return body.toString('utf8', start, p);
  }

  /** A JSON integer of up to 15 digits (exact as a double), or null. */
  integer(): number | null {
    const body = this.body;
    let p = this.pos;
    const negative = body[p] === 0x2d;
    if (negative) p++;
    const first = body[p];
    if (first === undefined || p >= this.end || first < 0x30 || first > 0x39) return null;
    let n = first - 0x30;
    const from = p++;
    if (first !== 0x30) {
      while (p < this.end && body[p]! >= 0x30 && body[p]! <= 0x39) n = n * 10 + (body[p++]! - 0x30);
    }
    // A fraction or an exponent (or 16 digits and more): readActionLine's.
    if (p - from > 15 || body[p] === 0x2e || body[p] === 0x65 || body[p] === 0x45) return null;
    this.pos = p;
    return negative ? -n : n;
  }
}

/**
 * The action and metadata of a plain action line, read from its bytes
 * (`start`..`end` of `body`): one object holding an action whose value is an
 * object of metadata keys with strings or integers, each once. Null for
 * anything else (escapes, other values, unknown or repeated keys, bad JSON):
 * readActionLine then reads the line, and refuses it with Elasticsearch's
 * error when it must. What this returns is what readActionLine returns.
 */
export function quickActionLine(body: Buffer, start: number, end: number): { action: BulkAction; meta: ActionMeta } | null {
  // One reader and one array of values for every line: this runs twice per item of every load (bulk.ts).
  const r = reader.reset(body, start, end);
  const values = quickValues;
  try {
    return readQuick(r, body, end, values);
  } finally {
    r.body = EMPTY;
    values.fill(undefined);
  }
}

function readQuick(r: LineReader, body: Buffer, end: number, values: (string | number | undefined)[]): { action: BulkAction; meta: ActionMeta } | null {
  if (!r.take(0x7b)) return null;
  const action = r.string();
  if (action === null || !ACTIONS.has(action) || !r.take(0x3a) || !r.take(0x7b)) return null;
  let seen = 0;
  r.space();
  if (body[r.pos] === 0x7d && r.pos < end) r.pos++;
  else {
    for (;;) {
      const key = r.string();
      const k = key === null ? undefined : QUICK_KEYS.get(key);
      if (k === undefined || (seen & (1 << k)) !== 0 || !r.take(0x3a)) return null;
      seen |= 1 << k;
      r.space();
      let v: string | number | null;
      if (body[r.pos] === QUOTE) {
        v = r.string();
        // readMeta reads a long from a string with Numbers.toLong's rules: readActionLine's.
        if (v === null || LONG_SLOTS.has(k)) return null;
      } else {
        v = r.integer();
        if (v === null) return null;
      }
      values[k] = v;
      if (r.take(0x7d)) break;
      if (!r.take(0x2c)) return null;
    }
  }
  if (!r.take(0x7d)) return null;
  r.space();
  if (r.pos !== end) return null;
  return {
    action: action as BulkAction,
    meta: {
      index: simple(values, S_INDEX),
      type: simple(values, S_TYPE),
      id: simple(values, S_ID),
      routing: simple(values, S_ROUTING[0]!) ?? simple(values, S_ROUTING[1]!) ?? simple(values, S_ROUTING[2]!) ?? simple(values, S_ROUTING[3]!),
      version: long(values, S_VERSION[0]!) ?? long(values, S_VERSION[1]!),
      versionType: simple(values, S_VERSION_TYPE[0]!) ?? simple(values, S_VERSION_TYPE[1]!) ?? simple(values, S_VERSION_TYPE[2]!),
      ifSeqNo: long(values, S_IF_SEQ_NO),
      ifPrimaryTerm: long(values, S_IF_PRIMARY_TERM),
      sourceSpec: undefined,
    },
  };
}

const EMPTY = Buffer.alloc(0);
const reader = new LineReader();
/** quickActionLine's values by slot (QUICK_KEYS), all undefined between two lines. */
const quickValues: (string | number | undefined)[] = new Array<string | number | undefined>(QUICK_KEYS.size).fill(undefined);

/** readMeta's `simple`: String(value). */
function simple(values: readonly (string | number | undefined)[], k: number): string | null {
  const v = values[k];
  return v === undefined ? null : String(v);
}

/** readMeta's `long`: the integer itself (a long slot holds only integers). */
function long(values: readonly (string | number | undefined)[], k: number): number | null {
  const v = values[k];
  return v === undefined ? null : (v as number);
}
