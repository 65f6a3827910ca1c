/**
 * `_bulk` (NDJSON) and `_mget`.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError, actionRequestValidation, illegalArgument, isEsError, renderError } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import type { GetRequest } from '../../coordinator/doc-reader.ts';
import type { WriteItemResult, WriteRequest } from '../../coordinator/write-coordinator.ts';
import { params, query, rawBody, jsonBodySliced, type Query } from '../params.ts';
import { stringifyWithRaw } from '../reply.ts';
import { getResponse, updateBody, updateGetSection, versionType, writeOptions, writeResponse, writeStatus, type StoredScriptLookup } from './documents.ts';
import { assertUtf8, parseStrictJson } from '../../../../shared/json/strict-json.ts';
import { writeRequestProblems } from '../../coordinator/write-validation.ts';
import { securityOf } from '../../security/request-security.ts';
import { yieldToEventLoop } from '../time-slice.ts';
import { writeSlice } from '../../../../shared/steps/searches-first.ts';
import { quickActionLine, readActionLine, type ActionMeta } from './bulk-action-line.ts';
import { JsonBytes, plainGetOptions } from '../get-json.ts';
import { BulkItemWriter } from './bulk-response.ts';
import { JsonWriter } from '../../../../shared/json/json-writer.ts';

interface ParsedItem {
  readonly action: 'index' | 'create' | 'update' | 'delete';
  /** The request, or the validation error that fails this item alone. */
  readonly req: WriteRequest | null;
  readonly error: EsError | null;
  readonly index: string;
  readonly type: string;
  readonly id: string | null;
  /** `_source` wanted back from an update (action line, update body, or URL). */
  readonly sourceSpec: unknown;
}

/** Whitespace only, as String#trim decides it; ASCII is judged on the bytes, without decoding the line. */
function isBlank(body: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const b = body[k];
    if (b >= 0x80) return body.toString('utf8', start, end).trim() === '';
    if (b !== 0x20 && (b < 0x09 || b > 0x0d)) return false;
  }
  return true;
}

function str(v: unknown): string | null {
  return v === undefined || v === null ? null : String(v);
}

/** The [start, end) byte ranges of the body's lines (the body ends with a newline), two numbers a line. */
function lineRanges(body: Buffer): Float64Array {
  let lines = 0;
  for (let at = body.indexOf(10); at >= 0; at = body.indexOf(10, at + 1)) lines++;
  const out = new Float64Array(2 * lines);
  let start = 0;
  for (let k = 0; k < out.length; k += 2) {
    const nl = body.indexOf(10, start);
    out[k] = start;
    out[k + 1] = nl;
    start = nl + 1;
  }
  return out;
}

/**
 * A `_bulk` body read through once (parseBulk): every item checked as
 * Elasticsearch's BulkRequest.add and validate check them, but kept as the
 * positions of its lines, not as objects. The handler builds a slice's items
 * again from the bytes (item()) just before it writes them: a 10 MB bulk's
 * 50,000 items held as objects until it answered outlived the young
 * generation, and the collector's copying of them held this thread (issue 11).
 */
export class BulkItems {
  /** Items built in the first reading and kept (updates, items that fail alone, rare): by item. */
  private readonly kept = new Map<number, ParsedItem>();
  /** With security on, the items the user may not write (decided before anything is written): by item. */
  readonly refused = new Map<number, EsError>();

  constructor(
    private readonly body: Buffer,
    private readonly ranges: Float64Array,
    /** Per item: the line index of its action line, and of its source line (-1: none). */
    private readonly lines: Int32Array,
    readonly count: number,
    /** The indices the items name, in order of first mention (the task's description). */
    readonly indices: readonly string[],
    private readonly ctx: ItemContext,
  ) {}

  keep(k: number, item: ParsedItem): void {
    this.kept.set(k, item);
  }

  /** Item k, built from its lines as the first reading built it (that reading found nothing to refuse). */
  item(k: number): ParsedItem {
    const kept = this.kept.get(k);
    if (kept !== undefined) return kept;
    const a = this.lines[2 * k]!;
    const s = this.lines[2 * k + 1]!;
    const { body, ranges } = this;
    const start = ranges[2 * a]!;
    const end = ranges[2 * a + 1]!;
    const { action, meta } = quickActionLine(body, start, end) ?? readActionLine(body.toString('utf8', start, end), a + 1);
    // A view of the request body, not a copy: the source goes to the log exactly as sent.
    const source = s < 0 ? null : body.subarray(ranges[2 * s], ranges[2 * s + 1]);
    return buildItem(action, meta, source, '', this.ctx, null);
  }
}

