/**
 * Index administration: create, delete, mappings, settings and aliases. Each
 * change is a MetaEvent through the meta log; this module resolves names to
 * uuids, builds the event, waits for it to be applied and, where the change
 * creates shards, for the shard copies to be open.
 */
import { randomBytes } from 'node:crypto';
import { EsError, illegalArgument, indexNotFound, aliasesNotFound, parsingException } from '../../../shared/errors/es-errors.ts';
import type { AliasAction } from '../../../shared/records/meta-event.ts';
import type { MetaService } from '../cluster/meta-service.ts';
import { createIndexMetadata, withMappingUpdate, type IndexMetadata } from '../cluster/index-metadata.ts';
import { checkIndexSettingsRequest } from '../../../shared/engine/mapping/index-settings.ts';
import type { IndicesService } from '../indexer/indices-service.ts';
import type { ShardDirectory } from '../copies/shard-directory.ts';
import { DESTRUCTIVE_REQUIRES_NAME, type EffectiveSettings } from '../cluster/cluster-settings.ts';

/** How long index creation waits for its primaries to start (Elasticsearch's default `timeout`). */
export const CREATE_WAIT_MS = 30_000;
import { globToRegExp, isWildcard, resolveIndices, splitExpression, validateNewIndexName, type WildcardStates } from '../cluster/index-resolver.ts';

export interface CreateIndexBody {
  readonly settings?: unknown;
  readonly mappings?: unknown;
  readonly aliases?: unknown;
}

/** Elasticsearch's UUIDs.randomBase64UUID(): 22 URL-safe characters. */
function indexUuid(): string {
  return randomBytes(16).toString('base64url');
}

function objectOrEmpty(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw parsingException(`Failed to parse [${what}], expected an object`);
  return v as Record<string, unknown>;
}

