/**
 * The outcomes of a copy's most recently applied ops, by log offset. A
 * coordinator on another node appends ops and then asks a copy for their
 * outcomes (WAIT_OUTCOMES); by then the copy may have applied them, so it
 * must remember them. A ring of fixed size: an offset's slot is reused
 * `capacity` ops later, long after any coordinator stopped waiting for it.
 *
 * Almost every outcome is a plain success (created, deleted, ...) with a
 * version and a seq_no: those are kept in typed columns, so the ring holds
 * no object per op for the collector to mark; only failures and updates
 * that report a source keep their object.
 */
import type { DocOutcome, WriteResult } from '../shard-worker/apply-doc-op.ts';

const DEFAULT_CAPACITY = 1 << 16;

/** Result codes of the typed columns; OBJECT: the outcome is in `objects`. */
const RESULTS: readonly WriteResult[] = ['created', 'updated', 'deleted', 'not_found', 'noop'];
const OBJECT = 255;

export class OutcomeRing {
  private readonly offsets: Float64Array;
  private readonly results: Uint8Array;
  private readonly versions: Float64Array;
  private readonly seqNos: Float64Array;
  private readonly objects = new Map<number, DocOutcome>();
  private readonly mask: number;

  constructor(capacity = DEFAULT_CAPACITY) {
    if ((capacity & (capacity - 1)) !== 0) throw new Error('OutcomeRing capacity must be a power of two');
    this.offsets = new Float64Array(capacity).fill(-1);
    this.results = new Uint8Array(capacity);
    this.versions = new Float64Array(capacity);
    this.seqNos = new Float64Array(capacity);
    this.mask = capacity - 1;
  }

  record(offset: number, outcome: DocOutcome): void {
    const i = offset & this.mask;
    this.offsets[i] = offset;
    // The source of an index op is not needed by anyone asking later; an update reports it. An index op
    // that replaced a document is 'updated' without a source: typed too (a 50,000-document bulk of
    // overwrites kept 50,000 objects in the map, for the collector to promote and then mark).
    if (outcome.ok && outcome.source === null) {
      this.results[i] = RESULTS.indexOf(outcome.result);
      this.versions[i] = outcome.version;
      this.seqNos[i] = outcome.seqNo;
      this.objects.delete(i);
    } else {
      this.results[i] = OBJECT;
      this.objects.set(i, outcome);
    }
  }

  /** Outcomes held as objects (failures, and those that report a source). */
  get objectCount(): number {
    return this.objects.size;
  }

  get(offset: number): DocOutcome | undefined {
    const i = offset & this.mask;
    if (this.offsets[i] !== offset) return undefined;
    const code = this.results[i];
    if (code === OBJECT) return this.objects.get(i);
    return { ok: true, result: RESULTS[code], version: this.versions[i], seqNo: this.seqNos[i], next: null, source: null };
  }
}