interface ItemContext {
  readonly defaults: { index?: string; type?: string };
  readonly q: Query;
  readonly urlSourceSpec: unknown;
  readonly stored: StoredScriptLookup;
}

/** One item from its action and source; `problems` (when given) gets BulkRequest.validate's complaints about it. */
function buildItem(
  action: ParsedItem['action'],
  meta: ActionMeta,
  source: Buffer | null,
  sourceText: string,
  ctx: ItemContext,
  problems: string[] | null,
): ParsedItem {
  const index = meta.index ?? ctx.defaults.index ?? null;
  const type = meta.type ?? ctx.defaults.type ?? null;
  const id = meta.id;
  let sourceSpec: unknown = meta.sourceSpec ?? ctx.urlSourceSpec;
  let req: WriteRequest | null = null;
  let error: EsError | null = null;
  if (id === '') {
    error = illegalArgument('if _id is specified it must not be empty');
  } else if (index === null || type === null) {
    error = actionRequestValidation([...(index === null ? ['index is missing'] : []), ...(type === null ? ['type is missing'] : [])]);
  } else {
    try {
      const built = toWriteRequest(action, index, type, id, meta, source, sourceText, ctx.q, ctx.stored);
      req = built.req;
      if (built.sourceSpec !== undefined) sourceSpec = built.sourceSpec;
      if (problems !== null) {
        const found = writeRequestProblems(req);
        if (found.length > 0) problems.push(...found);
      }
    } catch (err) {
      if (!isEsError(err)) throw err;
      error = err;
    }
  }
  return { action, req, error, index: index ?? '', type: type ?? '', id, sourceSpec };
}

/**
 * Reads an NDJSON bulk body through, as Elasticsearch's BulkRequest.add
 * does, and throws what refuses the request as a whole (BulkRequest.validate
 * too) before anything is written. Runs once per document of every load:
 * nothing computed per item that the request fixes, and nothing kept per
 * item but its lines' positions (BulkItems). A body may be 100 MB: the
 * lines are read in time slices (time-slice.ts), not in one stretch of this
 * thread. `refusal` (security) decides which items fail alone with 403.
 */
export async function parseBulk(
  body: Buffer,
  defaults: { index?: string; type?: string },
  q: Query,
  stored: StoredScriptLookup = () => undefined,
  refusal: ((action: ParsedItem['action'], index: string) => EsError | null) | null = null,
): Promise<BulkItems> {
  if (body[body.length - 1] !== 10) throw illegalArgument('The bulk request must be terminated by a newline [\\n]');
  assertUtf8(body);
  const ranges = lineRanges(body);
  const lineCount = ranges.length / 2;
  const lineText = (i: number) => body.toString('utf8', ranges[2 * i], ranges[2 * i + 1]);
  const blank = (i: number) => isBlank(body, ranges[2 * i], ranges[2 * i + 1]);
  let urlSourceSpec: unknown = q._source;
  if (urlSourceSpec === undefined && (q._source_includes ?? q._source_excludes) !== undefined) {
    urlSourceSpec = { includes: q._source_includes?.split(',') ?? [], excludes: q._source_excludes?.split(',') ?? [] };
  }
  const ctx: ItemContext = { defaults, q, urlSourceSpec, stored };
  const lines = new Int32Array(lineCount * 2);
  const indices = new Set<string>();
  const kept: [number, ParsedItem][] = [];
  const refused: [number, EsError][] = [];
  let count = 0;
  const problems: string[] = [];
  const slice = writeSlice();
  for (let i = 0; i < lineCount; i++) {
    if ((i & 31) === 0 && slice.due()) await slice.pause();
    if (blank(i)) continue;
    const actionLine = i;
    // Most action lines are read from their bytes; readActionLine reads the rest, with every error.
    const { action, meta } = quickActionLine(body, ranges[2 * i], ranges[2 * i + 1]) ?? readActionLine(lineText(i), i + 1);
    let sourceText = '';
    let sourceLine = -1;
    if (action !== 'delete') {
      i++;
      while (i < lineCount - 1 && blank(i)) i++;
      if (i >= lineCount || blank(i)) throw illegalArgument(`Validation Failed: 1: source is missing;`);
      // An index or create document is read by the mapping check (WriteRequest.bulkSource), not here.
      if (action === 'update') sourceText = lineText(i);
      sourceLine = i;
    }
    // Without its source (BulkItems.item() gives it): nothing here reads an index or create document.
    const item = buildItem(action, meta, null, sourceText, ctx, problems);
    lines[2 * count] = actionLine;
    lines[2 * count + 1] = sourceLine;
    // An update's parsed body is kept rather than parsed twice; an item that fails alone is rare.
    if (action === 'update' || item.error !== null) kept.push([count, item]);
    if (refusal !== null && item.req !== null) {
      const refused1 = refusal(action, item.index);
      if (refused1 !== null) refused.push([count, refused1]);
    }
    indices.add(item.index);
    count++;
  }
  // BulkRequest.validate: a request with an invalid item is refused as a whole.
  if (problems.length > 0) throw actionRequestValidation(problems);
  const items = new BulkItems(body, ranges, lines, count, [...indices], ctx);
  for (const [k, item] of kept) items.keep(k, item);
  for (const [k, err] of refused) items.refused.set(k, err);
  return items;
}

