/**
 * A large request body read in time slices: above SLICED_PARSE_BYTES the
 * stepped reader (shared/json/json-steps.ts) gives the event loop a turn
 * every SLICE_MS (time-slice.ts), so a 10 MB document does not hold the
 * thread that serves HTTP for the 200-450 ms of a JSON.parse. It reads and
 * refuses what parseStrictJson does.
 */
import { parseStrictJson } from '../../../shared/json/strict-json.ts';
import { strictJsonSteps } from '../../../shared/json/json-steps.ts';
import { runStepsInTurns } from '../../../shared/steps/run-steps.ts';
import { SLICE_MS } from './time-slice.ts';

/** Bodies at least this large are parsed in slices; smaller ones by parseStrictJson at once (a few ms). */
export const SLICED_PARSE_BYTES = 1 << 20;

/** Parses a request body as parseStrictJson does, in slices when it has at least `minBytes` (tests lower it). */
export async function parseStrictJsonSliced(raw: Buffer, minBytes = SLICED_PARSE_BYTES): Promise<unknown> {
  if (raw.length < minBytes) return parseStrictJson(raw);
  return runStepsInTurns(strictJsonSteps(raw), SLICE_MS);
}
