/**
 * The tokens of one field of one document, as indexing produced them:
 * each value analyzed again from the stored source with the field's index
 * analyzer (keywords are one token, the normalized value), positions
 * continuing across values with Elasticsearch's position_increment_gap and
 * offsets with Lucene's offset gap of 1, as term vectors report them.
 * Term vectors and highlighting read positions and offsets from here; the
 * segment files keep only what queries need.
 */
import type { Analyzer, AnalyzerLookup } from '../analysis/types.ts';
import type { FieldMapping } from '../mapping/types.ts';
import { POSITION_INCREMENT_GAP } from '../segment/text-field-writer.ts';

export interface FieldToken {
  readonly term: string;
  readonly position: number;
  /** UTF-16 offsets into the value `value`. */
  readonly start: number;
  readonly end: number;
  /** Which value of the field the token comes from. */
  readonly value: number;
  /** Offset of that value's start in the field's concatenated text (term vectors' offsets). */
  readonly valueBase: number;
}

/** The analyzer a text field indexes with, or null for a field indexed as whole values (keyword). */
export function indexAnalyzer(field: FieldMapping, analyzers: AnalyzerLookup): Analyzer | null {
  if (field.type !== 'text') return null;
  return analyzers.get(field.analyzer ?? 'default') ?? analyzers.get('standard') ?? null;
}

/** Tokens of the values, in order. `normalize` turns a keyword value into its term (normalizer). */
export function fieldTokens(values: readonly (string | number | boolean)[], analyzer: Analyzer | null, normalize: (v: string) => string = (v) => v): FieldToken[] {
  const out: FieldToken[] = [];
  let position = -1;
  let offsetBase = 0;
  values.forEach((raw, valueIndex) => {
    const text = typeof raw === 'string' ? raw : String(raw);
    if (valueIndex > 0) position += analyzer?.positionIncrementGap ?? POSITION_INCREMENT_GAP;
    const base = position + 1;
    if (analyzer === null) {
      out.push({ term: normalize(text), position: base, start: 0, end: text.length, value: valueIndex, valueBase: offsetBase });
      position = base;
    } else {
      let last = base - 1;
      analyzer.analyzeInto(
        text,
        (term, pos, start, end) => {
          out.push({ term, position: pos, start, end, value: valueIndex, valueBase: offsetBase });
          if (pos > last) last = pos;
        },
        base,
      );
      position = last;
    }
    offsetBase += text.length + 1;
  });
  return out;
}
