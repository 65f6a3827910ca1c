/**
 * The cluster-state machine (DESIGN.md 2, "Cluster metadata"): indices, their
 * settings, mappings and aliases, built by applying MetaEvents from the meta
 * topic in log order. Validation happens here, at apply time, so every node
 * that applies the same log reaches the same state and the same outcomes.
 */
import { EsError, illegalArgument, indexNotFound, resourceAlreadyExists, aliasesNotFound, storedScriptNotDeletable } from '../../../shared/errors/es-errors.ts';
import { checkStoredScript } from '../../../shared/script/update-script.ts';
import type { AliasAction, CreateIndexEvent, MetaEvent } from '../../../shared/records/meta-event.ts';
import {
  type AliasMetadata,
  type IndexMetadata,
  type RebuildRequest,
  createIndexMetadata,
  withMappingUpdate,
  withSettingsUpdate,
  aliasFromRequest,
} from './index-metadata.ts';
import { applyUpdate, validateUpdate, type ClusterSettingsSource } from './cluster-settings.ts';
import { SecurityMetadata, type SecurityOutcome } from '../realm/security-metadata.ts';
import { applyTemplates, indexTemplateMissing, matchingTemplates, templateFromJson, templatesMatching, type IndexTemplate } from './index-templates.ts';

export type MetaOutcome =
  | { readonly ok: true; readonly index?: IndexMetadata; readonly security?: SecurityOutcome }
  | { readonly ok: false; readonly error: EsError };

export interface StoredScript {
  readonly lang: string;
  readonly source: string;
}

type Listener = (state: ClusterState, event: MetaEvent, outcome: MetaOutcome) => void;

export class ClusterState {
  private readonly byName = new Map<string, IndexMetadata>();
  private readonly byUuid = new Map<string, IndexMetadata>();
  private readonly templatesByName = new Map<string, IndexTemplate>();
  /** Offset of the next meta record to apply. */
  appliedOffset = 0;
  /** Bumped on every successful change; lets callers cache derived views. */
  version = 0;
  /** Dynamic cluster settings set through `PUT /_cluster/settings`. */
  clusterSettings: ClusterSettingsSource = { persistent: new Map(), transient: new Map() };
  /** Stored scripts (`PUT /_scripts/{id}`), by id. */
  readonly storedScripts = new Map<string, StoredScript>();
  /** Native users and roles (services/node/security). */
  readonly security = new SecurityMetadata();
  private readonly listeners: Listener[] = [];

  onApplied(listener: Listener): void {
    this.listeners.push(listener);
  }

  indices(): IndexMetadata[] {
    return [...this.byName.values()];
  }

  index(name: string): IndexMetadata | undefined {
    return this.byName.get(name);
  }

  indexByUuid(uuid: string): IndexMetadata | undefined {
    return this.byUuid.get(uuid);
  }

  /** Index templates, by name. */
  templates(): ReadonlyMap<string, IndexTemplate> {
    return this.templatesByName;
  }

  /** Every alias name with the indices it points to. */
  aliasTable(): Map<string, IndexMetadata[]> {
    const out = new Map<string, IndexMetadata[]>();
    for (const meta of this.byName.values()) {
      for (const alias of meta.aliases.keys()) {
        const list = out.get(alias);
        if (list) list.push(meta);
        else out.set(alias, [meta]);
      }
    }
    return out;
  }

  /** Applies one event; never throws for a bad event, the outcome carries the error. */
  apply(event: MetaEvent, offset: number): MetaOutcome {
    let outcome: MetaOutcome;
    try {
      outcome = this.applyEvent(event);
      if (outcome.ok) this.version++;
    } catch (err) {
      if (!(err instanceof EsError)) throw err;
      outcome = { ok: false, error: err };
    }
    this.appliedOffset = offset + 1;
    for (const l of this.listeners) l(this, event, outcome);
    return outcome;
  }

  private put(meta: IndexMetadata): void {
    this.byName.set(meta.name, meta);
    this.byUuid.set(meta.uuid, meta);
  }

