/**
 * The one catalogue of Elasticsearch errors (STYLE.md "One catalogue of errors").
 *
 * Every layer throws an `EsError` made by a factory below; only the REST layer
 * renders it, into Elasticsearch 6.8's body:
 *   {"error":{"root_cause":[...],"type","reason",...extra},"status":N}
 * Reason texts are Elasticsearch's own, so clients and users that match on
 * them keep working.
 */

/** Extra members of the error object (`index`, `shard`, `line`, `failed_shards`, ...): JSON values. */
export type ErrorExtra = Readonly<Record<string, unknown>>;

export class EsError extends Error {
  readonly type: string;
  readonly status: number;
  readonly extra: ErrorExtra;
  /** Elasticsearch's `caused_by`: the underlying error, rendered nested. */
  readonly causedBy: EsError | null;
  /** Overrides the root cause list (defaults to the innermost cause). */
  readonly rootCauses: readonly EsError[] | null;
  /**
   * True for causes that are plain Java exceptions in Elasticsearch (an
   * IllegalArgumentException, a NumberFormatException): Elasticsearch's
   * root_cause search stops at the last ElasticsearchException before them.
   */
  javaException = false;

  constructor(
    type: string,
    reason: string,
    status: number,
    extra: ErrorExtra = {},
    causedBy: EsError | null = null,
    rootCauses: readonly EsError[] | null = null,
  ) {
    super(reason);
    this.name = 'EsError';
    this.type = type;
    this.status = status;
    this.extra = extra;
    this.causedBy = causedBy;
    this.rootCauses = rootCauses;
  }

  get reason(): string {
    return this.message;
  }
}

export function isEsError(err: unknown): err is EsError {
  return err instanceof EsError;
}

const indexExtra = (index: string, uuid = '_na_'): ErrorExtra => ({ index_uuid: uuid, index });

// ---- index and alias resolution -------------------------------------------------

export function indexNotFound(index: string): EsError {
  return new EsError('index_not_found_exception', 'no such index', 404, {
    'resource.type': 'index_or_alias',
    'resource.id': index,
    ...indexExtra(index),
  });
}

export function indexClosed(index: string, uuid: string): EsError {
  return new EsError('index_closed_exception', 'closed', 400, indexExtra(index, uuid));
}

export function resourceAlreadyExists(index: string, uuid: string): EsError {
  return new EsError('resource_already_exists_exception', `index [${index}/${uuid}] already exists`, 400, indexExtra(index, uuid));
}

export function invalidIndexName(index: string, why: string): EsError {
  return new EsError('invalid_index_name_exception', `Invalid index name [${index}], ${why}`, 400, indexExtra(index));
}

export function aliasesNotFound(names: readonly string[]): EsError {
  const list = names.join(',');
  return new EsError('aliases_not_found_exception', `aliases [${list}] missing`, 404, {
    'resource.type': 'aliases',
    'resource.id': list,
  });
}

// ---- documents -------------------------------------------------------------------

export interface DocCoordinates {
  readonly index: string;
  readonly uuid: string;
  readonly shard: number;
  readonly type: string;
  readonly id: string;
}

function docExtra(c: DocCoordinates): ErrorExtra {
  return { index_uuid: c.uuid, shard: String(c.shard), index: c.index };
}

/** Internal version or `if_seq_no` mismatch. */
export function versionConflictInternal(c: DocCoordinates, current: number, provided: number): EsError {
  return new EsError(
    'version_conflict_engine_exception',
    `[${c.type}][${c.id}]: version conflict, current version [${current}] is different than the one provided [${provided}]`,
    409,
    docExtra(c),
  );
}

/** External version not greater (external) or lower (external_gte) than the stored one. */
export function versionConflictExternal(c: DocCoordinates, current: number, provided: number, gte: boolean): EsError {
  const rel = gte ? 'higher than' : 'higher or equal to';
  return new EsError(
    'version_conflict_engine_exception',
    `[${c.type}][${c.id}]: version conflict, current version [${current}] is ${rel} the one provided [${provided}]`,
    409,
    docExtra(c),
  );
}

