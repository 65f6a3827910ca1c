/** The DocOp record (schemas/doc-op.avsc) as TypeScript sees it; its codec is doc-op.ts. */

export type OpType = 'INDEX' | 'CREATE' | 'UPDATE' | 'DELETE';
export type VersionType = 'INTERNAL' | 'EXTERNAL' | 'EXTERNAL_GTE' | 'FORCE';

/** A script as the log carries it: inline source (stored scripts are resolved before appending), lang, params as JSON. */
export interface ScriptRecord {
  source: string;
  lang: string;
  params_json: string;
}

export interface UpdateBody {
  doc: Buffer | null;
  upsert: Buffer | null;
  doc_as_upsert: boolean;
  detect_noop: boolean;
  script: ScriptRecord | null;
  scripted_upsert: boolean;
  /** An update of `_update_by_query` (schemas/doc-op.avsc says what changes). */
  by_query: boolean;
}

export interface DocOp {
  request_id: string;
  item: number;
  op: OpType;
  index_uuid: string;
  type: string;
  id: string;
  routing: string | null;
  source: Buffer | null;
  version: number | null;
  version_type: VersionType;
  if_seq_no: number | null;
  if_primary_term: number | null;
  update: UpdateBody | null;
  timestamp: number;
}
