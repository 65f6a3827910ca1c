/**
 * Coordinates document writes (DESIGN.md 2, "Writes"): resolves the target
 * index (auto-creating it), validates the document against the mapping
 * (dynamic mapping updates go through the meta log first), routes it to its
 * shard, appends DocOps per shard and answers with the outcome the shard
 * copies applied.
 */
import { randomBytes } from 'node:crypto';
import {
  type EsError,
  actionRequestValidation,
  illegalArgument,
  isEsError,
  mapperParsing,
  indexNotFound,
  internalError,
  timeoutException,
  unavailableShards,
} from '../../../shared/errors/es-errors.ts';
import { docOpCodec, type DocOp, type OpType, type UpdateBody, type VersionType } from '../../../shared/records/doc-op.ts';
import { shardForDocument } from '../../../shared/routing/shard-routing.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { DocumentChecker, parseSourceObject, type CheckItem } from './document-check.ts';
import type { CommitLog } from '../../../shared/log/commit-log.ts';
import type { MetaService } from '../cluster/meta-service.ts';
import { mappingLimits, type IndexMetadata } from '../cluster/index-metadata.ts';
import type { IndicesService } from '../indexer/indices-service.ts';
import type { CopyRoute, ShardDirectory } from '../copies/shard-directory.ts';
import type { CopyAccess } from '../copies/copy-access.ts';
import type { DocOutcome, WriteResult } from '../shard-worker/apply-doc-op.ts';
import { orNullAfter } from '../timeouts.ts';
import { formatTimeValue } from '../../../shared/engine/mapping/time-value.ts';
import type { RequestIds } from '../request-ids.ts';
import { resolveWriteIndex, validateNewIndexName } from '../cluster/index-resolver.ts';
import type { IndexAdmin } from './index-admin.ts';
import { SpanKind, currentTraceHeaders, inSpan, type Attributes } from '../../../shared/telemetry/spans.ts';
import { writeSlice } from '../../../shared/steps/searches-first.ts';
import {
  ATTR_INDEX,
  ATTR_ITEMS,
  ATTR_MESSAGING_BATCH_MESSAGE_COUNT,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_DESTINATION_PARTITION_ID,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_OFFSET_FIRST,
  ATTR_OFFSET_LAST,
  ATTR_SHARD,
} from '../../../shared/telemetry/attributes.ts';

export type RefreshPolicy = 'false' | 'true' | 'wait_for';

export interface WriteRequest {
  readonly op: 'index' | 'create' | 'update' | 'delete';
  readonly index: string;
  readonly type: string;
  readonly id: string | null;
  readonly routing: string | null;
  /** The document JSON as sent (index, create). */
  readonly source: Buffer | null;
  readonly version: number | null;
  readonly versionType: VersionType;
  readonly ifSeqNo: number | null;
  readonly ifPrimaryTerm: number | null;
  readonly update: UpdateBody | null;
  /**
   * `source` already parsed by the REST layer, so it is not parsed twice.
   * The coordinator clears it once the document is validated: a bulk request
   * must not hold every parsed document until it answers (they would all
   * outlive the young generation).
   */
  parsedSource?: Record<string, unknown>;
  /**
   * `source` is a `_bulk` document no one has read yet: the mapping check
   * reads it (strictly, or not at all when the quick check passes it), and
   * one that is not a JSON object fails this item alone with
   * bulkDocumentObject's error.
   */
  readonly bulkSource?: boolean;
}

export interface WriteSuccess {
  readonly ok: true;
  readonly index: string;
  readonly type: string;
  readonly id: string;
  readonly version: number;
  readonly result: WriteResult;
  readonly seqNo: number;
  readonly shardsTotal: number;
  readonly shardsSuccessful: number;
  /** The document source after the write (updates that return `_source`). */
  readonly source: Buffer | null;
  readonly forcedRefresh: boolean;
}

export interface WriteFailure {
  readonly ok: false;
  readonly index: string;
  readonly type: string;
  readonly id: string | null;
  readonly error: EsError;
}

export type WriteItemResult = WriteSuccess | WriteFailure;

export interface WriteOptions {
  readonly refresh: RefreshPolicy;
  /** Milliseconds to wait for the outcome. */
  readonly timeoutMs: number;
  /**
   * `wait_for_active_shards` (or the 5.x `consistency`): copies that must be
   * started before the write is appended; `all` = number_of_replicas + 1.
   * Default 1.
   */
  readonly waitForActiveShards?: number | 'all' | 'quorum';
  /** `sync` (default): answer once every started copy applied the write; `async`: once the first did. */
  readonly replication?: 'sync' | 'async';
}

