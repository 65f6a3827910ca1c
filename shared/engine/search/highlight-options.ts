/**
 * Highlighting options (HighlightBuilder): the global ones, each field's,
 * and the defaults Elasticsearch fills in. Parsed by shared/dsl/query/highlight-spec.ts.
 */
import type { QuerySource } from './types.ts';

export type HighlighterType = 'unified' | 'plain' | 'fvh';

export interface HighlightOptions {
  readonly type: HighlighterType | null;
  readonly preTags: readonly string[] | null;
  readonly postTags: readonly string[] | null;
  readonly fragmentSize: number | null;
  readonly numberOfFragments: number | null;
  readonly noMatchSize: number | null;
  readonly requireFieldMatch: boolean | null;
  readonly order: 'score' | 'none' | null;
  readonly encoder: 'default' | 'html' | null;
  readonly fragmenter: 'simple' | 'span' | null;
  readonly boundaryScanner: 'chars' | 'word' | 'sentence' | null;
  readonly highlightQuery: QuerySource | null;
  readonly fragmentOffset: number | null;
  readonly matchedFields: readonly string[] | null;
}

export interface HighlightField {
  readonly name: string;
  readonly options: HighlightOptions;
}

export interface HighlightSpec {
  readonly global: HighlightOptions;
  readonly fields: readonly HighlightField[];
}

/** The options with every default Elasticsearch applies filled in (HighlightBuilder's defaults). */
export interface ResolvedHighlight {
  readonly type: HighlighterType;
  readonly preTags: readonly string[];
  readonly postTags: readonly string[];
  readonly fragmentSize: number;
  readonly numberOfFragments: number;
  readonly noMatchSize: number;
  readonly requireFieldMatch: boolean;
  readonly order: 'score' | 'none';
  readonly encoder: 'default' | 'html';
  readonly fragmenter: 'simple' | 'span';
  readonly boundaryScanner: 'chars' | 'word' | 'sentence';
  readonly highlightQuery: QuerySource | null;
}

export const STYLED_PRE_TAGS = Array.from({ length: 10 }, (_, i) => `<em class="hlt${i + 1}">`);

/** Merges a field's options over the global ones, then Elasticsearch's defaults. */
export function resolveOptions(global: HighlightOptions, field: HighlightOptions): ResolvedHighlight {
  const pick = <K extends keyof HighlightOptions>(k: K): HighlightOptions[K] => field[k] ?? global[k];
  return {
    type: pick('type') ?? 'unified',
    preTags: pick('preTags') ?? ['<em>'],
    postTags: pick('postTags') ?? ['</em>'],
    fragmentSize: pick('fragmentSize') ?? 100,
    numberOfFragments: pick('numberOfFragments') ?? 5,
    noMatchSize: pick('noMatchSize') ?? 0,
    requireFieldMatch: pick('requireFieldMatch') ?? true,
    order: pick('order') ?? 'none',
    encoder: pick('encoder') ?? 'default',
    fragmenter: pick('fragmenter') ?? 'span',
    boundaryScanner: pick('boundaryScanner') ?? 'sentence',
    highlightQuery: pick('highlightQuery'),
  };
}