/** `if_seq_no` / `if_primary_term` did not match the stored document. */
export function versionConflictSeqNo(c: DocCoordinates, seqNo: number, term: number, currentSeqNo: number | null): EsError {
  const current =
    currentSeqNo === null ? 'but no document was found' : `current document has seqNo [${currentSeqNo}] and primary term [1]`;
  return new EsError(
    'version_conflict_engine_exception',
    `[${c.type}][${c.id}]: version conflict, required seqNo [${seqNo}], primary term [${term}]. ${current}`,
    409,
    docExtra(c),
  );
}

export function documentAlreadyExists(c: DocCoordinates, current: number): EsError {
  return new EsError(
    'version_conflict_engine_exception',
    `[${c.type}][${c.id}]: version conflict, document already exists (current version [${current}])`,
    409,
    docExtra(c),
  );
}

export function documentMissing(c: DocCoordinates): EsError {
  return new EsError('document_missing_exception', `[${c.type}][${c.id}]: document missing`, 404, docExtra(c));
}

// ---- requests --------------------------------------------------------------------

export function illegalArgument(reason: string, causedBy: EsError | null = null): EsError {
  return new EsError('illegal_argument_exception', reason, 400, {}, causedBy);
}

export function actionRequestValidation(problems: readonly string[]): EsError {
  const lines = problems.map((p, i) => `${i + 1}: ${p};`).join('');
  return new EsError('action_request_validation_exception', `Validation Failed: ${lines}`, 400);
}

export function parsingException(reason: string, line = 1, col = 1): EsError {
  return new EsError('parsing_exception', reason, 400, { line, col });
}

/** Malformed JSON in a request body (Jackson's wording is approximated). */
export function jsonParseException(reason: string): EsError {
  return new EsError('json_parse_exception', reason, 400);
}

export function notXContent(): EsError {
  return new EsError(
    'not_x_content_exception',
    'Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes',
    500,
  );
}

export function contentTooLarge(limit: number): EsError {
  return new EsError('content_too_long_exception', `content length is larger than the configured limit [${limit}]`, 413);
}

export function mapperParsing(reason: string, causedBy: EsError | null = null): EsError {
  return new EsError('mapper_parsing_exception', reason, 400, {}, causedBy);
}

export function searchContextMissing(id: string | number): EsError {
  return new EsError('search_context_missing_exception', `No search context found for id [${id}]`, 404);
}

export function unavailableShards(reason: string): EsError {
  return new EsError('unavailable_shards_exception', reason, 503);
}

/** NoShardAvailableActionException: no started copy of the shard can serve a read. */
export function noShardAvailable(index: string, shard: number): EsError {
  return new EsError('no_shard_available_action_exception', `No shard available for [${index}][${shard}]`, 503, { index, shard: String(shard) });
}

export function timeoutException(reason: string): EsError {
  return new EsError('timeout_exception', reason, 504);
}

export function fielddataOnTextField(field: string): EsError {
  return illegalArgument(
    `Fielddata is disabled on text fields by default. Set fielddata=true on [${field}] in order to load fielddata in memory by uninverting the inverted index. Note that this can however use significant memory. Alternatively use a keyword field instead.`,
  );
}

export function resultWindowTooLarge(window: number, max: number): EsError {
  return illegalArgument(
    `Result window is too large, from + size must be less than or equal to: [${max}] but was [${window}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`,
  );
}

/** A bug or unexpected failure: never leaks a stack trace to the client. */
export function internalError(reason: string): EsError {
  return new EsError('exception', reason, 500);
}

// ---- rendering (used by the REST layer only) -------------------------------------

export interface RenderedCause {
  type: string;
  reason: string;
  [key: string]: unknown;
}

