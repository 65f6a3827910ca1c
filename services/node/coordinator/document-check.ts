/**
 * The mapping check of a write (DESIGN.md 2, "Writes"): each document is
 * parsed against its index's mapping before it is appended, so that a
 * document the mapping refuses fails alone and a dynamic mapping update goes
 * through the meta log before the op that needs it.
 *
 * Parsing costs about 10 ms a megabyte. A 10 MB document parsed in one go on
 * the thread that serves HTTP held every other request for 100-300 ms, so a
 * document of LARGE_DOCUMENT_BYTES or more is checked on a thread of its own
 * (document-check-thread.ts), and a run of small ones hands the HTTP thread
 * back every INDEXING_SLICE_MS. The outcome is the same either way: documents are
 * checked in order, each against the mapping its predecessors extended.
 */
import { writeSlice } from '../../../shared/steps/searches-first.ts';
import type { Worker } from 'node:worker_threads';
import { newThread } from '../shard-worker/new-thread.ts';
import { EsError, isEsError, javaCause, mapperParsing } from '../../../shared/errors/es-errors.ts';
import { parseStrictJson } from '../../../shared/json/strict-json.ts';
import { errorFromWire, errorToWire, type RemoteError } from '../../../shared/errors/transport-errors.ts';
import { Mapping, type MappingOptions } from '../../../shared/engine/mapping/mapping.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';

/** A document this large (bytes) is parsed on the check thread. */
export const LARGE_DOCUMENT_BYTES = 256 * 1024;

/** What a document is checked against, besides the mapping itself. */
export interface CheckContext {
  /** The mapping type a dynamic update is merged under. */
  readonly type: string;
  readonly index: string;
  readonly nestedObjectsLimit: number;
  /** The index's `analysis` settings and `max_ngram_diff` (a dynamic template may name an analyzer). */
  readonly analysis: unknown;
  readonly maxNgramDiff: number;
  readonly totalFieldsLimit: number;
  readonly depthLimit: number;
  readonly nestedFieldsLimit: number;
}

/**
 * One write item's documents (an update's doc and upsert are two); `parsed`
 * is the first one already parsed. `bulkSource`: the first is a `_bulk` index
 * or create document not read yet: read strictly here, and a body that is not
 * a JSON object fails the item with bulkDocumentObject's error.
 */
export interface CheckItem {
  readonly docs: readonly Buffer[];
  readonly parsed?: Record<string, unknown>;
  readonly bulkSource?: boolean;
}

export interface CheckOutcome {
  readonly mapping: Mapping;
  /** The mapping's JSON when documents extended it, else null. */
  readonly updatedJson: string | null;
  /** Per item: the error that refuses it, or null. */
  readonly errors: (EsError | null)[];
}

/** The thread's job: a run of items checked against one mapping, or (`validate`) one body read as a document. */
export type CheckJob =
  | {
      readonly kind: 'mapping';
      readonly job: number;
      readonly mappingJson: string | null;
      readonly context: CheckContext;
      readonly items: readonly { readonly docs: readonly Uint8Array[]; readonly bulkSource: boolean }[];
    }
  | { readonly kind: 'validate'; readonly job: number; readonly body: Uint8Array };

export interface CheckJobResult {
  readonly job: number;
  readonly updatedJson: string | null;
  readonly errors: (RemoteError | null)[];
  /** The thread itself failed (not a document): the caller checks inline. */
  readonly failure: string | null;
  /** A validate job's body, moved back: the mapping check of the same document sends it again instead of a new copy. */
  readonly body?: Uint8Array;
}

type AnalyzerExists = (name: string) => boolean;

function mergeOptions(ctx: CheckContext, analyzerExists: AnalyzerExists): MappingOptions {
  return {
    analyzerExists,
    index: ctx.index,
    totalFieldsLimit: ctx.totalFieldsLimit,
    depthLimit: ctx.depthLimit,
    nestedFieldsLimit: ctx.nestedFieldsLimit,
  };
}

/**
 * A document body (index, create) read strictly, with the errors
 * Elasticsearch gives a body that is not a JSON object.
 */
export function documentSource(raw: Uint8Array): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseStrictJson(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  } catch (err) {
    const cause = isEsError(err) ? err : new EsError('json_parse_exception', err instanceof Error ? err.message : String(err), 400);
    throw new EsError('mapper_parsing_exception', 'failed to parse', 400, {}, cause);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EsError(
      'mapper_parsing_exception',
      'failed to parse',
      400,
      {},
      new EsError('not_x_content_exception', 'Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes', 500),
    );
  }
  return parsed as Record<string, unknown>;
}