/** How often a write that waits for enough started copies looks again. */
const ACTIVE_COPIES_POLL_MS = 100;

/** Elasticsearch's generated ids are 20 URL-safe base64 characters; ours lead with time for locality. */
export function generateId(now = Date.now()): string {
  const buf = Buffer.allocUnsafe(15);
  buf.writeUIntBE(now, 0, 6);
  randomBytes(9).copy(buf, 6);
  return buf.toString('base64url');
}

interface Prepared {
  readonly item: number;
  readonly meta: IndexMetadata;
  readonly shard: number;
  /** The partition of the index's log the op is appended to (its shard, but for an index that shares a rebuilt-from log). */
  readonly partition: number;
  readonly op: DocOp;
}

const OP_TYPES: Record<WriteRequest['op'], OpType> = { index: 'INDEX', create: 'CREATE', update: 'UPDATE', delete: 'DELETE' };

export class WriteCoordinator {
  constructor(
    private readonly log: CommitLog,
    private readonly meta: MetaService,
    private readonly indices: IndicesService,
    private readonly admin: IndexAdmin,
    private readonly ids: RequestIds,
    private readonly directory: ShardDirectory,
    private readonly access: CopyAccess,
    readonly checker = new DocumentChecker(),
  ) {}

  async write(req: WriteRequest, opts: WriteOptions): Promise<WriteItemResult> {
    return (await this.bulk([req], opts))[0];
  }

  /**
   * Executes the items; one failing item never affects the others. Results
   * are in request order. `onAppended` is called once every item is in the
   * log or refused before it (the outcomes still to come): a caller may
   * then append its next items, which the copies apply after these.
   */
  async bulk(reqs: readonly WriteRequest[], opts: WriteOptions, onAppended?: () => void): Promise<WriteItemResult[]> {
    let toldAppended = false;
    const appended = () => {
      if (toldAppended) return;
      toldAppended = true;
      onAppended?.();
    };
    const results: (WriteItemResult | undefined)[] = new Array(reqs.length);
    const now = Date.now();
    const targets = await this.resolveTargets(reqs, results);
    await this.applyDynamicMappings(reqs, targets, results);

    const prepared: Prepared[] = [];
    // A bulk's slice of 1,000 items: its preparing, encoding and outcomes give the HTTP thread turns (issue 11).
    const clock = writeSlice();
    for (let i = 0; i < reqs.length; i++) {
      if ((i & 63) === 63 && clock.due()) await clock.pause();
      if (results[i]) continue;
      const meta = this.meta.state.indexByUuid(targets[i]!.uuid);
      if (!meta) {
        results[i] = failure(reqs[i], indexNotFound(reqs[i].index));
        continue;
      }
      try {
        prepared.push(this.prepare(i, reqs[i], meta, targets[i]!.aliasRouting, now));
      } catch (err) {
        if (!isEsError(err)) throw err;
        results[i] = failure(reqs[i], err, meta.name);
      }
    }
    await this.appendAndAwait(prepared, results, opts, appended);
    // Nothing to append (every item refused), or an append that failed.
    appended();
    await this.mapScriptedFields(reqs, results);
    return results.map((r, i) => r ?? failure(reqs[i], internalError('the write was neither appended nor refused')));
  }

