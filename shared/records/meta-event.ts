/** The MetaEvent record (schemas/meta-event.avsc) as TypeScript sees it. */
import type avro from 'avsc';
import { RecordCodec, loadSchema } from './avro-codec.ts';

export interface CreateIndexEvent {
  index: string;
  uuid: string;
  settings_json: string;
  mappings_json: string;
  aliases_json: string;
  /** A rebuild's source and switch (RebuildRequest as JSON); absent before writer version 7, null for an ordinary index. */
  rebuild_json?: string | null;
}
export interface DeleteIndexEvent {
  indices: string[];
}
export interface PutMappingEvent {
  indices: string[];
  type: string;
  mapping_json: string;
  dynamic: boolean;
}
export interface UpdateSettingsEvent {
  indices: string[];
  settings_json: string;
  /** Absent in records written before it existed (writer version 4 and older): false. */
  preserve_existing?: boolean;
}
export type AliasActionKind = 'ADD' | 'REMOVE' | 'REMOVE_INDEX';
export interface AliasAction {
  kind: AliasActionKind;
  index: string;
  alias: string | null;
  filter_json: string | null;
  index_routing: string | null;
  search_routing: string | null;
  is_write_index: boolean | null;
  must_exist: boolean;
}
export interface SetIndexStateEvent {
  indices: string[];
  closed: boolean;
}
export interface UpdateAliasesEvent {
  actions: AliasAction[];
}
/** Flat setting keys to text values; null resets a setting. */
export interface UpdateClusterSettingsEvent {
  persistent_json: string;
  transient_json: string;
}

/** `PUT /_template/{name}`; the template as index-templates.ts parses it. */
export interface PutTemplateEvent {
  name: string;
  create: boolean;
  template_json: string;
}
/** `DELETE /_template/{name}`: names or wildcard patterns. */
export interface DeleteTemplateEvent {
  names: string[];
}
/** `PUT /_scripts/{id}`: a stored script, compiled before it is appended. */
export interface PutStoredScriptEvent {
  id: string;
  lang: string;
  source: string;
}
/** `DELETE /_scripts/{id}`. */
export interface DeleteStoredScriptEvent {
  id: string;
}

/** `PUT /_xpack/security/user/{username}`: user_json holds roles, full_name, email, metadata, enabled. */
export interface PutUserEvent {
  username: string;
  user_json: string;
  password_hash: string | null;
}
/** A password change; only_if_unset for the elastic user's bootstrap password. */
export interface SetUserPasswordEvent {
  username: string;
  password_hash: string;
  only_if_unset: boolean;
}
export interface SetUserEnabledEvent {
  username: string;
  enabled: boolean;
}
export interface DeleteUserEvent {
  username: string;
}
export interface PutRoleEvent {
  name: string;
  role_json: string;
}
export interface DeleteRoleEvent {
  name: string;
}
/** A rebuild caught up with its source (the alias actions move the alias in the same event) or failed. */
export interface FinishRebuildEvent {
  index: string;
  failure: string | null;
  actions: AliasAction[];
}

/** `POST /_security/api_key`. */
export interface PutApiKeyEvent {
  id: string;
  name: string;
  owner: string;
  realm: string;
  creation: number;
  expiration: number | null;
  key_hash: string;
  role_descriptors_json: string;
  limited_by_json: string;
}
export interface InvalidateApiKeysEvent {
  ids: string[];
}
export interface SetSecuritySecretEvent {
  secret: string;
}

