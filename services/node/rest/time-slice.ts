/**
 * The REST layer's time slices (shared/steps/time-slice.ts): a request's
 * work on the thread that serves HTTP gives the event loop a turn every
 * SLICE_MS.
 */
import { nextTurn } from '../../../shared/steps/run-steps.ts';

export { SLICE_MS, TimeSlice } from '../../../shared/steps/time-slice.ts';

/** A turn of the event loop (shared/steps/run-steps.ts). */
export const yieldToEventLoop = nextTurn;