  /**
   * A script may add fields the mapping does not have. The copies indexed
   * them by dynamic mapping when they applied the op; the index's mapping
   * learns them here, from the sources the scripts produced, as a document
   * with new fields updates it before it is appended.
   */
  private async mapScriptedFields(reqs: readonly WriteRequest[], results: readonly (WriteItemResult | undefined)[]): Promise<void> {
    const updates = new Map<string, { type: string; mapping: Mapping; changed: boolean }>();
    for (let i = 0; i < reqs.length; i++) {
      const r = results[i];
      if (reqs[i]!.update?.script == null || !r?.ok || r.source === null || (r.result !== 'updated' && r.result !== 'created')) continue;
      const meta = this.meta.state.index(r.index);
      if (!meta) continue;
      let w = updates.get(meta.uuid);
      if (!w) {
        w = { type: r.type, mapping: meta.mapping ?? Mapping.empty(r.type), changed: false };
        updates.set(meta.uuid, w);
      }
      try {
        const parsed = w.mapping.parse(parseSourceObject(r.source), undefined, false);
        if (parsed.dynamicUpdate) {
          w.mapping = w.mapping.merge(w.type, parsed.dynamicUpdate, { analyzerExists: (n: string) => meta.analyzers.get(n) !== undefined });
          w.changed = true;
        }
      } catch (err) {
        // The copies applied it; a mapping conflict here only leaves the field unmapped.
        if (!isEsError(err)) throw err;
      }
    }
    for (const [uuid, w] of updates) {
      if (!w.changed) continue;
      await this.meta
        .submit({ 'logsearch.PutMapping': { indices: [uuid], type: w.type, mapping_json: JSON.stringify(w.mapping.toJSON()), dynamic: true } })
        .catch((err: unknown) => {
          if (!isEsError(err)) throw err;
        });
    }
  }

