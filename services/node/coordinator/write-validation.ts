/**
 * The checks Elasticsearch makes of a write request before it runs
 * (IndexRequest, DeleteRequest and UpdateRequest `validate()`), with its
 * messages. A single write with problems answers 400
 * `action_request_validation_exception`; a bulk request with a problem in any
 * item is refused as a whole, as BulkRequest.validate refuses it.
 */
import type { WriteRequest } from './write-coordinator.ts';

/** IndexRequest.MAX_ID_LENGTH_IN_BYTES. */
export const MAX_ID_LENGTH_IN_BYTES = 512;

export function writeRequestProblems(r: WriteRequest): string[] {
  const out: string[] = [];
  if (r.op !== 'delete' && r.id !== null) {
    const bytes = Buffer.byteLength(r.id, 'utf8');
    if (bytes > MAX_ID_LENGTH_IN_BYTES) out.push(`id is too long, must be no longer than ${MAX_ID_LENGTH_IN_BYTES} bytes but was: ${bytes}`);
  }
  if (r.versionType === 'FORCE') out.push('version type [force] may no longer be used');
  if (r.op === 'create' && (r.ifSeqNo !== null || r.ifPrimaryTerm !== null)) out.push('create operations do not support compare and set. use index instead');
  if (r.ifSeqNo !== null && (r.versionType !== 'INTERNAL' || r.version !== null)) out.push('compare and write operations can not use versioning');
  if (r.ifSeqNo !== null && r.ifPrimaryTerm === null) out.push('ifSeqNo is set, but primary term is [0]');
  if (r.ifSeqNo === null && r.ifPrimaryTerm !== null) out.push(`ifSeqNo is unassigned, but primary term is [${r.ifPrimaryTerm}]`);
  return out;
}
