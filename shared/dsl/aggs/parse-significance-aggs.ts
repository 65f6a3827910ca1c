/** Parsers of `sampler` and `significant_terms` (SamplerAggregationBuilder, SignificantTermsAggregationBuilder). */
import { aggregationExecution, illegalArgument } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../../engine/mapping/types.ts';
import type { SamplerSpec, SignificanceHeuristic, SignificantTermsSpec } from '../../engine/aggs/spec.ts';
import { AggParams, mustBeAtLeast, type Json } from './agg-params.ts';
import { parseIncludeExclude, type Common } from './parse-bucket-aggs.ts';
import { checkField, readValuesSource } from './parse-values-source.ts';

/** SamplerAggregator.DEFAULT_SHARD_SAMPLE_SIZE. */
const DEFAULT_SAMPLE = 100;

export function parseSampler(c: Common, body: Json): SamplerSpec {
  const p = new AggParams('sampler', c.name, body);
  const shardSize = p.int('shard_size') ?? DEFAULT_SAMPLE;
  p.done();
  return { type: 'sampler', ...c, shardSize, diversity: null };
}

/** DiversifiedAggregationBuilder: `field`, `shard_size` (100), `max_docs_per_value` (1), `execution_hint` (accepted, one way here). */
export function parseDiversifiedSampler(c: Common, body: Json, mapping: MappingLookup): SamplerSpec {
  const p = new AggParams('diversified_sampler', c.name, body);
  const source = readValuesSource(p, { withFormat: false });
  const shardSize = p.int('shard_size') ?? DEFAULT_SAMPLE;
  mustBeAtLeast('shardSize', 0, shardSize, c.name, true);
  const maxDocsPerValue = p.int('max_docs_per_value') ?? 1;
  mustBeAtLeast('maxDocsPerValue', 0, maxDocsPerValue, c.name, true);
  const hint = p.string('execution_hint');
  if (hint !== null && !['map', 'global_ordinals', 'bytes_hash'].includes(hint)) {
    throw illegalArgument(`Unknown \`execution_hint\`: [${hint}], expected any of [map, global_ordinals, bytes_hash]`);
  }
  p.done();
  checkField(source, mapping, false);
  return { type: 'diversified_sampler', ...c, shardSize, diversity: { source, maxDocsPerValue } };
}

/** The heuristics Elasticsearch 6.8 ships; the ones this engine computes. */
const HEURISTICS = ['jlh', 'mutual_information', 'chi_square', 'gnd', 'percentage', 'script_heuristic'];

export function parseSignificantTerms(c: Common, body: Json, mapping: MappingLookup, type: 'significant_terms' | 'significant_text' = 'significant_terms'): SignificantTermsSpec {
  const p = new AggParams(type, c.name, body);
  const source = readValuesSource(p, { withFormat: type === 'significant_terms' });
  let text: SignificantTermsSpec['text'] = null;
  if (type === 'significant_text') {
    const sourceFields = p.raw('source_fields');
    if (sourceFields !== undefined && sourceFields !== null && !(Array.isArray(sourceFields) && sourceFields.every((f) => typeof f === 'string'))) {
      throw illegalArgument(`[source_fields] must be an array of field names in [${c.name}]`);
    }
    const filterDuplicateText = p.boolean('filter_duplicate_text') ?? false;
    const f = mapping.field(source.field!);
    if (f !== undefined && f.type !== 'text' && f.type !== 'keyword') {
      throw illegalArgument(`Field [${source.field}] has no analyzer, but SignificantText requires an analyzed field`);
    }
    text = { sourceFields: Array.isArray(sourceFields) ? (sourceFields as string[]) : [source.field!], filterDuplicateText };
  }
  const size = p.int('size') ?? 10;
  mustBeAtLeast('size', 0, size, c.name, true);
  const shardSize = p.int('shard_size');
  if (shardSize !== null) mustBeAtLeast('shardSize', 0, shardSize, c.name, true);
  const minDocCount = p.int('min_doc_count') ?? 3;
  mustBeAtLeast('minDocCount', 0, minDocCount, c.name, false);
  const shardMinDocCount = p.int('shard_min_doc_count') ?? 0;
  mustBeAtLeast('shardMinDocCount', 0, shardMinDocCount, c.name, false);
  const include = parseIncludeExclude(p.raw('include'), 'include');
  const exclude = parseIncludeExclude(p.raw('exclude'), 'exclude');
  p.ignore('execution_hint');
  let heuristic: SignificanceHeuristic = { type: 'jlh' };
  for (const h of HEURISTICS) {
    const v = p.object(h);
    if (v === null) continue;
    if (h === 'script_heuristic') {
      // Refused rather than ignored: a script ranks the terms its own way.
      throw illegalArgument(`[${type}] heuristic [script_heuristic] is not supported by this engine`);
    }
    if (h === 'jlh' || h === 'percentage') {
      if (Object.keys(v).length > 0) throw illegalArgument(`[${h}] unknown field [${Object.keys(v)[0]}], parser not found`);
      heuristic = { type: h };
      continue;
    }
    const hp = new AggParams(h, c.name, v);
    const includeNegatives = h === 'gnd' ? true : (hp.boolean('include_negatives') ?? false);
    const backgroundIsSuperset = hp.boolean('background_is_superset') ?? true;
    hp.done();
    heuristic = { type: h as 'mutual_information' | 'chi_square' | 'gnd', includeNegatives, backgroundIsSuperset };
  }
  const backgroundFilter = p.object('background_filter');
  p.done();
  // a text field with `fielddata` is read from _source (aggregator-factory.ts); anything else resolves as any values source
  const fielddataText = source.field !== null && mapping.field(source.field)?.type === 'text' && mapping.field(source.field)?.fielddata === true;
  if (text === null && !fielddataText) checkField(source, mapping, false);
  if (text === null && (include?.kind === 'regex' || exclude?.kind === 'regex')) {
    // SignificantTermsAggregatorFactory: regex include/exclude works on string (keyword, text) values only
    const f = source.field === null ? undefined : mapping.field(source.field);
    if (f && ((f.type !== 'keyword' && !fielddataText) || f.mappedType === 'ip')) {
      throw aggregationExecution(
        `Aggregation [${c.name}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses`,
      );
    }
  }
  return { type, ...c, source, size, shardSize, minDocCount, shardMinDocCount, include, exclude, heuristic, backgroundFilter, text };
}
