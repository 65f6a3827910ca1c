/**
 * Metadata of one index as the cluster state holds it, and the pure
 * functions that build and change it from MetaEvents.
 */
import { failedToParseMapping, illegalArgument, isEsError, mapperParsing } from '../../../shared/errors/es-errors.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { parseIndexSettings, validateSettingsUpdate, type IndexSettings } from '../../../shared/engine/mapping/index-settings.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import type { AliasAction, CreateIndexEvent } from '../../../shared/records/meta-event.ts';

export interface AliasMetadata {
  readonly alias: string;
  readonly filter: unknown;
  readonly indexRouting: string | null;
  readonly searchRouting: string | null;
  readonly isWriteIndex: boolean | null;
}

export interface IndexMetadata {
  readonly name: string;
  readonly uuid: string;
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
export function createIndexMetadata(c: CreateIndexEvent, creationDate: number, enforceSettingsLimits = false): IndexMetadata {
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
  return {
    name: c.index,
    uuid: c.uuid,
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

/** The mapping options that carry an index's `index.mapping.total_fields.limit` and `depth.limit`. */
export function mappingLimits(settings: IndexSettings): { totalFieldsLimit: number; depthLimit: number } {
  return { totalFieldsLimit: settings.totalFieldsLimit, depthLimit: settings.depthLimit };
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