function renderOne(err: EsError): RenderedCause {
  const out: RenderedCause = { type: err.type, reason: err.reason, ...err.extra };
  return out;
}

function innermost(err: EsError): EsError {
  let e = err;
  while (e.causedBy && !e.causedBy.javaException) e = e.causedBy;
  return e;
}

/** A cause that Elasticsearch raises as a plain Java exception (see `javaException`). */
export function javaCause(type: string, reason: string): EsError {
  const e = new EsError(type, reason, 400);
  e.javaException = true;
  return e;
}

function renderNested(err: EsError): RenderedCause {
  const out = renderOne(err);
  if (err.causedBy) out.caused_by = renderNested(err.causedBy);
  return out;
}

/** Elasticsearch 6.8's error body for `err`. */
export function renderError(err: EsError): { error: RenderedCause & { root_cause: RenderedCause[] }; status: number } {
  const roots = err.rootCauses ?? [innermost(err)];
  return {
    error: { root_cause: roots.map(renderOne), ...renderNested(err) },
    status: err.status,
  };
}

// ---- search (query DSL, sorting, shard-level query building) ---------------------

/**
 * Elasticsearch's QueryShardException: a query that parsed but cannot be built
 * against this shard's mapping (`failed to create query: ...`, `No mapping
 * found for [f] in order to sort on`). `index`/`uuid` when the shard knows them.
 */
export function queryShardException(reason: string, causedBy: EsError | null = null, index?: string, uuid = '_na_'): EsError {
  return new EsError('query_shard_exception', reason, 400, index === undefined ? {} : indexExtra(index, uuid), causedBy);
}

/** Java's NumberFormatException (a plain Java exception: not a root cause). */
export function numberFormatException(reason: string): EsError {
  return javaCause('number_format_exception', reason);
}

/** Java's IllegalArgumentException raised as the cause of another error (not a root cause). */
export function illegalArgumentCause(reason: string): EsError {
  return javaCause('illegal_argument_exception', reason);
}

// ---- analysis (analyzers, tokenizers, filters, `_analyze`) -----------------------

/** Elasticsearch's SettingsException: a component setting of the wrong kind (`Failed to parse int setting [min_gram] with value [x]`). */
export function settingsException(reason: string): EsError {
  return new EsError('settings_exception', reason, 500);
}

/** Elasticsearch's ElasticsearchParseException (`request body or source parameter is required`). */
export function elasticsearchParseException(reason: string): EsError {
  return new EsError('parse_exception', reason, 400);
}

/** Java's IllegalStateException (500): a state the request cannot be answered in (suggest entries of indices analyzed differently). */
export function illegalState(reason: string): EsError {
  return new EsError('illegal_state_exception', reason, 500);
}

/**
 * XContent's NamedObjectNotFoundException (an IllegalArgumentException, so
 * 400): a named section of a request (a suggester type) nothing parses.
 */
export function namedObjectNotFound(reason: string, line: number, col: number): EsError {
  return new EsError('named_object_not_found_exception', `[${line}:${col}] ${reason}`, 400);
}

/** `_analyze` with `field` naming a mapped field that is not tokenized (numbers, dates, ...). */
export function analyzeNonTokenizedField(field: string): EsError {
  return illegalArgument(`Can't process field [${field}], Analysis requests are only supported on tokenized fields`);
}

/**
 * Java's PatternSyntaxException (an IllegalArgumentException, so 400): a
 * regular expression of a request or a setting that does not parse. The
 * reason is Java's: the description, the index, the pattern and a caret.
 */
export function patternSyntax(description: string, pattern: string, index: number): EsError {
  const caret = index >= 0 ? `\n${' '.repeat(index)}^` : '';
  return new EsError('pattern_syntax_exception', `${description}${index >= 0 ? ` near index ${index}` : ''}\n${pattern}${caret}`, 400);
}

