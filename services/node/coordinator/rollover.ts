/**
 * `POST /{alias}/_rollover[/{new_index}]` as Elasticsearch 6.8's
 * MetaDataRolloverService: when the alias's write index meets a condition
 * (`max_age` since its creation, `max_docs` and `max_size` of its
 * primaries), a new index is created (named `<prefix>-<n+1>` with six
 * digits unless the request names it; templates apply) and the alias moves
 * to it. An alias whose write index is explicit (`is_write_index: true`)
 * stays on the old index as a read alias. `dry_run` evaluates the
 * conditions and names the new index without changing anything.
 */
import { EsError, illegalArgument, parsingException, resourceAlreadyExists } from '../../../shared/errors/es-errors.ts';
import { formatByteSize, parseByteSizeValue } from '../../../shared/engine/mapping/byte-size-value.ts';
import { formatTimeValue, parseTimeValue } from '../../../shared/engine/mapping/time-value.ts';
import { getOwn } from '../../../shared/json/own-keys.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { validateNewIndexName } from '../cluster/index-resolver.ts';

export type RolloverCondition =
  | { readonly kind: 'max_age'; readonly ms: number }
  | { readonly kind: 'max_docs'; readonly docs: number }
  | { readonly kind: 'max_size'; readonly bytes: number };

/** What the conditions are tested against: the write index's age and its primaries' figures. */
export interface RolloverFigures {
  readonly ageMs: number;
  readonly docs: number;
  readonly bytes: number;
}

export interface RolloverBody {
  readonly conditions: readonly RolloverCondition[];
  readonly settings?: unknown;
  readonly mappings?: unknown;
  readonly aliases?: unknown;
}

/** `Condition.toString`, the key of the response's `conditions`: `[max_docs: 1]`, `[max_age: 7d]`, `[max_size: 5gb]`. */
export function conditionName(c: RolloverCondition): string {
  switch (c.kind) {
    case 'max_age':
      return `[max_age: ${formatTimeValue(c.ms)}]`;
    case 'max_docs':
      return `[max_docs: ${c.docs}]`;
    case 'max_size':
      return `[max_size: ${formatByteSize(c.bytes)}]`;
  }
}

export function conditionMet(c: RolloverCondition, f: RolloverFigures): boolean {
  switch (c.kind) {
    case 'max_age':
      return f.ageMs >= c.ms;
    case 'max_docs':
      return f.docs >= c.docs;
    case 'max_size':
      return f.bytes >= c.bytes;
  }
}

/** The request body (RolloverRequest's parser): conditions, and settings, mappings and aliases for the new index. */
export function parseRolloverBody(body: unknown): RolloverBody {
  if (body === undefined || body === null) return { conditions: [] };
  if (typeof body !== 'object' || Array.isArray(body)) throw parsingException('request body must be an object');
  const b = body as Record<string, unknown>;
  const conditions: RolloverCondition[] = [];
  for (const key of Object.keys(b)) {
    if (!['conditions', 'settings', 'mappings', 'aliases'].includes(key)) throw parsingException(`[rollover] unknown field [${key}]`);
  }
  const c = getOwn(b, 'conditions');
  if (c !== undefined && c !== null) {
    if (typeof c !== 'object' || Array.isArray(c)) throw parsingException('[rollover] conditions must be an object');
    for (const name of Object.keys(c)) {
      const v = getOwn(c as Record<string, unknown>, name);
      switch (name) {
        case 'max_age':
          conditions.push({ kind: 'max_age', ms: parseTimeValue(String(v), 'max_age') });
          break;
        case 'max_docs': {
          const docs = Number(v);
          if (!Number.isSafeInteger(docs)) throw parsingException(`[conditions] failed to parse field [max_docs]`);
          conditions.push({ kind: 'max_docs', docs });
          break;
        }
        case 'max_size':
          conditions.push({ kind: 'max_size', bytes: parseByteSizeValue(String(v), 'max_size') });
          break;
        default:
          throw parsingException(`[conditions] unknown field [${name}]`);
      }
    }
  }
  return { conditions, settings: getOwn(b, 'settings'), mappings: getOwn(b, 'mappings'), aliases: getOwn(b, 'aliases') };
}

/** The index an alias writes to, and whether the alias names it explicitly (`is_write_index: true`). */
export function rolloverSource(state: ClusterState, alias: string): { meta: IndexMetadata; explicitWriteIndex: boolean } {
  if (state.index(alias)) throw illegalArgument('source alias is a concrete index');
  const metas = state.aliasTable().get(alias);
  if (!metas || metas.length === 0) throw illegalArgument('source alias does not exist');
  const explicit = metas.filter((m) => m.aliases.get(alias)?.isWriteIndex === true);
  if (explicit.length === 1) return { meta: explicit[0]!, explicitWriteIndex: true };
  if (metas.length === 1 && metas[0]!.aliases.get(alias)?.isWriteIndex !== false) return { meta: metas[0]!, explicitWriteIndex: false };
  throw illegalArgument(`source alias [${alias}] does not point to a write index`);
}

/** MetaDataRolloverService.generateRolloverIndexName: `logs-1` → `logs-000002`. */
export function nextIndexName(sourceName: string): string {
  if (!/^.*-\d+$/.test(sourceName)) throw illegalArgument(`index name [${sourceName}] does not match pattern '^.*-\\d+$'`);
  const dash = sourceName.lastIndexOf('-');
  const counter = Number(sourceName.slice(dash + 1)) + 1;
  return `${sourceName.slice(0, dash)}-${String(counter).padStart(6, '0')}`;
}

/** The new index's name, checked as index creation checks it (and refused when it exists). */
export function rolloverTarget(state: ClusterState, source: IndexMetadata, requested: string | undefined): string {
  const name = requested ?? nextIndexName(source.name);
  validateNewIndexName(name);
  const existing = state.index(name);
  if (existing) throw resourceAlreadyExists(name, existing.uuid);
  if (state.aliasTable().has(name)) {
    throw new EsError('invalid_index_name_exception', `Invalid index name [${name}], already exists as alias`, 400, { index_uuid: '_na_', index: name });
  }
  return name;
}
