/** The MetaEvent record (schemas/meta-event.avsc) as TypeScript sees it. */
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

/** Avro's wrapped-union form: exactly one key, the record's full name. */
export type MetaEventBody =
  | { 'logsearch.CreateIndex': CreateIndexEvent }
  | { 'logsearch.DeleteIndex': DeleteIndexEvent }
  | { 'logsearch.PutMapping': PutMappingEvent }
  | { 'logsearch.UpdateSettings': UpdateSettingsEvent }
  | { 'logsearch.UpdateAliases': UpdateAliasesEvent }
  | { 'logsearch.SetIndexState': SetIndexStateEvent };

export interface MetaEvent {
  request_id: string;
  timestamp: number;
  event: MetaEventBody;
}

export const metaEventCodec = new RecordCodec<MetaEvent>(loadSchema('meta-event.avsc'), 1);
