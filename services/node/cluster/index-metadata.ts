/**
 * Metadata of one index as the cluster state holds it, and the pure
 * functions that build and change it from MetaEvents.
 */
import { failedToParseMapping, illegalArgument, isEsError, mapperParsing } from '../../../shared/errors/es-errors.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { parseIndexSettings, validateSettingsUpdate, type IndexSettings } from '../../../shared/engine/mapping/index-settings.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import type { AliasAction, CreateIndexEvent } from '../../../shared/records/meta-event.ts';
import type { RoutingSettings } from '../../../shared/routing/shard-routing.ts';

export interface AliasMetadata {
  readonly alias: string;
  readonly filter: unknown;
  readonly indexRouting: string | null;
  readonly searchRouting: string | null;
  readonly isWriteIndex: boolean | null;
}

/**
 * The log an index's copies read: its own topic, or for an index built by a
 * rebuild the topic of the index it was rebuilt from (DESIGN.md, "Replay-based
 * rebuild"): both are views of one log. Writes to the index are appended to
 * the partition the owner's routing picks; each copy keeps the ops its own
 * routing gives its shard.
 */
export interface IndexLog {
  /** The index whose topic it is (its name and uuid name the topic). */
  readonly ownerName: string;
  readonly ownerUuid: string;
  readonly partitions: number;
  /** Routing of documents to partitions: the owner's shard count and routing shards. */
  readonly routing: RoutingSettings;
}

/** A rebuild in progress or ended: the index reads its source's log and takes over its alias once caught up. */
export interface RebuildState {
  readonly sourceUuid: string;
  readonly sourceName: string;
  /** The alias to move from the source to the new index at the switch (null: none). */
  readonly alias: string | null;
  readonly deleteSource: boolean;
  readonly state: 'running' | 'done' | 'failed';
  readonly failure: string | null;
  /** Id of the node that took the request and drives the rebuild (null: written before nodes were named here). */
  readonly driver: string | null;
}

/** What `rebuild_json` of a CreateIndex event holds. */
export interface RebuildRequest {
  readonly sourceUuid: string;
  readonly alias: string | null;
  readonly deleteSource: boolean;
  /** Absent in events written before the driver was recorded. */
  readonly driver?: string;
}

export interface IndexMetadata {
  readonly name: string;
  readonly uuid: string;
  /** The log the index's copies read (see IndexLog). */
  readonly log: IndexLog;
  /** Set for an index made by a rebuild. */
  readonly rebuild: RebuildState | null;
  readonly creationDate: number;
  readonly settings: IndexSettings;
  /** The single mapping type of the index (6.x), null until one is defined. */
  readonly mapping: Mapping | null;
  /** Bumped on every mapping change (documents record the version they were validated against). */
  readonly mappingVersion: number;
  readonly analyzers: AnalysisRegistry;
  /** Deprecation warnings the index settings produced (sent as `Warning` headers on creation). */
  readonly warnings: readonly string[];
  readonly aliases: ReadonlyMap<string, AliasMetadata>;
  /** Closed by `_close`: kept, but neither searched nor written until `_open`. */
  readonly closed: boolean;
}

/**
 * Builds the metadata of a new index; throws the EsError the create request
 * should answer with. `enforceSettingsLimits` applies the index's own
 * `index.mapping.*.limit` settings: the coordinator checks a request with
 * them, while applying the meta log keeps to the defaults, so an index whose
 * create event predates the check still replays.
 */
export function createIndexMetadata(
  c: CreateIndexEvent,
  creationDate: number,
  enforceSettingsLimits = false,
  /** The source of a rebuild (`rebuild_json`), from the cluster state. */
  source: IndexMetadata | null = null,
): IndexMetadata {
  const settings = parseIndexSettings(JSON.parse(c.settings_json));
  const analyzers = AnalysisRegistry.fromIndexSettings(settings.analysis, { maxNgramDiff: settings.maxNgramDiff });
  const mappings = JSON.parse(c.mappings_json) as Record<string, unknown>;
  const types = Object.keys(mappings);
  if (types.length > 1) {
    throw illegalArgument(`Rejecting mapping update to [${c.index}] as the final mapping would have more than 1 type: [${types.join(', ')}]`);
  }
  let mapping: Mapping | null = null;
  if (types.length === 1) {
    const type = types[0];
    if (type === '') throw illegalArgument('mapping type name is empty');
    try {
      mapping = Mapping.fromJSON(type, mappings[type], {
        analyzerExists: (n: string) => analyzers.get(n) !== undefined,
        index: c.index,
        ...(enforceSettingsLimits ? mappingLimits(settings) : {}),
      });
    } catch (err) {
      // Elasticsearch reports any mapping failure at creation as "Failed to parse mapping [type]: ...".
      if (isEsError(err)) throw failedToParseMapping(type, err);
      throw err;
    }
  }
  const aliases = new Map<string, AliasMetadata>();
  const aliasBody = JSON.parse(c.aliases_json) as Record<string, Record<string, unknown> | null>;
  for (const [alias, spec] of Object.entries(aliasBody)) {
    aliases.set(alias, aliasFromBody(alias, spec ?? {}));
  }
  let rebuild: RebuildState | null = null;
  if (c.rebuild_json != null) {
    if (source === null) throw illegalArgument(`the source of the rebuild of [${c.index}] does not exist`);
    const r = JSON.parse(c.rebuild_json) as RebuildRequest;
    rebuild = {
      sourceUuid: source.uuid,
      sourceName: source.name,
      alias: r.alias,
      deleteSource: r.deleteSource,
      state: 'running',
      failure: null,
      driver: typeof r.driver === 'string' ? r.driver : null,
    };
  }
  return {
    name: c.index,
    uuid: c.uuid,
    log: source?.log ?? { ownerName: c.index, ownerUuid: c.uuid, partitions: settings.numberOfShards, routing: logRoutingOf(settings) },
    rebuild,
    creationDate,
    settings,
    mapping,
    mappingVersion: mapping ? 1 : 0,
    analyzers,
    warnings: analyzers.warnings,
    aliases,
    closed: false,
  };
}