  private requireUuid(uuid: string): IndexMetadata {
    const meta = this.byUuid.get(uuid);
    if (!meta) throw indexNotFound(uuid);
    return meta;
  }

  private applyEvent(record: MetaEvent): MetaOutcome {
    const e = record.event;
    if ('logsearch.CreateIndex' in e) {
      const c = e['logsearch.CreateIndex'];
      const existing = this.byName.get(c.index);
      if (existing) throw resourceAlreadyExists(c.index, existing.uuid);
      if (this.aliasTable().has(c.index)) {
        throw new EsError('invalid_index_name_exception', `Invalid index name [${c.index}], already exists as alias`, 400, {
          index_uuid: '_na_',
          index: c.index,
        });
      }
      const source = c.rebuild_json == null ? null : this.rebuildSource(c);
      const meta = createIndexMetadata(applyTemplates(c, matchingTemplates(this.templatesByName.values(), c.index)), record.timestamp, false, source);
      for (const alias of meta.aliases.keys()) {
        if (this.byName.has(alias)) throw illegalArgument(`an index or data stream exists with the same name as the alias [${alias}]`);
      }
      this.put(meta);
      return { ok: true, index: meta };
    }
    if ('logsearch.FinishRebuild' in e) {
      const f = e['logsearch.FinishRebuild'];
      const meta = this.requireUuid(f.index);
      if (meta.rebuild === null || meta.rebuild.state !== 'running') throw illegalArgument(`index [${meta.name}] is not being rebuilt`);
      if (f.failure === null) this.applyAliasActions(f.actions);
      const current = this.byUuid.get(meta.uuid)!;
      this.put({ ...current, rebuild: { ...meta.rebuild, state: f.failure === null ? 'done' : 'failed', failure: f.failure } });
      return { ok: true, index: this.byUuid.get(meta.uuid) };
    }
    if ('logsearch.DeleteIndex' in e) {
      const metas = e['logsearch.DeleteIndex'].indices.map((u) => this.requireUuid(u));
      for (const meta of metas) {
        this.byName.delete(meta.name);
        this.byUuid.delete(meta.uuid);
      }
      return { ok: true };
    }
    if ('logsearch.PutMapping' in e) {
      const p = e['logsearch.PutMapping'];
      const metas = p.indices.map((u) => this.requireUuid(u));
      const body = JSON.parse(p.mapping_json) as unknown;
      // Validate every index first so a multi-index update is all or nothing.
      const updated = metas.map((m) => withMappingUpdate(m, p.type, body));
      let changed: IndexMetadata | undefined;
      for (const m of updated) {
        this.put(m);
        changed = m;
      }
      return { ok: true, index: changed };
    }
    if ('logsearch.UpdateSettings' in e) {
      const s = e['logsearch.UpdateSettings'];
      const metas = s.indices.map((u) => this.requireUuid(u));
      const body = JSON.parse(s.settings_json) as unknown;
      const updated = metas.map((m) => withSettingsUpdate(m, body, s.preserve_existing ?? false));
      for (const m of updated) this.put(m);
      return { ok: true };
    }
    if ('logsearch.SetIndexState' in e) {
      const st = e['logsearch.SetIndexState'];
      const metas = st.indices.map((u) => this.requireUuid(u));
      for (const m of metas) this.put({ ...m, closed: st.closed });
      return { ok: true };
    }
    if ('logsearch.UpdateAliases' in e) {
      this.applyAliasActions(e['logsearch.UpdateAliases'].actions);
      return { ok: true };
    }
    if ('logsearch.UpdateClusterSettings' in e) {
      const u = e['logsearch.UpdateClusterSettings'];
      const persistent = new Map(Object.entries(JSON.parse(u.persistent_json) as Record<string, string | null>));
      const transient = new Map(Object.entries(JSON.parse(u.transient_json) as Record<string, string | null>));
      validateUpdate('transient', transient);
      validateUpdate('persistent', persistent);
      this.clusterSettings = {
        persistent: applyUpdate(this.clusterSettings.persistent, persistent),
        transient: applyUpdate(this.clusterSettings.transient, transient),
      };
      return { ok: true };
    }
    if ('logsearch.PutTemplate' in e) {
      const t = e['logsearch.PutTemplate'];
      if (t.create && this.templatesByName.has(t.name)) throw illegalArgument(`index_template [${t.name}] already exists`);
      this.templatesByName.set(t.name, templateFromJson(t.name, t.template_json));
      return { ok: true };
    }
    if ('logsearch.DeleteTemplate' in e) {
      const doomed: string[] = [];
      for (const pattern of e['logsearch.DeleteTemplate'].names) {
        const names = templatesMatching(this.templatesByName.keys(), pattern);
        // Deleting `*` when there are no templates is not an error (MetaDataIndexTemplateService.removeTemplates).
        if (names.length === 0 && pattern !== '*' && pattern !== '_all') throw indexTemplateMissing(pattern);
        doomed.push(...names);
      }
      for (const n of doomed) this.templatesByName.delete(n);
      return { ok: true };
    }
    if ('logsearch.PutStoredScript' in e) {
      const p = e['logsearch.PutStoredScript'];
      // Compiled here too, so a script that does not compile never enters any node's state.
      checkStoredScript(p.source);
      this.storedScripts.set(p.id, { lang: p.lang, source: p.source });
      return { ok: true };
    }
    if ('logsearch.DeleteStoredScript' in e) {
      const id = e['logsearch.DeleteStoredScript'].id;
      if (!this.storedScripts.delete(id)) throw storedScriptNotDeletable(id);
      return { ok: true };
    }
    const security = this.security.apply(e);
    if (security !== null) return { ok: true, security };
    throw illegalArgument('unknown metadata event');
  }