  /** Index of each item (auto-creating missing ones); failures are recorded in `results`. */
  private async resolveTargets(
    reqs: readonly WriteRequest[],
    results: (WriteItemResult | undefined)[],
  ): Promise<({ uuid: string; aliasRouting: string | null } | null)[]> {
    const out: ({ uuid: string; aliasRouting: string | null } | null)[] = new Array(reqs.length).fill(null);
    // The items of a bulk mostly name one index: resolve each name and type once.
    const resolved = new Map<string, { uuid: string; aliasRouting: string | null }>();
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i];
      const key = `${r.index}\u0000${r.type}`;
      const known = resolved.get(key);
      if (known !== undefined) {
        out[i] = known;
        continue;
      }
      try {
        let target = resolveWriteIndex(this.meta.state, r.index);
        if (!target) {
          validateNewIndexName(r.index);
          // A write that would fail on its type must not create the index first.
          if (r.type.startsWith('_') && r.type !== '_doc') throw mapperParsing(`mapping type name [${r.type}] can't start with '_' unless it is called [_doc]`);
          await this.admin.autoCreate(r.index);
          target = resolveWriteIndex(this.meta.state, r.index);
          if (!target) throw indexNotFound(r.index);
        }
        const mappedType = target.meta.mapping?.typeName ?? null;
        if (mappedType !== null && mappedType !== r.type) {
          throw illegalArgument(
            `Rejecting mapping update to [${target.meta.name}] as the final mapping would have more than 1 type: [${mappedType}, ${r.type}]`,
          );
        }
        out[i] = { uuid: target.meta.uuid, aliasRouting: target.aliasRouting };
        resolved.set(key, out[i]!);
      } catch (err) {
        if (!isEsError(err)) throw err;
        results[i] = failure(r, err);
      }
    }
    return out;
  }

  /**
   * Parses each document against its index's mapping (as it will be once the
   * earlier documents' new fields are added) and submits the resulting
   * mapping change through the meta log before any document is appended.
   */
  private async applyDynamicMappings(
    reqs: readonly WriteRequest[],
    targets: readonly ({ uuid: string } | null)[],
    results: (WriteItemResult | undefined)[],
  ): Promise<void> {
    // Items in request order, by index: each index's documents extend its mapping in turn.
    const byIndex = new Map<string, { type: string; items: number[]; checks: CheckItem[] }>();
    for (let i = 0; i < reqs.length; i++) {
      const t = targets[i];
      if (!t || results[i]) continue;
      const docs = documentsToValidate(reqs[i]);
      if (docs.length === 0) continue;
      let g = byIndex.get(t.uuid);
      if (!g) byIndex.set(t.uuid, (g = { type: reqs[i].type, items: [], checks: [] }));
      g.items.push(i);
      g.checks.push({ docs, parsed: reqs[i].parsedSource, bulkSource: reqs[i].bulkSource === true && reqs[i].source !== null });
      reqs[i].parsedSource = undefined;
    }
    for (const [uuid, g] of byIndex) {
      const meta = this.meta.state.indexByUuid(uuid);
      if (!meta) continue;
      const outcome = await this.checker.check(meta.mapping ?? Mapping.empty(g.type), meta.mapping === null, g.checks, {
        type: g.type,
        index: meta.name,
        nestedObjectsLimit: meta.settings.nestedObjectsLimit,
        analysis: meta.settings.analysis,
        maxNgramDiff: meta.settings.maxNgramDiff,
        ...mappingLimits(meta.settings),
      }, (n) => meta.analyzers.get(n) !== undefined);
      outcome.errors.forEach((err, k) => {
        if (err !== null) results[g.items[k]!] = failure(reqs[g.items[k]!], err, meta.name);
      });
      if (meta.mapping !== null && outcome.updatedJson === null) continue;
      await this.meta.submit({
        'logsearch.PutMapping': { indices: [uuid], type: g.type, mapping_json: outcome.updatedJson ?? JSON.stringify(outcome.mapping.toJSON()), dynamic: true },
      });
    }
  }

  private prepare(item: number, r: WriteRequest, meta: IndexMetadata, aliasRouting: string | null, now: number): Prepared {
    if (r.op === 'update' && r.id === null) throw actionRequestValidation(['id is missing']);
    if (r.op === 'delete' && r.id === null) throw actionRequestValidation(['id is missing']);
    validateVersion(r);
    const id = r.id ?? generateId(now);
    const routing = r.routing ?? aliasRouting;
    const shard = shardForDocument(id, routing, meta.settings);
    // An index rebuilt with another shard count appends to the partition its log's owner routes the doc to.
    const partition = meta.log.ownerUuid === meta.uuid ? shard : shardForDocument(id, routing, meta.log.routing);
    const op: DocOp = {
      request_id: '',
      item,
      op: r.id === null && r.op === 'index' ? 'CREATE' : OP_TYPES[r.op],
      index_uuid: meta.uuid,
      type: r.type,
      id,
      routing,
      source: r.source,
      version: r.version,
      version_type: r.versionType,
      if_seq_no: r.ifSeqNo,
      if_primary_term: r.ifPrimaryTerm,
      update: r.update,
      timestamp: now,
    };
    return { item, meta, shard, partition, op };
  }

  private async appendAndAwait(
    prepared: readonly Prepared[],
    results: (WriteItemResult | undefined)[],
    opts: WriteOptions,
    onAppended?: () => void,
  ): Promise<void> {
    const groups = new Map<string, Prepared[]>();
    for (const p of prepared) {
      const key = `${p.meta.uuid}/${p.shard}/${p.partition}`;
      const g = groups.get(key);
      if (g) g.push(p);
      else groups.set(key, [p]);
    }
    // Groups not yet in the log (or refused before it); the last one to get there calls onAppended.
    let toAppend = groups.size;
    const appended = () => {
      if (--toAppend === 0) onAppended?.();
    };
    await Promise.all(
      [...groups.values()].map((group) =>
        inSpan('write shard', { [ATTR_INDEX]: group[0].meta.name, [ATTR_SHARD]: group[0].shard, [ATTR_ITEMS]: group.length }, () =>
          this.appendGroup(group, results, opts, appended),
        ),
      ),
    );
  }

  private async appendGroup(
    group: readonly Prepared[],
    results: (WriteItemResult | undefined)[],
    opts: WriteOptions,
    appended: () => void,
  ): Promise<void> {
    let told = false;
    const tell = () => {
      if (told) return;
      told = true;
      appended();
    };
    try {
      await this.appendGroupAndAwait(group, results, opts, tell);
    } finally {
      tell();
    }
  }

  private async appendGroupAndAwait(
    group: readonly Prepared[],
    results: (WriteItemResult | undefined)[],
    opts: WriteOptions,
    inLog: () => void,
  ): Promise<void> {
    const { meta, shard, partition } = group[0];
    const total = meta.settings.numberOfReplicas + 1;
    // In a cluster, more than one replica means a quorum of copies by default (DESIGN.md 2, "Writes").
    const spec = opts.waitForActiveShards ?? (this.directory.clustered && total > 2 ? 'quorum' : undefined);
    const needed = requiredActiveCopies(spec, total);
    await this.directory.ready(meta);
    const started = await this.startedCopies(meta, shard, needed, opts.timeoutMs);
    if (started.length < needed || started.length === 0) {
      const label = typeof spec === 'string' ? spec.toUpperCase() : String(needed);
      for (const p of group) {
        results[p.item] = failure(
          { index: meta.name, type: p.op.type, id: p.op.id },
          unavailableShards(
            `[${meta.name}][${shard}] Not enough active copies to meet shard count of [${label}] (have ${started.length}, needed ${needed}). Timeout: [${formatTimeValue(opts.timeoutMs)}], request: [BulkShardRequest [[${meta.name}][${shard}]] containing [${group.length}] requests]`,
          ),
          meta.name,
        );
      }
      return;
    }
    // The outcome comes from one copy: this node's own when it holds one (no round trip), else the primary.
    const first = started.find((r) => r.local !== null) ?? started[0];
    const requestId = this.ids.next();
    const byItem = new Map(group.map((p) => [p.item, p]));
    let remaining = group.length;
    let done!: () => void;
    const allApplied = new Promise<void>((r) => (done = r));
    const unlisten = first.local
      ? first.local.listen(requestId, (item, outcome) => {
          const p = byItem.get(item);
          if (!p) return;
          results[item] = toResult(p, outcome, meta);
          if (--remaining === 0) done();
        })
      : () => {};
    let end: number;
    try {
      const topic = this.indices.topicOf(meta);
      const { baseOffset } = await inSpan('produce', produceAttributes(topic, partition, group.length), async (span) => {
        // The produce span's context travels with each record, so every copy's apply span joins this trace.
        const headers = currentTraceHeaders();
        const records = new Array<{ value: Buffer; headers: typeof headers }>(group.length);
        const clock = writeSlice();
        for (let k = 0; k < group.length; k++) {
          if ((k & 63) === 63 && clock.due()) await clock.pause();
          // The op is this request's own (prepare made it): stamped in place, not copied per item.
          const op = group[k]!.op;
          op.request_id = requestId;
          records[k] = { value: docOpCodec.encode(op), headers };
        }
        const appended = await this.log.append(topic, partition, records);
        span?.setAttributes({ [ATTR_OFFSET_FIRST]: appended.baseOffset, [ATTR_OFFSET_LAST]: appended.baseOffset + records.length - 1 });
        return appended;
      }, SpanKind.PRODUCER);
      inLog();
      end = baseOffset + group.length;
      if (first.local) {
        await withTimeout(allApplied, opts.timeoutMs);
      } else {
        const outcomes = await this.remoteOutcomes(started, meta, shard, partition, baseOffset, end, opts.timeoutMs);
        group.forEach((p, k) => {
          const o = outcomes[k];
          if (o) results[p.item] = toResult(p, o, meta);
        });
      }
    } finally {
      unlisten();
    }
    for (const p of group) {
      // Appended but not applied in time: the op will still be applied; only its outcome is unknown here.
      results[p.item] ??= failure(
        { index: meta.name, type: p.op.type, id: p.op.id },
        timeoutException(`[${meta.name}][${shard}] the operation is in the log but was not applied within [${opts.timeoutMs}ms]`),
        meta.name,
      );
    }
    const successful = await this.confirmCopies(meta, shard, partition, started, first, end, opts);
    for (const p of group) {
      const r = results[p.item];
      if (!r || !r.ok) continue;
      results[p.item] = { ...r, shardsSuccessful: r.result === 'noop' ? 0 : successful, forcedRefresh: opts.refresh === 'true' };
    }
  }

  /** Outcomes from the first started copy that answers (a copy whose node died is skipped). */
  private async remoteOutcomes(
    started: readonly CopyRoute[],
    meta: IndexMetadata,
    shard: number,
    partition: number,
    from: number,
    to: number,
    timeoutMs: number,
  ): Promise<(DocOutcome | undefined)[]> {
    for (const route of started) {
      try {
        return await this.access.outcomes(route, meta, shard, from, to, timeoutMs, partition);
      } catch {
        // try the next copy
      }
    }
    return [];
  }

  /**
   * The started copies of a shard, once there are `needed` of them or
   * `timeoutMs` passed (then fewer: the caller refuses the write).
   */
  private async startedCopies(meta: IndexMetadata, shard: number, needed: number, timeoutMs: number): Promise<CopyRoute[]> {
    const deadline = Date.now() + Math.max(0, timeoutMs);
    for (;;) {
      const started = this.directory.started(meta, shard);
      if (started.length >= Math.max(1, needed) || Date.now() >= deadline) return started;
      await new Promise((r) => setTimeout(r, Math.min(ACTIVE_COPIES_POLL_MS, Math.max(1, deadline - Date.now()))));
    }
  }

  /**
   * Replication and refresh after the first copy applied the ops below
   * `end`: with `replication=sync` waits for every other started copy too,
   * and refreshes the copies `refresh` asks for. Returns the copies that
   * applied the write (`_shards.successful`).
   */
  private async confirmCopies(
    meta: IndexMetadata,
    shard: number,
    partition: number,
    started: readonly CopyRoute[],
    first: CopyRoute,
    end: number,
    opts: WriteOptions,
  ): Promise<number> {
    const refresh = opts.refresh !== 'false';
    const then = opts.refresh === 'wait_for' ? 'wait_for' : refresh ? 'refresh' : 'none';
    const others = started.filter((r) => r !== first);
    const sync = opts.replication !== 'async';
    const confirm = async (route: CopyRoute): Promise<boolean> => {
      try {
        return await this.access.waitApplied(route, meta, shard, end, opts.timeoutMs, then, partition);
      } catch {
        return false;
      }
    };
    const firstDone = refresh ? confirm(first) : Promise.resolve(true);
    if (!sync) {
      if (refresh) for (const r of others) void confirm(r);
      await firstDone;
      return 1;
    }
    const confirmed = await Promise.all(others.map(confirm));
    await firstDone;
    return 1 + confirmed.filter(Boolean).length;
  }
}