function logRoutingOf(settings: IndexSettings): RoutingSettings {
  return { numberOfShards: settings.numberOfShards, routingNumShards: settings.routingNumShards, routingPartitionSize: settings.routingPartitionSize };
}

/**
 * The partitions of its log a copy of shard `shard` reads: its own partition
 * when the index routes as its log does (every ordinary index), else every
 * partition (a rebuild with another shard count), keeping its shard's ops.
 */
export function partitionsOf(meta: Pick<IndexMetadata, 'log' | 'settings'>, shard: number): number[] {
  if (routesAsLog(meta)) return [shard];
  return Array.from({ length: meta.log.partitions }, (_, p) => p);
}

/** Whether shard s of the index is partition s of its log. */
export function routesAsLog(meta: Pick<IndexMetadata, 'log' | 'settings'>): boolean {
  const r = meta.log.routing;
  const s = meta.settings;
  return (
    meta.log.partitions === s.numberOfShards &&
    (r.routingNumShards ?? r.numberOfShards) === (s.routingNumShards ?? s.numberOfShards) &&
    (r.routingPartitionSize ?? 1) === (s.routingPartitionSize ?? 1)
  );
}

/** The mapping options that carry an index's `index.mapping.total_fields.limit`, `depth.limit` and `nested_fields.limit`. */
export function mappingLimits(settings: IndexSettings): { totalFieldsLimit: number; depthLimit: number; nestedFieldsLimit: number } {
  return { totalFieldsLimit: settings.totalFieldsLimit, depthLimit: settings.depthLimit, nestedFieldsLimit: settings.nestedFieldsLimit };
}

/** See createIndexMetadata for `enforceSettingsLimits`. */
export function withMappingUpdate(meta: IndexMetadata, type: string, body: unknown, enforceSettingsLimits = false): IndexMetadata {
  if (type === '') throw illegalArgument('mapping type name is empty');
  if (type.startsWith('_') && type !== '_doc') {
    throw mapperParsing(`mapping type name [${type}] can't start with '_' unless it is called [_doc]`);
  }
  const opts = {
    analyzerExists: (n: string) => meta.analyzers.get(n) !== undefined,
    index: meta.name,
    ...(enforceSettingsLimits ? mappingLimits(meta.settings) : {}),
  };
  let mapping: Mapping;
  if (meta.mapping === null) {
    mapping = Mapping.fromJSON(type, body, opts);
  } else {
    if (meta.mapping.typeName !== null && meta.mapping.typeName !== type) {
      throw illegalArgument(
        `Rejecting mapping update to [${meta.name}] as the final mapping would have more than 1 type: [${meta.mapping.typeName}, ${type}]`,
      );
    }
    mapping = meta.mapping.merge(type, body, opts);
  }
  return { ...meta, mapping, mappingVersion: meta.mappingVersion + 1 };
}

export function withSettingsUpdate(meta: IndexMetadata, body: unknown, preserveExisting = false): IndexMetadata {
  const settings = validateSettingsUpdate(meta.settings, body, { index: meta.name, uuid: meta.uuid }, { closed: meta.closed, preserveExisting });
  // Analysis changes only on a closed index; its copies open again with the new analyzers.
  if (JSON.stringify(settings.analysis) !== JSON.stringify(meta.settings.analysis)) {
    const analyzers = AnalysisRegistry.fromIndexSettings(settings.analysis, { maxNgramDiff: settings.maxNgramDiff });
    return { ...meta, settings, analyzers, warnings: analyzers.warnings };
  }
  return { ...meta, settings };
}

function routingOf(v: unknown): string | null {
  return v === undefined || v === null ? null : String(v);
}

function aliasFromBody(alias: string, spec: Record<string, unknown>): AliasMetadata {
  const routing = routingOf(spec.routing);
  return {
    alias,
    filter: spec.filter ?? null,
    indexRouting: routingOf(spec.index_routing) ?? routing,
    searchRouting: routingOf(spec.search_routing) ?? routing,
    isWriteIndex: typeof spec.is_write_index === 'boolean' ? spec.is_write_index : null,
  };
}

export function aliasFromRequest(alias: string, a: AliasAction): AliasMetadata {
  return {
    alias,
    filter: a.filter_json === null ? null : (JSON.parse(a.filter_json) as unknown),
    indexRouting: a.index_routing,
    searchRouting: a.search_routing,
    isWriteIndex: a.is_write_index,
  };
}