  /** The source of a rebuild, refused when it is missing or already being rebuilt. */
  private rebuildSource(c: CreateIndexEvent): IndexMetadata {
    const r = JSON.parse(c.rebuild_json!) as RebuildRequest;
    const source = this.byUuid.get(r.sourceUuid);
    if (source === undefined) throw indexNotFound(r.sourceUuid);
    for (const other of this.byUuid.values()) {
      if (other.rebuild?.state === 'running' && other.rebuild.sourceUuid === source.uuid) {
        throw illegalArgument(`index [${source.name}] is already being rebuilt into [${other.name}]`);
      }
    }
    return source;
  }

  /** All actions apply atomically: validated against a working copy first. */
  private applyAliasActions(actions: readonly AliasAction[]): void {
    const work = new Map<string, Map<string, AliasMetadata>>();
    // Indices removed by this request free their names for aliases of the same request.
    const removed = new Set(actions.filter((a) => a.kind === 'REMOVE_INDEX').map((a) => a.index));
    const aliasesOf = (meta: IndexMetadata) => {
      let m = work.get(meta.uuid);
      if (!m) {
        m = new Map(meta.aliases);
        work.set(meta.uuid, m);
      }
      return m;
    };
    for (const a of actions) {
      const meta = this.requireUuid(a.index);
      switch (a.kind) {
        case 'ADD': {
          const alias = a.alias ?? '';
          const clash = this.byName.get(alias);
          if (clash && !removed.has(clash.uuid)) {
            throw new EsError('invalid_alias_name_exception', `Invalid alias name [${alias}], an index exists with the same name as the alias`, 400, {
              index_uuid: '_na_',
              index: alias,
            });
          }
          aliasesOf(meta).set(alias, aliasFromRequest(alias, a));
          break;
        }
        case 'REMOVE': {
          const alias = a.alias ?? '';
          const m = aliasesOf(meta);
          if (!m.has(alias) && a.must_exist) throw aliasesNotFound([alias]);
          m.delete(alias);
          break;
        }
        case 'REMOVE_INDEX':
          break;
      }
    }
    for (const [uuid, aliases] of work) {
      const meta = this.byUuid.get(uuid);
      if (meta && !removed.has(uuid)) this.put({ ...meta, aliases });
    }
    for (const uuid of removed) {
      const meta = this.byUuid.get(uuid);
      if (meta) {
        this.byName.delete(meta.name);
        this.byUuid.delete(uuid);
      }
    }
  }
}