function toWriteRequest(
  action: ParsedItem['action'],
  index: string,
  type: string,
  id: string | null,
  meta: ActionMeta,
  source: Buffer | null,
  sourceText: string,
  q: Query,
  stored: StoredScriptLookup,
): { req: WriteRequest; sourceSpec: unknown } {
  const routing = meta.routing ?? q.routing ?? null;
  const vType = versionType(meta.versionType ?? undefined);
  let src: Buffer | null = null;
  let update: WriteRequest['update'] = null;
  let sourceSpec: unknown = undefined;
  if (action === 'update') {
    const u = updateBody(parseStrictJson(sourceText), stored);
    update = u.update;
    sourceSpec = u.sourceSpec;
  } else if (action !== 'delete') {
    src = source;
  }
  const req: WriteRequest = {
    op: action,
    index,
    type,
    id,
    routing,
    source: src,
    version: meta.version,
    versionType: vType,
    ifSeqNo: meta.ifSeqNo,
    ifPrimaryTerm: meta.ifPrimaryTerm,
    update,
    bulkSource: src !== null,
  };
  return { req, sourceSpec };
}

function itemResponse(node: NodeContext, item: ParsedItem, r: WriteItemResult): Record<string, unknown> {
  if (r.ok) {
    const out: Record<string, unknown> = { ...writeResponse(r), status: writeStatus(r) };
    if (item.action === 'update') {
      const get = updateGetSection(node, r, item.sourceSpec);
      if (get) out.get = get;
    }
    return { [item.action]: out };
  }
  const rendered = renderError(r.error).error as Record<string, unknown>;
  delete rendered.root_cause;
  return {
    [item.action]: { _index: r.index, _type: r.type, _id: r.id, status: r.error.status, error: rendered },
  };
}

/**
 * Documents an `_mget` reads and renders between two turns of the event
 * loop. Larger reads (2,000) cost less CPU but kept this thread busy without
 * a wait for the workers in between: a `GET /` took 11 ms at the median
 * instead of 2.
 */
const MGET_SLICE = 250;

/**
 * Items of a `_bulk` handed to the write coordinator at once. Its work per
 * item (the mapping check, encoding, appending) runs on this thread, about
 * 10-20 µs an item: a 100 MB bulk at once held every other request for
 * seconds. A slice is appended only once the one before it is in the log, so
 * two items on one document still reach its shard in the request's order.
 */
const BULK_SLICE = 1000;

/**
 * Slices of a `_bulk` appended whose outcomes are still to come. Each holds
 * its items' requests, ops and results; with no bound, up to 15 of them
 * (15,000 items) waited on the copies during a 10 MB bulk, and the young
 * generation's collections copied them again and again on this thread. Three
 * still leave the copies two slices to apply while this thread reads the
 * next. Not with `refresh`: a slice's outcome then waits for a refresh.
 */
const BULK_IN_FLIGHT = 3;

const COMMA = Buffer.from(',');
const EMPTY = Buffer.alloc(0);
const END = Buffer.from(']}');

