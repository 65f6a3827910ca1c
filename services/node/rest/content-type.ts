/**
 * Elasticsearch 6's strict Content-Type check (RestController.hasContentType,
 * XContentType.fromMediaTypeOrFormat): a request with a body must say it is
 * JSON, and `_bulk` may also say NDJSON. Anything else, `text/plain` first of
 * all, is a 406: a web page can send text/plain cross-site without a CORS
 * preflight, and must not be able to write or delete through a node on
 * 127.0.0.1. YAML, CBOR and SMILE are Elasticsearch content types this
 * server does not read, so they are refused the same way.
 */
export type BodyKind = 'json' | 'ndjson';

/** The media type without parameters, lowercased; null for an empty header. */
function mediaType(header: string): string {
  const semi = header.indexOf(';');
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
}

function acceptable(header: string, kind: BodyKind): boolean {
  const type = mediaType(header);
  // XContentType.JSON by media type, by its short name, or `application/*`.
  if (type === 'application/json' || type === 'json' || type.startsWith('application/*')) return true;
  return kind === 'ndjson' && type === 'application/x-ndjson';
}

/**
 * Null when a body of `length` bytes with this Content-Type may go to a
 * handler that reads `kind`; otherwise the message of Elasticsearch's 406
 * (a simple error: `{"error": message, "status": 406}`).
 */
export function contentTypeProblem(header: string | string[] | undefined, length: number, kind: BodyKind): string | null {
  if (length === 0) return null;
  if (header === undefined) return 'Content-Type header is missing';
  const values = Array.isArray(header) ? header : [header];
  if (values.length === 1 && acceptable(values[0], kind)) return null;
  return `Content-Type header [${values.join(',')}] is not supported`;
}
