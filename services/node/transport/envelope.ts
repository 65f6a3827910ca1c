/**
 * The Envelope record (schemas/rpc/envelope.avsc): what every transport frame
 * holds, and the method definitions that pair an action name with the codecs
 * of its request and response records.
 */
import { RecordCodec, loadSchema } from '../../../shared/records/avro-codec.ts';
import type { RemoteError } from '../../../shared/errors/transport-errors.ts';

export type EnvelopeKind = 'REQUEST' | 'RESPONSE';

export interface Envelope {
  id: number;
  kind: EnvelopeKind;
  method: string;
  payload: Buffer;
  error: RemoteError | null;
  /** A request's W3C trace context while tracing runs (envelope version 2); absent otherwise. */
  trace_context?: Record<string, string> | null;
}

const schema = loadSchema('rpc/envelope.avsc');
/** Version 1: the envelope as it was before trace_context. */
const schemaV1 = { ...(schema as object), fields: (schema as { fields: { name: string }[] }).fields.filter((f) => f.name !== 'trace_context') } as typeof schema;
const traced = new RecordCodec<Envelope>(schema, 2);
const untraced = new RecordCodec<Envelope>(schemaV1, 1);

/**
 * An envelope is written as version 2 only when it carries a trace context.
 * With tracing off (the default) frames stay byte for byte version 1, which
 * nodes from before trace_context read; those nodes cannot read a traced
 * request, so a cluster turns tracing on once every node has this version.
 */
export const envelopeCodec = {
  encode: (env: Envelope): Buffer => (env.trace_context ? traced : untraced).encode(env),
  decode: (frame: Buffer): Envelope => (frame[1] === untraced.version ? untraced : traced).decode(frame),
};

/** One RPC: its action name and how its request and response travel. */
export interface RpcMethod<Req, Res> {
  readonly name: string;
  readonly request: RecordCodec<Req>;
  readonly response: RecordCodec<Res>;
}

export function rpcMethod<Req, Res>(name: string, requestSchema: string, responseSchema: string): RpcMethod<Req, Res> {
  return {
    name,
    request: new RecordCodec<Req>(loadSchema(requestSchema), 1),
    response: new RecordCodec<Res>(loadSchema(responseSchema), 1),
  };
}