/** `_bulk` and `_mget` handlers (route-table.ts says which paths they serve). */
export function bulkHandlers(node: NodeContext) {
  const bulk = async (req: FastifyRequest, reply: FastifyReply) => {
    const start = Date.now();
    const q = query(req);
    const p = params(req);
    const body = rawBody(req);
    if (body === null) throw actionRequestValidation(['no requests added']);
    // With security on, an item the user may not write fails alone with 403 (AuthorizationService.authorizeBulkItems).
    const sec = securityOf(req);
    const items = await parseBulk(
      body,
      { index: p.index, type: p.type },
      q,
      (id) => node.cluster.storedScripts.get(id),
      sec === null ? null : (action, index) => sec.bulkItemRefusal(action, index),
    );
    if (items.count === 0) throw actionRequestValidation(['no requests added']);
    const task = { action: 'indices:data/write/bulk', description: `requests[${items.count}], indices[${items.indices.join(', ')}]`, cancellable: false };
    const options = writeOptions(q);
    // The response's items, a slice's JSON at a time, rendered as soon as the slice's outcomes are in.
    const rendered = new Array<Buffer>(Math.ceil(items.count / BULK_SLICE));
    let errors = false;
    const writer = new BulkItemWriter();
    await node.tasks.run(task, async () => {
      const clock = writeSlice();
      // A slice's items are read and appended while the copies still apply the
      // earlier slices' (the log keeps them in order): waiting for each slice's
      // outcomes before reading the next left this thread and the copies idle
      // in turn.
      const outcomes: Promise<void>[] = [];
      for (let from = 0; from < items.count; from += BULK_SLICE) {
        if (from > 0) await clock.pause();
        // At most BULK_IN_FLIGHT slices appended and not yet answered (see there); a refresh waits for them all at once.
        if (options.refresh === 'false' && outcomes.length >= BULK_IN_FLIGHT) await outcomes[outcomes.length - BULK_IN_FLIGHT];
        const n = Math.min(BULK_SLICE, items.count - from);
        const slice = new Array<ParsedItem>(n);
        const runnable: WriteRequest[] = [];
        for (let k = 0; k < n; k++) {
          const it = (slice[k] = items.item(from + k));
          if (it.req !== null && !items.refused.has(from + k)) runnable.push(it.req);
        }
        let appended!: () => void;
        const inLog = new Promise<void>((resolve) => (appended = resolve));
        const written = (runnable.length === 0 ? Promise.resolve([]) : node.writes.bulk(runnable, options, appended)).then(async (done) => {
          const out = new JsonWriter(256 * slice.length);
          if (await renderSlice(out, slice, from, done)) errors = true;
          rendered[from / BULK_SLICE] = out.take();
        });
        outcomes.push(written);
        if (runnable.length > 0) await Promise.race([inLog, written]);
      }
      await Promise.all(outcomes);
    });

    /**
     * Writes the JSON of a slice's items, in request order (refused and
     * failed-alone items with the outcomes of the others), and says whether
     * one failed.
     */
    async function renderSlice(out: JsonWriter, slice: readonly ParsedItem[], from: number, done: readonly WriteItemResult[]): Promise<boolean> {
      let k = 0;
      let failed = false;
      const clock = writeSlice();
      for (let i = 0; i < slice.length; i++) {
        if ((i & 255) === 255 && clock.due()) await clock.pause();
        if (i > 0) out.byte(0x2c);
        const it = slice[i]!;
        const refusal = items.refused.get(from + i);
        const r: WriteItemResult =
          refusal !== undefined
            ? { ok: false, index: it.index, type: it.type, id: it.id, error: refusal }
            : it.req
              ? done[k++]!
              : { ok: false, index: it.index, type: it.type, id: it.id, error: it.error! };
        if (!r.ok) failed = true;
        if (r.ok && it.action !== 'update') writer.success(out, it.action, r, writeStatus(r));
        else out.text(stringifyWithRaw(itemResponse(node, it, r)));
      }
      return failed;
    }

    // Written out whole: the items are most of a large response, and the generic serialiser would copy them again.
    const parts: Buffer[] = [Buffer.from(`{"took":${Date.now() - start},"errors":${errors},"items":[`)];
    rendered.forEach((b, k) => parts.push(k > 0 ? COMMA : EMPTY, b));
    parts.push(END);
    return reply.code(200).type('application/json; charset=UTF-8').send(Buffer.concat(parts));
  };

  const mget = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const body = ((await jsonBodySliced(req)) ?? {}) as Record<string, unknown>;
    type DocSpec = { _index?: unknown; _type?: unknown; _id?: unknown; routing?: unknown; _routing?: unknown; _source?: unknown; stored_fields?: unknown };
    let specs: DocSpec[];
    if (Array.isArray(body.docs)) specs = body.docs as DocSpec[];
    else if (Array.isArray(body.ids)) specs = (body.ids as unknown[]).map((id) => ({ _id: id }));
    else specs = [];
    if (specs.length === 0) throw actionRequestValidation(['no documents to get']);
    const sec = securityOf(req);
    const problems: string[] = [];
    specs.forEach((s, i) => {
      if ((s._index ?? p.index) === undefined) problems.push(`index is missing for doc ${i}`);
      if (s._id === undefined || s._id === null) problems.push(`id is missing for doc ${i}`);
    });
    if (problems.length > 0) throw actionRequestValidation(problems);
    if (q.refresh !== undefined && q.refresh !== 'false') {
      for (const idx of new Set(specs.map((s) => String(s._index ?? p.index)))) await node.refreshFor(idx).catch(() => undefined);
    }
    /** The URL parameters with this document's `_source` and `stored_fields`. */
    const docQuery = (s: DocSpec): Query => {
      const dq: Query = { ...q };
      if (s._source !== undefined) {
        if (typeof s._source === 'boolean') dq._source = String(s._source);
        else if (Array.isArray(s._source) || typeof s._source === 'string') dq._source = [s._source].flat().join(',');
        else if (typeof s._source === 'object' && s._source !== null) {
          const so = s._source as { includes?: unknown; include?: unknown; excludes?: unknown; exclude?: unknown };
          delete dq._source;
          const inc = so.includes ?? so.include;
          const exc = so.excludes ?? so.exclude;
          if (inc !== undefined) dq._source_includes = [inc].flat().join(',');
          if (exc !== undefined) dq._source_excludes = [exc].flat().join(',');
        }
      }
      if (s.stored_fields !== undefined) dq.stored_fields = [s.stored_fields].flat().join(',');
      return dq;
    };
    const requestOf = (s: DocSpec): GetRequest => ({
      index: String(s._index ?? p.index),
      type: s._type === undefined ? (p.type ?? null) : String(s._type),
      id: String(s._id),
      routing: str(s.routing ?? s._routing) ?? q.routing ?? null,
      version: null,
      realtime: q.realtime !== 'false',
    });
    /** The documents of specs[from, from + MGET_SLICE): each shard's ids in one read. */
    const read = async (from: number) => {
      const slice = specs.slice(from, from + MGET_SLICE);
      const reqs = slice.map(requestOf);
      // With security on, a document of an index the user may not read fails alone with 403.
      const refusals = reqs.map((r) => sec?.indexRefusal('indices:data/read/mget', r.index, 'indices:data/read/mget[shard]') ?? null);
      const got = await node.reader.getMany(reqs.filter((_, i) => refusals[i] === null));
      let k = 0;
      return { slice, reqs, results: reqs.map((_, i) => refusals[i] ?? got[k++]!) };
    };
    const plainQuery = plainGetOptions(q);
    // Read, rendered (as bytes) and sent a slice at a time, the next slice's
    // read under way meanwhile, with a turn of the event loop between slices:
    // 100,000 ids at once held this thread for seconds, and every other
    // request with it.
    async function* chunks(): AsyncGenerator<string | Buffer> {
      yield '{"docs":[';
      const out = new JsonBytes();
      let next = read(0);
      for (let from = 0; from < specs.length; from += MGET_SLICE) {
        const { slice, reqs, results } = await next;
        if (from + MGET_SLICE < specs.length) {
          next = read(from + MGET_SLICE);
          // Awaited at the next slice; a client gone before then leaves it unobserved.
          next.catch(() => undefined);
        }
        for (let i = 0; i < slice.length; i++) {
          if (from + i > 0) out.append(',');
          const req = reqs[i]!;
          const r = results[i]!;
          const spec = slice[i]!;
          const own = spec._source !== undefined || spec.stored_fields !== undefined;
          if (!isEsError(r) && !own && plainQuery.plain) {
            out.plainGet(r, plainQuery.source);
            continue;
          }
          const failed = (err: EsError) => ({ _index: req.index, _type: req.type ?? '_all', _id: req.id, error: renderError(err).error as Record<string, unknown> });
          let body: Record<string, unknown>;
          try {
            body = isEsError(r) ? failed(r) : getResponse(r, own ? docQuery(spec) : q);
          } catch (err) {
            if (!isEsError(err)) throw err;
            body = failed(err);
          }
          out.append(stringifyWithRaw(body));
        }
        yield out.take();
        if (from + MGET_SLICE < specs.length) await yieldToEventLoop();
      }
      yield ']}';
    }
    return reply.code(200).type('application/json; charset=UTF-8').send(Readable.from(chunks()));
  };

  return { bulk, mget };
}