/**
 * A regular expression that uses what a linear-time engine cannot run
 * (backreferences, long lookaround, atomic groups, possessive quantifiers), or
 * that compiles to more states than the engine allows. Elasticsearch runs
 * these with Java's backtracking engine; here they are refused, so that no
 * request can make a thread spend exponential time in one match.
 */
export function regexNotLinear(pattern: string, what: string): EsError {
  return illegalArgument(`Regular expression [${pattern}] ${what}; patterns run in linear time here, so backreferences, atomic groups, possessive quantifiers and lookahead or lookbehind longer than 100 characters are not supported`);
}

// ---- mappings, documents, dates, index settings (shared/engine/mapping) ----------

/** A plain Java exception (IllegalArgumentException, ...) that itself has a cause, e.g. a setting value that failed to parse. */
export function javaCauseChain(type: string, reason: string, causedBy: EsError): EsError {
  const e = new EsError(type, reason, 400, {}, causedBy);
  e.javaException = true;
  return e;
}

/** ElasticsearchParseException with its cause (`failed to parse date field [x] with format [y]`). */
export function parseExceptionCausedBy(reason: string, causedBy: EsError): EsError {
  return new EsError('parse_exception', reason, 400, {}, causedBy);
}

/** `dynamic: strict` met an unmapped field (StrictDynamicMappingException, a MapperParsingException). */
export function strictDynamicMapping(path: string, field: string): EsError {
  return new EsError(
    'strict_dynamic_mapping_exception',
    `mapping set to strict, dynamic introduction of [${field}] within [${path}] is not allowed`,
    400,
  );
}

/**
 * A mapping that failed to parse while an index is created (MapperService wraps
 * every parse failure of a type's mapping so): the cause keeps its own type.
 */
export function failedToParseMapping(type: string, cause: EsError): EsError {
  return new EsError('mapper_parsing_exception', `Failed to parse mapping [${type}]: ${cause.reason}`, 400, {}, cause);
}

/** A plain Java RuntimeException surfacing from analysis setup (`Invalid Mapping Rule : [..]`). */
export function runtimeException(reason: string): EsError {
  return new EsError('runtime_exception', reason, 500);
}

// ---- aggregations ----------------------------------------------------------------

/** An unknown parameter inside an aggregation (ObjectParser): `[terms] unknown field [foo], parser not found`. */
export function xContentParse(reason: string): EsError {
  return new EsError('x_content_parse_exception', reason, 400);
}

/** An unknown aggregation type (6.8: NamedObjectNotFoundException from the named-object registry). */
export function unknownAggregationType(type: string): EsError {
  return new EsError('named_object_not_found_exception', `unable to parse BaseAggregationBuilder with name [${type}]: parser not found`, 400);
}

/** Failures Elasticsearch raises as AggregationExecutionException (status 500, as in 6.8). */
export function aggregationExecution(reason: string): EsError {
  return new EsError('aggregation_execution_exception', reason, 500);
}

/** Failures Elasticsearch raises as AggregationInitializationException. */
export function aggregationInitialization(reason: string): EsError {
  return new EsError('aggregation_initialization_exception', reason, 500);
}

/**
 * MultiBucketConsumerService.TooManyBucketsException (Elasticsearch 7's
 * `search.max_buckets`). Answered 400: the request asks for too much.
 */
export function tooManyBuckets(max: number, count: number): EsError {
  return new EsError(
    'too_many_buckets_exception',
    `Trying to create too many buckets. Must be less than or equal to: [${max}] but was [${count}]. This limit can be set by changing the [search.max_buckets] cluster level setting.`,
    400,
    { max_buckets: max },
  );
}

// ---- scripts (shared/script) -------------------------------------------------------

/** Painless's script_stack: the source around `pos` and a marker under it. */
function scriptStack(source: string, pos: number): string[] {
  const from = Math.max(0, pos - 25);
  const window = source.slice(from, pos + 25);
  return [window, `${' '.repeat(pos - from)}^---- HERE`];
}

