/**
 * Transport-level errors, as Elasticsearch's transport layer names them
 * (org.elasticsearch.transport: ReceiveTimeoutTransportException,
 * ConnectTransportException, NodeDisconnectedException), and the EsError ↔
 * wire conversion that lets a caller rethrow exactly the error a remote
 * handler (on another node, or in a shard worker thread) threw. Beside the
 * catalogue, below every layer of services/node that sends errors across a
 * socket or a thread.
 */
import { EsError, isEsError } from './es-errors.ts';

/** Elasticsearch's `[node][address][action]` prefix of ActionTransportException messages. */
function actionPrefix(node: string, address: string, action: string | null): string {
  return action === null ? `[${node}][${address}]` : `[${node}][${address}][${action}]`;
}

/** TransportService: a response that did not come within the request's timeout. */
export function receiveTimeout(node: string, address: string, action: string, requestId: number, afterMs: number): EsError {
  return new EsError(
    'receive_timeout_transport_exception',
    `${actionPrefix(node, address, action)} request_id [${requestId}] timed out after [${afterMs}ms]`,
    500,
  );
}

/** The connection to the node could not be opened. */
export function connectTransport(node: string, address: string, why: string): EsError {
  return new EsError('connect_transport_exception', `${actionPrefix(node, address, null)} connect_exception: ${why}`, 500);
}

/** The connection closed while the request waited for its response. */
export function nodeDisconnected(node: string, address: string, action: string): EsError {
  return new EsError('node_disconnected_exception', `${actionPrefix(node, address, action)} disconnected`, 500);
}

/** A frame that is not a valid envelope or payload: the peer speaks another protocol or version. */
export function transportSerialization(what: string, cause: unknown): EsError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new EsError('transport_serialization_exception', `Failed to deserialize ${what}: ${why}`, 500);
}

/** The RemoteError record of schemas/rpc/envelope.avsc. */
export interface RemoteError {
  type: string;
  reason: string;
  status: number;
  extra_json: string;
  java_exception: boolean;
  caused_by: RemoteError | null;
  root_causes: RemoteError[] | null;
}

/**
 * An error a handler threw, as data. A non-EsError is a bug on the remote
 * node; it travels as Elasticsearch renders an unknown exception (type
 * `exception`, status 500) so the caller can report it as a shard failure.
 */
export function errorToWire(err: unknown): RemoteError {
  if (!isEsError(err)) {
    const reason = err instanceof Error ? err.message : String(err);
    return { type: 'exception', reason, status: 500, extra_json: '{}', java_exception: false, caused_by: null, root_causes: null };
  }
  return {
    type: err.type,
    reason: err.reason,
    status: err.status,
    extra_json: JSON.stringify(err.extra),
    java_exception: err.javaException,
    caused_by: err.causedBy ? errorToWire(err.causedBy) : null,
    root_causes: err.rootCauses ? err.rootCauses.map(errorToWire) : null,
  };
}

export function errorFromWire(w: RemoteError): EsError {
  const extra = JSON.parse(w.extra_json) as Record<string, unknown>;
  const err = new EsError(
    w.type,
    w.reason,
    w.status,
    extra,
    w.caused_by ? errorFromWire(w.caused_by) : null,
    w.root_causes ? w.root_causes.map(errorFromWire) : null,
  );
  err.javaException = w.java_exception;
  return err;
}
