/**
 * Maps offsets in a char filter's output back to offsets in its input, as
 * Lucene's BaseCharFilter does: a sorted list of (output offset, cumulative
 * difference) points; an offset is corrected by the difference recorded at the
 * last point at or before it.
 */
export interface OffsetCorrection {
  correct(offset: number): number;
}

export const IDENTITY_CORRECTION: OffsetCorrection = { correct: (offset) => offset };

export class OffsetCorrectionBuilder {
  private readonly offsets: number[] = [];
  private readonly diffs: number[] = [];

  /** The cumulative difference recorded last (0 before any). */
  lastDiff(): number {
    return this.diffs.length === 0 ? 0 : this.diffs[this.diffs.length - 1]!;
  }

  /** From output offset `offset` on, input offset = output offset + `cumulativeDiff`. */
  add(offset: number, cumulativeDiff: number): void {
    const n = this.offsets.length;
    if (n > 0 && this.offsets[n - 1] === offset) {
      this.diffs[n - 1] = cumulativeDiff;
      return;
    }
    this.offsets.push(offset);
    this.diffs.push(cumulativeDiff);
  }

  build(): OffsetCorrection {
    if (this.offsets.length === 0) return IDENTITY_CORRECTION;
    return new PointCorrection(Int32Array.from(this.offsets), Int32Array.from(this.diffs));
  }
}

class PointCorrection implements OffsetCorrection {
  private readonly offsets: Int32Array;
  private readonly diffs: Int32Array;

  constructor(offsets: Int32Array, diffs: Int32Array) {
    this.offsets = offsets;
    this.diffs = diffs;
  }

  correct(offset: number): number {
    let lo = 0;
    let hi = this.offsets.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid]! <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? offset : offset + this.diffs[found]!;
  }
}

/** Corrections of a chain of char filters, applied from the last filter back to the first. */
export function composeCorrections(chain: readonly OffsetCorrection[]): OffsetCorrection {
  const active = chain.filter((c) => c !== IDENTITY_CORRECTION);
  if (active.length === 0) return IDENTITY_CORRECTION;
  if (active.length === 1) return active[0]!;
  return {
    correct(offset: number): number {
      let o = offset;
      for (let i = active.length - 1; i >= 0; i--) o = active[i]!.correct(o);
      return o;
    },
  };
}

/** One replacement a char filter makes: input [start, end) becomes `replacement`. */
export interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}

/**
 * Applies non-overlapping replacements (in input order) and records offset
 * corrections the way Lucene's MappingCharFilter does: a shorter replacement
 * shifts everything after it; the extra characters of a longer one all map
 * back to the end of the replaced input.
 */
export function applyReplacements(text: string, replacements: readonly Replacement[]): { text: string; correction: OffsetCorrection } {
  if (replacements.length === 0) return { text, correction: IDENTITY_CORRECTION };
  const builder = new OffsetCorrectionBuilder();
  let out = '';
  let from = 0;
  for (const r of replacements) {
    out += text.slice(from, r.start);
    const outStart = out.length;
    out += r.replacement;
    from = r.end;
    const inLen = r.end - r.start;
    const outLen = r.replacement.length;
    const diff = inLen - outLen;
    if (diff === 0) continue;
    const prev = builder.lastDiff();
    if (diff > 0) {
      builder.add(outStart + outLen, prev + diff);
    } else {
      for (let extra = 0; extra < -diff; extra++) builder.add(outStart + inLen + extra, prev - extra - 1);
    }
  }
  out += text.slice(from);
  return { text: out, correction: builder.build() };
}