/**
 * A `_bulk` index or create document read strictly; one that is not a JSON
 * object fails its item as Elasticsearch's mapper does. (Decoded without a
 * UTF-8 check of its own: parseBulk checked the whole body once.)
 */
export function bulkDocumentObject(source: Uint8Array): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseStrictJson(Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8'));
  } catch (err) {
    throw new EsError('mapper_parsing_exception', 'failed to parse', 400, {}, isEsError(err) ? err : new EsError('json_parse_exception', (err as Error).message, 400));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EsError('mapper_parsing_exception', 'failed to parse', 400);
  }
  return parsed as Record<string, unknown>;
}

export function parseSourceObject(buf: Uint8Array): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('utf8'));
  } catch (err) {
    throw mapperParsing('failed to parse', javaCause('json_parse_exception', (err as Error).message));
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw mapperParsing('failed to parse, document is empty');
  return v as Record<string, unknown>;
}

/**
 * Checks one item against `mapping`: the mapping it leaves (extended or not),
 * or throws the item's error. A document the quick check passes is not parsed
 * at all (Mapping.passesQuickCheck: parse() would accept it and add nothing).
 */
export function checkItem(
  mapping: Mapping,
  docs: readonly Uint8Array[],
  parsed: Record<string, unknown> | undefined,
  ctx: CheckContext,
  analyzerExists: AnalyzerExists,
  bulkSource = false,
): Mapping {
  let m = mapping;
  for (let d = 0; d < docs.length; d++) {
    if (d === 0 && parsed !== undefined) {
      const result = m.parse(parsed, ctx.nestedObjectsLimit, false);
      if (result.dynamicUpdate) m = m.merge(ctx.type, result.dynamicUpdate, mergeOptions(ctx, analyzerExists));
      continue;
    }
    if (m.passesQuickCheck(docs[d]!)) continue;
    const source = d === 0 && bulkSource ? bulkDocumentObject(docs[d]!) : parseSourceObject(docs[d]!);
    const result = m.parse(source, ctx.nestedObjectsLimit, false);
    if (result.dynamicUpdate) m = m.merge(ctx.type, result.dynamicUpdate, mergeOptions(ctx, analyzerExists));
  }
  return m;
}

/** The check thread's work: the items in order, the mapping extended as they go; or the body's error. */
export function runCheckJob(job: CheckJob): CheckJobResult {
  if (job.kind === 'validate') {
    try {
      documentSource(job.body);
      return { job: job.job, updatedJson: null, errors: [null], failure: null, body: job.body };
    } catch (err) {
      if (!isEsError(err)) throw err;
      return { job: job.job, updatedJson: null, errors: [errorToWire(err)], failure: null };
    }
  }
  const registry = AnalysisRegistry.fromIndexSettings(job.context.analysis, { maxNgramDiff: job.context.maxNgramDiff });
  const analyzerExists = (n: string): boolean => registry.get(n) !== undefined;
  const start = job.mappingJson === null ? Mapping.empty(job.context.type) : Mapping.fromJSON(job.context.type, JSON.parse(job.mappingJson), { analyzerExists });
  let mapping = start;
  const errors: (RemoteError | null)[] = [];
  for (const item of job.items) {
    try {
      mapping = checkItem(mapping, item.docs, undefined, job.context, analyzerExists, item.bulkSource);
      errors.push(null);
    } catch (err) {
      if (!isEsError(err)) throw err;
      errors.push(errorToWire(err));
    }
  }
  return { job: job.job, updatedJson: mapping === start ? null : JSON.stringify(mapping.toJSON()), errors, failure: null };
}


interface Pending {
  readonly resolve: (r: CheckJobResult) => void;
}

/**
 * The check thread: started with the first large document, jobs answered in
 * the order sent. A thread that dies fails its jobs over to inline checks.
 */
export class DocumentChecker {
  private thread: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextJob = 1;
  /** The JSON of each mapping sent, computed once. */
  private readonly jsonOf = new WeakMap<Mapping, string>();
  /**
   * The thread's copy of a body it validated, by the request's buffer: its
   * mapping check moves that copy to the thread again. A 10 MB document was
   * copied twice on the thread that serves HTTP (issue 11, item 6).
   */
  private readonly threadCopies = new WeakMap<Uint8Array, Uint8Array>();

