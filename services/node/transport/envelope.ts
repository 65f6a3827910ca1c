/**
 * The Envelope record (schemas/rpc/envelope.avsc): what every transport frame
 * holds, and the method definitions that pair an action name with the codecs
 * of its request and response records.
 */
import { RecordCodec, loadSchema } from '../../../shared/records/avro-codec.ts';
import type { RemoteError } from './transport-errors.ts';

export type EnvelopeKind = 'REQUEST' | 'RESPONSE';

export interface Envelope {
  id: number;
  kind: EnvelopeKind;
  method: string;
  payload: Buffer;
  error: RemoteError | null;
}

export const envelopeCodec = new RecordCodec<Envelope>(loadSchema('rpc/envelope.avsc'), 1);

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
