/**
 * Every error the pass-record application reports, declared once with its
 * HTTP status (STYLE.md, "One catalogue of errors"). The HTTP API and the CLI
 * render them; nothing else formats errors.
 */

export type PassinfoErrorCode =
  | 'invalid_parameter'
  | 'not_an_entry_checkpoint'
  | 'no_entry_designation'
  | 'plate_not_found'
  | 'search_service_error'
  | 'index_setup_error';

const STATUS: Record<PassinfoErrorCode, number> = {
  invalid_parameter: 400,
  not_an_entry_checkpoint: 400,
  no_entry_designation: 409,
  plate_not_found: 404,
  search_service_error: 502,
  index_setup_error: 500,
};

export class PassinfoError extends Error {
  readonly code: PassinfoErrorCode;
  readonly status: number;

  constructor(code: PassinfoErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PassinfoError';
    this.code = code;
    this.status = STATUS[code];
  }
}

export const invalidParameter = (name: string, why: string): PassinfoError =>
  new PassinfoError('invalid_parameter', `[${name}] ${why}`);

export const notAnEntryCheckpoint = (landId: string, designated: readonly string[]): PassinfoError =>
  new PassinfoError(
    'not_an_entry_checkpoint',
    `checkpoint [${landId}] is not a designated entry checkpoint; first entries are recorded only at ` +
      `[${designated.join(', ')}] (set them with the ingest service's --entry-checkpoints)`,
  );

export const noEntryDesignation = (): PassinfoError =>
  new PassinfoError(
    'no_entry_designation',
    'no entry checkpoints are designated yet: start the ingest service (or the file import) with --entry-checkpoints',
  );

export const searchServiceError = (what: string, status: number | undefined, reason: string, cause?: unknown): PassinfoError =>
  new PassinfoError('search_service_error', `${what}: the search service answered ${status ?? 'nothing'}: ${reason}`, { cause });

/** Wraps a range check of a parameter parser (pass-time.ts throws RangeError) as an invalid parameter. */
export function asPassinfoError(err: unknown): PassinfoError {
  if (err instanceof PassinfoError) return err;
  if (err instanceof RangeError) return new PassinfoError('invalid_parameter', err.message, { cause: err });
  const message = err instanceof Error ? err.message : String(err);
  return new PassinfoError('search_service_error', message, { cause: err });
}