function produceAttributes(topic: string, shard: number, records: number): Attributes {
  return {
    [ATTR_MESSAGING_OPERATION_TYPE]: 'send',
    [ATTR_MESSAGING_DESTINATION_NAME]: topic,
    [ATTR_MESSAGING_DESTINATION_PARTITION_ID]: String(shard),
    [ATTR_MESSAGING_BATCH_MESSAGE_COUNT]: records,
  };
}

/** Copies that must be started: `all`, a number, or (5.x `consistency=quorum`) a majority once there are more than two copies. */
function requiredActiveCopies(spec: WriteOptions['waitForActiveShards'], copies: number): number {
  if (spec === 'all') return copies;
  if (spec === 'quorum') return copies > 2 ? Math.floor(copies / 2) + 1 : 1;
  return spec ?? 1;
}

/** `p`, or nothing once `ms` passed: the ops are in the log and will be applied; a slow apply only delays the answer. */
async function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  if (!(ms > 0) || !Number.isFinite(ms)) return p;
  await orNullAfter(p, ms);
}

function toResult(p: Prepared, outcome: DocOutcome, meta: IndexMetadata): WriteItemResult {
  if (!outcome.ok) return { ok: false, index: meta.name, type: p.op.type, id: p.op.id, error: outcome.error };
  const noop = outcome.result === 'noop';
  return {
    ok: true,
    index: meta.name,
    type: p.op.type,
    id: p.op.id,
    version: outcome.version,
    result: outcome.result,
    seqNo: outcome.seqNo,
    shardsTotal: noop ? 0 : meta.settings.numberOfReplicas + 1,
    // Raised to the copies that confirmed it once replication is done (confirmCopies).
    shardsSuccessful: noop ? 0 : 1,
    source: outcome.source,
    forcedRefresh: false,
  };
}

