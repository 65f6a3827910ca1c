/**
 * The outcomes of a copy's most recently applied ops, by log offset. A
 * coordinator on another node appends ops and then asks a copy for their
 * outcomes (WAIT_OUTCOMES); by then the copy may have applied them, so it
 * must remember them. A ring of fixed size: an offset's slot is reused
 * `capacity` ops later, long after any coordinator stopped waiting for it.
 */
import type { DocOutcome } from './apply-doc-op.ts';

const DEFAULT_CAPACITY = 1 << 16;

export class OutcomeRing {
  private readonly offsets: Float64Array;
  private readonly outcomes: (DocOutcome | undefined)[];
  private readonly mask: number;

  constructor(capacity = DEFAULT_CAPACITY) {
    if ((capacity & (capacity - 1)) !== 0) throw new Error('OutcomeRing capacity must be a power of two');
    this.offsets = new Float64Array(capacity).fill(-1);
    this.outcomes = new Array<DocOutcome | undefined>(capacity);
    this.mask = capacity - 1;
  }

  record(offset: number, outcome: DocOutcome): void {
    const i = offset & this.mask;
    this.offsets[i] = offset;
    // The source of an index op is not needed by anyone asking later; keep only what an update reports.
    this.outcomes[i] = outcome.ok && outcome.result !== 'updated' && outcome.result !== 'noop' ? { ...outcome, next: null, source: null } : outcome;
  }

  get(offset: number): DocOutcome | undefined {
    const i = offset & this.mask;
    return this.offsets[i] === offset ? this.outcomes[i] : undefined;
  }
}