/** A script that does not compile (or uses something outside the supported subset): 400 with where and why. */
export function scriptCompileError(source: string, pos: number, cause: string): EsError {
  return new EsError(
    'script_exception',
    'compile error',
    400,
    { script_stack: scriptStack(source, pos), script: source, lang: 'painless' },
    javaCause('illegal_argument_exception', cause),
  );
}

/** A script that failed while it ran; `causeType` is the Java exception Painless reports (null_pointer_exception, ...). */
export function scriptRuntimeError(source: string, pos: number, causeType: string, causeReason: string | null): EsError {
  const cause = javaCause(causeType, causeReason as string);
  return new EsError('script_exception', 'runtime error', 400, { script_stack: scriptStack(source, pos), script: source, lang: 'painless' }, cause);
}

/** How the update API and the by-query APIs wrap a script's failure. */
export function failedToExecuteScript(cause: EsError): EsError {
  return new EsError('illegal_argument_exception', 'failed to execute script', 400, {}, cause);
}

/** A stored script id that names nothing. */
export function storedScriptMissing(id: string): EsError {
  return new EsError('resource_not_found_exception', `unable to find script [${id}] in cluster state`, 404);
}

/** DELETE /_scripts/{id} of a script that does not exist. */
export function storedScriptNotDeletable(id: string): EsError {
  return new EsError('resource_not_found_exception', `stored script [${id}] does not exist and cannot be deleted`, 404);
}

// ---- security (services/node/security) ----------------------------------------------

/** The challenge Elasticsearch's basic-auth realm sends with every 401. */
export const BASIC_AUTH_CHALLENGE = 'Basic realm="security" charset="UTF-8"';

/**
 * ElasticsearchSecurityException with status 401, carrying the
 * `WWW-Authenticate` challenge in its `header` as Elasticsearch renders it;
 * the REST layer sends the same header on the response.
 */
export function authenticationRequired(reason: string): EsError {
  return new EsError('security_exception', reason, 401, { header: { 'WWW-Authenticate': BASIC_AUTH_CHALLENGE } });
}

/** No credentials at all (AuthenticationService's missing token). */
export function missingAuthenticationToken(uri: string): EsError {
  return authenticationRequired(`missing authentication token for REST request [${uri}]`);
}

/** Credentials that do not match an enabled user. */
export function unableToAuthenticate(username: string, uri: string): EsError {
  return authenticationRequired(`unable to authenticate user [${username}] for REST request [${uri}]`);
}

/** Too many failed logins from one address: refused before the password is checked (ours; Elasticsearch has no such limit). */
export function tooManyFailedLogins(retryAfterSeconds: number): EsError {
  return new EsError('security_exception', `too many failed authentication attempts from this address; retry in [${retryAfterSeconds}s]`, 429);
}

/** Exceptions.authorizationError as 6.8 words it. */
export function actionUnauthorized(action: string, username: string): EsError {
  return new EsError('security_exception', `action [${action}] is unauthorized for user [${username}]`, 403);
}

/** A reserved user or role changed through the API. */
export function reservedSecurityObject(reason: string): EsError {
  return illegalArgument(reason);
}

/** The security APIs on a node without `xpack.security.enabled` (6.8 answers 500 with this text; Kibana reads it as "security off"). */
export function securityNotEnabled(): EsError {
  return new EsError(
    'exception',
    'Security must be explicitly enabled when using a [basic] license. Enable security by setting [xpack.security.enabled] to [true] in the elasticsearch.yml file and restart the node.',
    500,
  );
}

// ---- geo shapes --------------------------------------------------------------------

/** Spatial4j's InvalidShapeException: a shape whose coordinates cannot stand (`Bad X value 200.0 is not in boundary ...`). */
export function invalidShape(reason: string): EsError {
  return javaCause('invalid_shape_exception', reason);
}