function failure(r: Pick<WriteRequest, 'index' | 'type' | 'id'>, error: EsError, index = r.index): WriteFailure {
  return { ok: false, index, type: r.type, id: r.id, error };
}

/** Elasticsearch's request-time version validation (IndexRequest.validate, VersionType.validateVersionForWrites). */
function validateVersion(r: WriteRequest): void {
  if (r.op === 'create' && r.versionType !== 'INTERNAL') {
    throw actionRequestValidation(['create operations only support internal versioning. use index instead']);
  }
  if (r.version === null) return;
  const v = r.version;
  if (r.versionType === 'INTERNAL') {
    if (r.op === 'create') throw actionRequestValidation(['create operations do not support explicit versions. use index instead']);
    if (v <= 0) throw actionRequestValidation([`illegal version value [${v}] for version type [INTERNAL]`]);
    return;
  }
  if (r.op === 'update') {
    throw actionRequestValidation([`version type [${r.versionType.toLowerCase()}] is not supported by the update API`]);
  }
  if (v < 0 || v >= 9.2e18) throw actionRequestValidation([`illegal version value [${v}] for version type [${r.versionType}]`]);
}

function documentsToValidate(r: WriteRequest): Buffer[] {
  if (r.op === 'index' || r.op === 'create') return r.source ? [r.source] : [];
  if (r.op === 'update' && r.update) {
    const out: Buffer[] = [];
    if (r.update.doc) out.push(r.update.doc);
    if (r.update.upsert) out.push(r.update.upsert);
    return out;
  }
  return [];
}