export function validateAliasName(alias: string, index?: string): void {
  if (isWildcard(alias) || /[\\/?"<>| ,#]/.test(alias)) {
    throw new EsError('invalid_alias_name_exception', `Invalid alias name [${alias}], must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]`, 400, {
      index_uuid: '_na_',
      index: index ?? alias,
    });
  }
  if (alias.startsWith('_') || alias.startsWith('-') || alias.startsWith('+')) {
    throw new EsError('invalid_alias_name_exception', `Invalid alias name [${alias}], must not start with '_', '-', or '+'`, 400, {
      index_uuid: '_na_',
      index: alias,
    });
  }
}

export interface UpdateSettingsOptions {
  readonly ignoreUnavailable?: boolean;
  readonly allowNoIndices?: boolean;
  readonly expandWildcards?: WildcardStates;
  readonly preserveExisting?: boolean;
}

export class IndexAdmin {
  constructor(
    private readonly meta: MetaService,
    private readonly indices: IndicesService,
    private readonly directory: ShardDirectory,
    private readonly settings: EffectiveSettings,
  ) {}

  /**
   * DestructiveOperations.failDestructive: with `action.destructive_requires_name`
   * an index expression must name its indices, no `_all` and no wildcard.
   */
  private failDestructive(expr: string): void {
    if (!this.settings.get(DESTRUCTIVE_REQUIRES_NAME)) return;
    const parts = splitExpression(expr);
    if (parts.length === 0 || parts.some((p) => p === '_all' || p.includes('*'))) {
      throw illegalArgument('Wildcard expressions or all indices are not allowed');
    }
  }

  async createIndex(name: string, body: CreateIndexBody): Promise<IndexMetadata> {
    return (await this.createIndexWaiting(name, body, CREATE_WAIT_MS)).meta;
  }

  /**
   * Creates an index and waits up to `timeoutMs` (null: not at all, as
   * `wait_for_active_shards=0`) for its primaries: `shardsAcknowledged` is
   * false when they did not start in time (allocation held them back).
   */
  async createIndexWaiting(name: string, body: CreateIndexBody, timeoutMs: number | null): Promise<{ meta: IndexMetadata; shardsAcknowledged: boolean }> {
    validateNewIndexName(name);
    const mappings = objectOrEmpty(body.mappings, 'mappings');
    const aliases = objectOrEmpty(body.aliases, 'aliases');
    for (const a of Object.keys(aliases)) validateAliasName(a);
    const event = {
      index: name,
      uuid: indexUuid(),
      settings_json: JSON.stringify(body.settings ?? {}),
      mappings_json: JSON.stringify(mappings),
      aliases_json: JSON.stringify(aliases),
    };
    // The checks applying the log does not make (they came later): unknown settings, the index's own mapping limits.
    checkIndexSettingsRequest(body.settings);
    createIndexMetadata(event, Date.now(), true);
    const outcome = await this.meta.submit({ 'logsearch.CreateIndex': event });
    const meta = outcome.index!;
    // As Elasticsearch's `wait_for_active_shards=1` on create: answer once every primary started.
    const shardsAcknowledged = timeoutMs === null ? true : await this.directory.waitForPrimaries(meta, timeoutMs);
    return { meta, shardsAcknowledged };
  }

  /** `action.auto_create_index`: a write to a missing index creates it with defaults. */
  async autoCreate(name: string): Promise<void> {
    try {
      await this.createIndex(name, {});
    } catch (err) {
      // Another request created it first: the index exists, which is all we need.
      if (!(err instanceof EsError && err.type === 'resource_already_exists_exception')) throw err;
    }
  }

  /**
   * Deletes indices named directly or by wildcard. As in 6.x, aliases are not
   * resolved here: an alias name counts as a missing index.
   */
  async deleteIndices(expr: string, ignoreUnavailable: boolean, allowNoIndices: boolean): Promise<void> {
    this.failDestructive(expr);
    const byName = new Map<string, IndexMetadata>();
    for (const p of splitExpression(expr)) {
      if (p.startsWith('-') && byName.size > 0) {
        const re = globToRegExp(p.slice(1));
        for (const name of [...byName.keys()]) if (re.test(name)) byName.delete(name);
        continue;
      }
      if (p === '_all' || isWildcard(p)) {
        const re = globToRegExp(p === '_all' ? '*' : p);
        let matched = false;
        for (const m of this.meta.state.indices()) {
          if (re.test(m.name)) {
            byName.set(m.name, m);
            matched = true;
          }
        }
        if (!matched && !allowNoIndices) throw indexNotFound(p);
        continue;
      }
      const meta = this.meta.state.index(p);
      if (meta) byName.set(meta.name, meta);
      else if (!ignoreUnavailable) throw indexNotFound(p);
    }
    const metas = [...byName.values()];
    if (metas.length === 0) {
      if (!allowNoIndices) throw indexNotFound(expr);
      return;
    }
    await this.meta.submit({ 'logsearch.DeleteIndex': { indices: metas.map((m) => m.uuid) } });
    await this.indices.reconcile();
    await this.indices.deleteTopics(metas);
  }

  /** `_close` / `_open`: wildcards expand to indices in the other state. */
  async setClosed(expr: string, closed: boolean, ignoreUnavailable: boolean, allowNoIndices: boolean): Promise<void> {
    this.failDestructive(expr);
    const expandWildcards = closed ? { open: true, closed: false } : { open: false, closed: true };
    const metas = resolveIndices(this.meta.state, expr, { ignoreUnavailable, allowNoIndices, expandWildcards })
      .filter((r) => r.direct)
      .map((r) => r.meta);
    if (metas.length === 0) return;
    await this.meta.submit({ 'logsearch.SetIndexState': { indices: metas.map((m) => m.uuid), closed } });
    // Closing stops the copies; opening starts them from their last commit, answered once every primary started.
    await this.indices.reconcile();
    if (!closed) {
      for (const m of metas) {
        const opened = this.meta.state.indexByUuid(m.uuid);
        if (opened) await this.directory.waitForPrimaries(opened, CREATE_WAIT_MS);
      }
    }
  }

  async putMapping(expr: string | undefined, type: string, body: unknown): Promise<void> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw illegalArgument('mapping source is required');
    const metas = resolveIndices(this.meta.state, expr ?? '_all', {}).map((r) => r.meta);
    if (metas.length === 0) throw indexNotFound(expr ?? '_all');
    // A body may be wrapped in its type name, as 6.x clients send it.
    const b = body as Record<string, unknown>;
    const keys = Object.keys(b);
    const inner = keys.length === 1 && keys[0] === type && typeof b[type] === 'object' ? b[type] : body;
    for (const m of metas) withMappingUpdate(m, type, inner, true);
    await this.meta.submit({
      'logsearch.PutMapping': { indices: metas.map((m) => m.uuid), type, mapping_json: JSON.stringify(inner), dynamic: false },
    });
  }

  /**
   * `PUT /{index}/_settings`. Wildcards reach open and closed indices (as
   * UpdateSettingsRequest's options); an expression that names no index is
   * acknowledged with nothing done when `allow_no_indices` (the default).
   */
  async updateSettings(expr: string | undefined, body: unknown, opts: UpdateSettingsOptions = {}): Promise<void> {
    const resolved = resolveIndices(this.meta.state, expr ?? '_all', {
      ignoreUnavailable: opts.ignoreUnavailable ?? false,
      allowNoIndices: opts.allowNoIndices ?? true,
      expandWildcards: opts.expandWildcards ?? { open: true, closed: true },
    });
    const metas = [...new Map(resolved.map((r) => [r.meta.uuid, r.meta])).values()];
    checkIndexSettingsRequest(body);
    if (metas.length === 0) return;
    await this.meta.submit({
      'logsearch.UpdateSettings': { indices: metas.map((m) => m.uuid), settings_json: JSON.stringify(body ?? {}), preserve_existing: opts.preserveExisting ?? false },
    });
    await this.indices.reconcile();
  }

  /** `POST /_aliases`: every action is resolved here, then applied atomically by the state machine. */
  async updateAliases(body: unknown): Promise<void> {
    const actionsJson = (body as { actions?: unknown } | null)?.actions;
    if (!Array.isArray(actionsJson)) throw actionRequired();
    if (actionsJson.length === 0) throw actionRequired();
    const actions: AliasAction[] = [];
    for (const entry of actionsJson) {
      if (typeof entry !== 'object' || entry === null) throw parsingException('Expected an action object');
      const [kind, spec] = Object.entries(entry as Record<string, unknown>)[0] ?? [];
      const s = (spec ?? {}) as Record<string, unknown>;
      const indexNames = listOf(s.index, s.indices);
      if (indexNames.length === 0) throw actionRequestValidationIndex();
      switch (kind) {
        case 'add': {
          const aliases = listOf(s.alias, s.aliases);
          if (aliases.length === 0) throw illegalArgument('[alias] is required');
          for (const idx of this.resolveForAlias(indexNames)) {
            for (const alias of aliases) {
              validateAliasName(alias, idx.name);
              actions.push(aliasAction('ADD', idx.uuid, alias, s));
            }
          }
          break;
        }
        case 'remove': {
          const aliases = listOf(s.alias, s.aliases);
          for (const idx of this.resolveForAlias(indexNames)) {
            const matching = [...idx.aliases.keys()].filter((a) => aliases.some((p) => globToRegExp(p === '_all' ? '*' : p).test(a)));
            if (matching.length === 0) throw aliasesNotFound(aliases);
            for (const alias of matching) actions.push(aliasAction('REMOVE', idx.uuid, alias, {}));
          }
          break;
        }
        case 'remove_index':
          for (const idx of this.resolveForAlias(indexNames)) actions.push(aliasAction('REMOVE_INDEX', idx.uuid, null, {}));
          break;
        default:
          throw parsingException(`[aliases] unknown field [${String(kind)}]`);
      }
    }
    await this.meta.submit({ 'logsearch.UpdateAliases': { actions } });
    await this.indices.reconcile();
  }

  async putAlias(indexExpr: string | undefined, alias: string, spec: Record<string, unknown>): Promise<void> {
    await this.updateAliases({ actions: [{ add: { ...spec, index: indexExpr ?? '_all', alias } }] });
  }

  async deleteAlias(indexExpr: string, aliasExpr: string): Promise<void> {
    const metas = resolveIndices(this.meta.state, indexExpr, {}).map((r) => r.meta);
    const patterns = splitExpression(aliasExpr).map((p) => globToRegExp(p === '_all' ? '*' : p));
    const actions: AliasAction[] = [];
    for (const m of metas) {
      for (const a of m.aliases.keys()) {
        if (patterns.some((re) => re.test(a))) actions.push(aliasAction('REMOVE', m.uuid, a, {}));
      }
    }
    if (actions.length === 0) throw aliasesNotFound(splitExpression(aliasExpr));
    await this.meta.submit({ 'logsearch.UpdateAliases': { actions } });
  }

  private resolveForAlias(names: readonly string[]): IndexMetadata[] {
    return resolveIndices(this.meta.state, names.join(','), {}).filter((r) => r.direct).map((r) => r.meta);
  }
}

function listOf(one: unknown, many: unknown): string[] {
  const out: string[] = [];
  if (typeof one === 'string') out.push(one);
  if (Array.isArray(many)) for (const m of many) out.push(String(m));
  else if (typeof many === 'string') out.push(many);
  return out;
}

function aliasAction(kind: AliasAction['kind'], index: string, alias: string | null, s: Record<string, unknown>): AliasAction {
  const routing = s.routing === undefined ? null : String(s.routing);
  return {
    kind,
    index,
    alias,
    filter_json: s.filter === undefined ? null : JSON.stringify(s.filter),
    index_routing: s.index_routing === undefined ? routing : String(s.index_routing),
    search_routing: s.search_routing === undefined ? routing : String(s.search_routing),
    is_write_index: typeof s.is_write_index === 'boolean' ? s.is_write_index : null,
    must_exist: false,
  };
}

function actionRequired(): EsError {
  return new EsError('action_request_validation_exception', 'Validation Failed: 1: At least one action is required;', 400);
}

function actionRequestValidationIndex(): EsError {
  return new EsError('action_request_validation_exception', 'Validation Failed: 1: One of [index] or [indices] is required;', 400);
}
