/** The DocOp record's codec (schemas/doc-op.avsc); its TypeScript shape is doc-op-types.ts. */
import type avro from 'avsc';
import { RecordCodec, loadSchema } from './avro-codec.ts';
import { decodeDocOp, decodeDocOpHeader, decodeDocOpRoute, encodeDocOp } from './doc-op-binary.ts';
import type { DocOp, OpType } from './doc-op-types.ts';

export type { DocOp, OpType, ScriptRecord, UpdateBody, VersionType } from './doc-op-types.ts';

const schema = loadSchema('doc-op.avsc') as { fields: { name: string; type: unknown }[] };

/** The fields UpdateBody gained in version 2 (scripts, by-query updates). */
const ADDED_IN_V2 = new Set(['script', 'scripted_upsert', 'by_query']);

/** Version 1: the schema before scripts, so logs written before them read on (the new fields take their defaults). */
function version1(s: typeof schema): avro.Schema {
  const fields = s.fields.map((f) => {
    if (f.name !== 'update') return f;
    const [nul, body] = f.type as [string, { fields: { name: string }[] }];
    return { ...f, type: [nul, { ...body, fields: body.fields.filter((b) => !ADDED_IN_V2.has(b.name)) }] };
  });
  return { ...s, fields } as avro.Schema;
}

export const docOpCodec = new RecordCodec<DocOp>(schema as avro.Schema, 2, new Map([[1, version1(schema)]]), { encode: encodeDocOp, decode: decodeDocOp });

/**
 * The request id and item of a DocOp log value, without decoding the rest
 * (the main thread matches outcomes to waiting requests; the copy's engine
 * decodes the op). Every schema version starts with these two fields.
 */
export function docOpHeader(value: Buffer): { requestId: string; item: number } {
  return decodeDocOpHeader(value, 2);
}

/**
 * The id, routing and kind of a DocOp log value, without decoding its
 * source: a copy of a shared log (a rebuild with another shard count) keeps
 * only the ops that route to its shard, and drops the others on the main
 * thread before they are sent to its worker; `_reindex` of a whole index
 * finds each id's last op (reindex-replay.ts). Every schema version starts
 * with the same fields up to `routing`.
 */
export function docOpRoute(value: Buffer): { id: string; routing: string | null; op: OpType } {
  return decodeDocOpRoute(value, 2);
}
