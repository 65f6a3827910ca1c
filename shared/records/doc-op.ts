/** The DocOp record (schemas/doc-op.avsc) as TypeScript sees it. */
import { RecordCodec, loadSchema } from './avro-codec.ts';
import { decodeDocOp, decodeDocOpHeader, encodeDocOp } from './doc-op-binary.ts';

export type OpType = 'INDEX' | 'CREATE' | 'UPDATE' | 'DELETE';
export type VersionType = 'INTERNAL' | 'EXTERNAL' | 'EXTERNAL_GTE' | 'FORCE';

export interface UpdateBody {
  doc: Buffer | null;
  upsert: Buffer | null;
  doc_as_upsert: boolean;
  detect_noop: boolean;
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

export const docOpCodec = new RecordCodec<DocOp>(loadSchema('doc-op.avsc'), 1, new Map(), { encode: encodeDocOp, decode: decodeDocOp });

/**
 * The request id and item of a DocOp log value, without decoding the rest
 * (the main thread matches outcomes to waiting requests; the copy's engine
 * decodes the op). Every schema version starts with these two fields.
 */
export function docOpHeader(value: Buffer): { requestId: string; item: number } {
  return decodeDocOpHeader(value, 2);
}
