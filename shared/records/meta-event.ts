/** The MetaEvent record (schemas/meta-event.avsc) as TypeScript sees it. */
import type avro from 'avsc';
import { RecordCodec, loadSchema } from './avro-codec.ts';

export interface CreateIndexEvent {
  index: string;
  uuid: string;
  settings_json: string;
  mappings_json: string;
  aliases_json: string;
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

/** Avro's wrapped-union form: exactly one key, the record's full name. */
export type MetaEventBody =
  | { 'logsearch.CreateIndex': CreateIndexEvent }
  | { 'logsearch.DeleteIndex': DeleteIndexEvent }
  | { 'logsearch.PutMapping': PutMappingEvent }
  | { 'logsearch.UpdateSettings': UpdateSettingsEvent }
  | { 'logsearch.UpdateAliases': UpdateAliasesEvent }
  | { 'logsearch.SetIndexState': SetIndexStateEvent }
  | { 'logsearch.UpdateClusterSettings': UpdateClusterSettingsEvent };

export interface MetaEvent {
  request_id: string;
  timestamp: number;
  event: MetaEventBody;
}

const schema = loadSchema('meta-event.avsc') as { fields: { name: string; type: unknown }[] };

/**
 * Version 1 is the schema before UpdateClusterSettings was added to the
 * event union (a branch appended at its end), so logs written before it read on.
 */
function withoutClusterSettings(s: typeof schema): avro.Schema {
  const fields = s.fields.map((f) =>
    f.name === 'event' ? { ...f, type: (f.type as { name?: string }[]).filter((b) => b.name !== 'UpdateClusterSettings') } : f,
  );
  return { ...s, fields } as avro.Schema;
}

export const metaEventCodec = new RecordCodec<MetaEvent>(schema as avro.Schema, 2, new Map([[1, withoutClusterSettings(schema)]]));
