/**
 * Scripts in the update context (`_update`, bulk `update`,
 * `_update_by_query`): the script sees `ctx` (`_source`, `op`, `_index`,
 * `_type`, `_id`, `_version`, `_routing`, `_now`) and `params`, may change
 * `ctx._source` and set `ctx.op` (`noop`, `delete`, `index`). It runs when a
 * shard copy applies the op, on the document as of that op: a pure function
 * of the document, the script and the op, so every copy gets the same
 * answer (`_now` is the op's timestamp, not a clock).
 */
import { failedToExecuteScript, illegalArgument, isEsError, type EsError } from '../errors/es-errors.ts';
import type { ScriptRecord } from '../records/doc-op.ts';
import { compilePainless, type CompiledPainless } from './painless/interpreter.ts';
import { isMap, type ScriptMap, type Value } from './painless/values.ts';
import { checkLang } from './script-spec.ts';

/** Compiled scripts by source (Elasticsearch's script.cache.max_size default). */
const CACHE_SIZE = 100;
const cache = new Map<string, CompiledPainless>();

const UPDATE_GLOBALS = ['ctx', 'params'] as const;

/** A compiled update-context script; compiling the same source again reuses it. */
export function compileUpdateScript(source: string): CompiledPainless {
  let c = cache.get(source);
  if (c !== undefined) {
    cache.delete(source);
    cache.set(source, c);
    return c;
  }
  c = compilePainless(source, UPDATE_GLOBALS);
  cache.set(source, c);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return c;
}

export interface UpdateScriptDoc {
  readonly index: string;
  readonly type: string;
  readonly id: string;
  readonly version: number;
  readonly routing: string | null;
  /** The op's timestamp (epoch ms): `ctx._now`. */
  readonly now: number;
  /** The document's source (or the upsert document for a scripted upsert). */
  readonly source: Buffer;
  /** `ctx.op` before the script: `index` for an update, `create` for a scripted upsert. */
  readonly op: 'index' | 'create';
}

export type UpdateScriptOutcome =
  | { readonly op: 'index' | 'create'; readonly source: Buffer }
  | { readonly op: 'noop' }
  | { readonly op: 'delete' };

/** Metadata a by-query script may read but not change (AbstractAsyncBulkByScrollAction's checks). */
const BY_QUERY_FIXED = ['_index', '_type', '_id', '_version', '_routing'] as const;

/**
 * Runs an update script on a document. `byQuery` applies
 * `_update_by_query`'s rules: ctx.op must be `noop`, `index` or `delete`, and
 * the metadata fields may not change. A failure is the update API's
 * `failed to execute script` error.
 */
export function runUpdateScript(script: ScriptRecord, doc: UpdateScriptDoc, byQuery: boolean): UpdateScriptOutcome {
  try {
    checkLang(script.lang);
    const compiled = compileUpdateScript(script.source);
    const source = JSON.parse(doc.source.toString('utf8')) as Value;
    const ctx: ScriptMap = {
      _index: doc.index,
      _type: doc.type,
      _id: doc.id,
      _version: doc.version,
      _routing: doc.routing,
      _now: doc.now,
      op: doc.op,
      _source: source,
    };
    if (byQuery) delete ctx._now;
    const params = JSON.parse(script.params_json) as Value;
    compiled.run({ ctx, params: isMap(params) ? params : {} });
    if (byQuery) {
      for (const key of BY_QUERY_FIXED) {
        const before = key === '_index' ? doc.index : key === '_type' ? doc.type : key === '_id' ? doc.id : key === '_version' ? doc.version : doc.routing;
        if (ctx[key] !== before) throw illegalArgument(`Modifying [${key}] not allowed`);
      }
    }
    const op = ctx.op;
    const out = ctx._source;
    if (byQuery && op !== 'noop' && op !== 'index' && op !== 'delete') {
      throw illegalArgument(`Operation type [${String(op)}] not allowed, only [noop, index, delete] are allowed`);
    }
    switch (op) {
      case 'noop':
      case 'none':
        return { op: 'noop' };
      case 'delete':
        return { op: 'delete' };
      case 'index':
      case 'create':
        if (!isMap(out)) throw illegalArgument('ctx._source must be a map');
        return { op: doc.op, source: Buffer.from(JSON.stringify(out), 'utf8') };
      default:
        // UpdateHelper: an unknown op is logged and treated as a noop.
        return { op: 'noop' };
    }
  } catch (err) {
    if (!isEsError(err)) throw err;
    throw wrap(err);
  }
}

function wrap(err: EsError): EsError {
  return err.type === 'script_exception' ? failedToExecuteScript(err) : err;
}

/** Every variable some script context provides: a stored script may be used in any of them. */
const ANY_CONTEXT_GLOBALS = ['ctx', 'params', 'doc', '_score'] as const;

/** Compiles a script for storing: it must parse and use only variables some context provides. */
export function checkStoredScript(source: string): void {
  compilePainless(source, ANY_CONTEXT_GLOBALS);
}