/** Avro's wrapped-union form: exactly one key, the record's full name. */
export type MetaEventBody =
  | { 'logsearch.CreateIndex': CreateIndexEvent }
  | { 'logsearch.DeleteIndex': DeleteIndexEvent }
  | { 'logsearch.PutMapping': PutMappingEvent }
  | { 'logsearch.UpdateSettings': UpdateSettingsEvent }
  | { 'logsearch.UpdateAliases': UpdateAliasesEvent }
  | { 'logsearch.SetIndexState': SetIndexStateEvent }
  | { 'logsearch.UpdateClusterSettings': UpdateClusterSettingsEvent }
  | { 'logsearch.PutTemplate': PutTemplateEvent }
  | { 'logsearch.DeleteTemplate': DeleteTemplateEvent }
  | { 'logsearch.PutStoredScript': PutStoredScriptEvent }
  | { 'logsearch.DeleteStoredScript': DeleteStoredScriptEvent }
  | { 'logsearch.PutUser': PutUserEvent }
  | { 'logsearch.SetUserPassword': SetUserPasswordEvent }
  | { 'logsearch.SetUserEnabled': SetUserEnabledEvent }
  | { 'logsearch.DeleteUser': DeleteUserEvent }
  | { 'logsearch.PutRole': PutRoleEvent }
  | { 'logsearch.DeleteRole': DeleteRoleEvent }
  | { 'logsearch.PutApiKey': PutApiKeyEvent }
  | { 'logsearch.InvalidateApiKeys': InvalidateApiKeysEvent }
  | { 'logsearch.SetSecuritySecret': SetSecuritySecretEvent }
  | { 'logsearch.FinishRebuild': FinishRebuildEvent };

export interface MetaEvent {
  request_id: string;
  timestamp: number;
  event: MetaEventBody;
}

const schema = loadSchema('meta-event.avsc') as { fields: { name: string; type: unknown }[] };

/**
 * Branches appended to the event union, with the writer version that first
 * had them. A reader resolves a record of an older version against the
 * schema without the branches added after it, so logs written before read on.
 * A new event kind is appended here and in the schema's union, with the next version.
 */
const ADDED_BRANCHES: readonly (readonly [name: string, version: number])[] = [
  ['UpdateClusterSettings', 2],
  ['PutTemplate', 3],
  ['DeleteTemplate', 3],
  ['PutStoredScript', 4],
  ['DeleteStoredScript', 4],
  ['PutUser', 6],
  ['SetUserPassword', 6],
  ['SetUserEnabled', 6],
  ['DeleteUser', 6],
  ['PutRole', 6],
  ['DeleteRole', 6],
  ['FinishRebuild', 7],
  ['PutApiKey', 8],
  ['InvalidateApiKeys', 8],
  ['SetSecuritySecret', 8],
];

/** Fields appended to a branch's record (each with a default), with the writer version that first had them. */
const ADDED_FIELDS: readonly (readonly [branch: string, field: string, version: number])[] = [
  ['UpdateSettings', 'preserve_existing', 5],
  ['CreateIndex', 'rebuild_json', 7],
];

const CURRENT_VERSION = Math.max(1, ...ADDED_BRANCHES.map(([, v]) => v), ...ADDED_FIELDS.map(([, , v]) => v));

interface BranchSchema {
  readonly name?: string;
  readonly fields?: readonly { readonly name: string }[];
}

/** The schema as writer version `version` knew it. */
function schemaAtVersion(s: typeof schema, version: number): avro.Schema {
  const later = new Set(ADDED_BRANCHES.filter(([, v]) => v > version).map(([name]) => name));
  const laterField = (branch: string, field: string) => ADDED_FIELDS.some(([b, f, v]) => b === branch && f === field && v > version);
  const branches = (t: BranchSchema[]) =>
    t
      .filter((b) => !later.has(b.name ?? ''))
      .map((b) => (b.fields === undefined ? b : { ...b, fields: b.fields.filter((f) => !laterField(b.name ?? '', f.name)) }));
  const fields = s.fields.map((f) => (f.name === 'event' ? { ...f, type: branches(f.type as BranchSchema[]) } : f));
  return { ...s, fields } as avro.Schema;
}

const history = new Map<number, avro.Schema>();
for (let v = 1; v < CURRENT_VERSION; v++) history.set(v, schemaAtVersion(schema, v));

export const metaEventCodec = new RecordCodec<MetaEvent>(schema as avro.Schema, CURRENT_VERSION, history);
