/**
 * Hand-built inputs for the segment tests: field mappings, parsed documents and
 * stub analyzers (until shared/engine/analysis has real ones).
 */
import type { Analyzer, AnalyzerLookup, Token, TokenSink } from '../../../shared/engine/analysis/types.ts';
import type { FieldMapping, ParsedDocument } from '../../../shared/engine/mapping/types.ts';
import type { BufferedDoc } from '../../../shared/engine/segment/segment-builder.ts';
import { EMPTY_COMMIT, ShardIndex } from '../../../shared/engine/segment/shard-index.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export { fieldMapping } from '../../helpers/field-mapping.ts';

export type Values = readonly (string | number | boolean)[];

export function parsed(fields: readonly (readonly [FieldMapping, Values])[]): ParsedDocument {
  return { fields: fields.map(([mapping, values]) => ({ mapping, values })), dynamicUpdate: null };
}

let seqNo = 0;
export function bufferedDoc(id: string, fields: readonly (readonly [FieldMapping, Values])[], version = 1): BufferedDoc {
  const source: Record<string, unknown> = {};
  for (const [mapping, values] of fields) source[mapping.path] = values.length === 1 ? values[0] : values;
  return {
    id,
    version,
    seqNo: seqNo++,
    routing: null,
    source: Buffer.from(JSON.stringify(source)),
    parsed: parsed(fields),
  };
}

/** Streams tokens produced by `split` with consecutive positions from `positionBase`. */
function stubAnalyzer(name: string, split: (text: string) => string[], samePositionAlso?: (token: string) => string | null): Analyzer {
  const analyzeInto = (text: string, sink: TokenSink, positionBase = 0): number => {
    let position = positionBase - 1;
    let offset = 0;
    for (const token of split(text)) {
      position++;
      const start = text.indexOf(token, offset);
      offset = start + token.length;
      sink(token, position, start, offset);
      const synonym = samePositionAlso?.(token) ?? null;
      if (synonym !== null) sink(synonym, position, start, offset);
    }
    return position + 1 - positionBase;
  };
  return {
    name,
    analyzeInto,
    analyze(text: string): Token[] {
      const tokens: Token[] = [];
      analyzeInto(text, (token, position, start_offset, end_offset) => {
        tokens.push({ token, start_offset, end_offset, type: 'word', position });
      });
      return tokens;
    },
  };
}

const whitespaceLowercase = stubAnalyzer('standard', (text) => text.toLowerCase().split(/\s+/).filter((t) => t !== ''));
/** Emits `X` at the same position as every token `x` (a synonym: position increment 0). */
const withUpperSynonym = stubAnalyzer(
  'upper_synonym',
  (text) => text.split(/\s+/).filter((t) => t !== ''),
  (token) => token.toUpperCase(),
);

export const analyzers: AnalyzerLookup = {
  get(name: string): Analyzer | undefined {
    if (name === 'standard') return whitespaceLowercase;
    if (name === 'upper_synonym') return withUpperSynonym;
    return undefined;
  },
};

const tempDirs: string[] = [];
process.on('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A directory for a test's segment files, removed when the test process exits. */
export function tempSegmentDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'segments-'));
  tempDirs.push(dir);
  return dir;
}

/** An empty shard index over a fresh directory. */
export function newShardIndex(lookup: AnalyzerLookup = analyzers): ShardIndex {
  return ShardIndex.open(tempSegmentDir(), lookup, EMPTY_COMMIT);
}
