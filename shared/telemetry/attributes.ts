/**
 * Span attribute names the instrumentation sets. The HTTP names are stable
 * OpenTelemetry semantic conventions, written out here so that a node
 * without tracing does not load @opentelemetry/semantic-conventions (its
 * thousands of constants) at start. The messaging and RPC names are still
 * "incubating" there, and that package asks users to copy incubating names
 * rather than import them. `logsearch.*` are ours.
 */

export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
/** The route pattern (`/{index}/_search`), never the raw path. */
export const ATTR_HTTP_ROUTE = 'http.route';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ATTR_URL_PATH = 'url.path';

/** The log topic (`<cluster>.<index>.<uuid>`). */
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
/** The partition = the shard number. */
export const ATTR_MESSAGING_DESTINATION_PARTITION_ID = 'messaging.destination.partition.id';
/** Records in one append or one applied batch. */
export const ATTR_MESSAGING_BATCH_MESSAGE_COUNT = 'messaging.batch.message_count';
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
export const ATTR_MESSAGING_SYSTEM = 'messaging.system';

export const ATTR_RPC_SYSTEM = 'rpc.system';
export const ATTR_RPC_METHOD = 'rpc.method';

/** Index name (as the request resolved it, not an alias). */
export const ATTR_INDEX = 'logsearch.index';
export const ATTR_SHARD = 'logsearch.shard';
/** First and last log offset of an appended or applied batch. */
export const ATTR_OFFSET_FIRST = 'logsearch.offset.first';
export const ATTR_OFFSET_LAST = 'logsearch.offset.last';
/** Items of a write request (1 for a single document, n for `_bulk`). */
export const ATTR_ITEMS = 'logsearch.items';
/** Shards a search ran on, hits on its page. */
export const ATTR_SHARDS = 'logsearch.shards';
export const ATTR_HITS = 'logsearch.hits';