  /**
   * Checks the items in order against `mapping`: small documents inline, in
   * slices; large ones on the thread.
   */
  async check(mapping: Mapping, isNew: boolean, items: readonly CheckItem[], ctx: CheckContext, analyzerExists: AnalyzerExists): Promise<CheckOutcome> {
    const errors: (EsError | null)[] = new Array(items.length).fill(null);
    let m = mapping;
    let updatedJson: string | null = null;
    const clock = writeSlice();
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (isLarge(item)) {
        const r = await this.onThread(isNew && m === mapping ? null : this.json(m), item, ctx);
        if (r !== null) {
          if (r.errors[0]) errors[i] = errorFromWire(r.errors[0]);
          else if (r.updatedJson !== null) {
            m = Mapping.fromJSON(ctx.type, JSON.parse(r.updatedJson), { analyzerExists });
            this.jsonOf.set(m, r.updatedJson);
          }
          continue;
        }
      }
      try {
        m = checkItem(m, item.docs, item.parsed, ctx, analyzerExists, item.bulkSource === true);
      } catch (err) {
        if (!isEsError(err)) throw err;
        errors[i] = err;
      }
      if (clock.due()) await clock.pause();
    }
    if (m !== mapping) updatedJson = this.json(m);
    return { mapping: m, updatedJson, errors };
  }

  close(): Promise<number> | undefined {
    const t = this.thread;
    this.thread = null;
    return t?.terminate();
  }

  private json(m: Mapping): string {
    let s = this.jsonOf.get(m);
    if (s === undefined) {
      s = JSON.stringify(m.toJSON());
      this.jsonOf.set(m, s);
    }
    return s;
  }

  /** The item's outcome from the thread, or null when the thread failed (the caller checks inline). */
  private onThread(mappingJson: string | null, item: CheckItem, ctx: CheckContext): Promise<CheckJobResult | null> {
    // A copy of each document, moved to the thread (not copied again by postMessage): a Buffer sliced from a request body would send the whole body along.
    const docs = item.docs.map((d) => {
      const copy = this.threadCopies.get(d);
      this.threadCopies.delete(d);
      return copy ?? new Uint8Array(d);
    });
    return this.send({ kind: 'mapping', job: this.nextJob++, mappingJson, context: ctx, items: [{ docs, bulkSource: item.bulkSource === true }] }, docs.map((d) => d.buffer as ArrayBuffer));
  }

  /**
   * Reads a document body as documentSource does, on the thread when it is
   * large (nothing of it is kept: the mapping check reads it again there).
   * Throws the body's error; the parsed document when it was read here.
   */
  async validate(body: Buffer): Promise<Record<string, unknown> | undefined> {
    if (body.length < LARGE_DOCUMENT_BYTES) return documentSource(body);
    const copy = new Uint8Array(body);
    const r = await this.send({ kind: 'validate', job: this.nextJob++, body: copy }, [copy.buffer]);
    if (r === null) return documentSource(body);
    if (r.errors[0]) throw errorFromWire(r.errors[0]);
    if (r.body !== undefined) this.threadCopies.set(body, r.body);
    return undefined;
  }

  /** `transfer`: buffers of the job moved to the thread (a 10 MB document is copied once, not twice, on the thread serving HTTP). */
  private send(job: CheckJob, transfer: ArrayBuffer[]): Promise<CheckJobResult | null> {
    return new Promise((resolve) => {
      this.pending.set(job.job, { resolve });
      try {
        const thread = this.threadNow();
        // Referenced while it has work: an idle check thread must not keep the node alive, a busy one must.
        thread.ref();
        thread.postMessage(job, transfer);
      } catch {
        this.pending.delete(job.job);
        resolve(null);
      }
    }).then((r) => ((r as CheckJobResult).failure === null ? (r as CheckJobResult) : null));
  }

  private threadNow(): Worker {
    if (this.thread !== null) return this.thread;
    const thread = newThread(import.meta.url, './document-check-thread', { name: 'document-check' });
    thread.on('message', (r: CheckJobResult) => {
      const p = this.pending.get(r.job);
      this.pending.delete(r.job);
      if (this.pending.size === 0) thread.unref();
      p?.resolve(r);
    });
    const lost = (): void => {
      if (this.thread === thread) this.thread = null;
      for (const [job, p] of this.pending) p.resolve({ job, updatedJson: null, errors: [], failure: 'check thread exited' });
      this.pending.clear();
    };
    thread.on('error', lost);
    thread.on('exit', lost);
    thread.unref();
    this.thread = thread;
    return thread;
  }
}

function isLarge(item: CheckItem): boolean {
  let bytes = 0;
  for (const d of item.docs) bytes += d.length;
  return bytes >= LARGE_DOCUMENT_BYTES;
}
