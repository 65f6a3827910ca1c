/**
 * The `composite` aggregation's request (CompositeAggregationBuilder and
 * CompositeValuesSourceParserHelper of Elasticsearch 6.8): `sources` (an
 * array of one-key objects naming a terms, histogram or date_histogram
 * source), `size` and `after`.
 */
import { illegalArgument, parsingException } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../../engine/mapping/types.ts';
import type { CompositeSourceSpec, CompositeSpec } from '../../engine/aggs/spec.ts';
import { timeZone } from '../../engine/aggs/time-zone.ts';
import { AggParams, isObject, mustBeAtLeast, tokenName, type Json } from './agg-params.ts';
import { parseInterval, type Common } from './parse-bucket-aggs.ts';
import { checkField, readValuesSource } from './parse-values-source.ts';

/** CompositeAggregationBuilder's default size. */
const DEFAULT_SIZE = 10;
const SOURCE_TYPES = new Set(['terms', 'histogram', 'date_histogram']);

function parseSource(entry: unknown, mapping: MappingLookup): CompositeSourceSpec {
  if (!isObject(entry)) throw parsingException(`Failed to parse object: expecting token of type [START_OBJECT] but found [${tokenName(entry)}]`);
  const names = Object.keys(entry);
  if (names.length !== 1) throw parsingException(`Failed to parse object: expecting token of type [FIELD_NAME] but found [END_OBJECT]`);
  const name = names[0]!;
  const typed = entry[name];
  if (!isObject(typed)) throw parsingException(`Failed to parse object: expecting token of type [START_OBJECT] but found [${tokenName(typed)}]`);
  const types = Object.keys(typed);
  if (types.length !== 1) throw parsingException(`Failed to parse object: expecting token of type [FIELD_NAME] but found [END_OBJECT]`);
  const kind = types[0]!;
  if (!SOURCE_TYPES.has(kind)) throw parsingException(`invalid source type: ${kind}`);
  const body = typed[kind];
  if (!isObject(body)) throw parsingException(`Failed to parse object: expecting token of type [START_OBJECT] but found [${tokenName(body)}]`);
  const p = new AggParams(kind, name, body);
  const source = readValuesSource(p, { withFormat: true });
  const missingBucket = p.boolean('missing_bucket') ?? false;
  const order = p.string('order');
  let asc = true;
  if (order !== null) {
    const o = order.toLowerCase();
    if (o !== 'asc' && o !== 'desc') throw illegalArgument(`Unknown order direction [${order}]`);
    asc = o === 'asc';
  }
  let interval = 0;
  let dateInterval = null;
  let tz: string | null = null;
  if (kind === 'histogram') {
    const iv = p.number('interval');
    if (iv === null) throw illegalArgument(`[interval] must be greater than 0 for [histogram] source`);
    if (!(iv > 0)) throw illegalArgument(`[interval] must be greater than 0 for [histogram] source`);
    interval = iv;
  } else if (kind === 'date_histogram') {
    dateInterval = parseInterval(p, name);
    tz = p.string('time_zone');
    if (tz !== null) timeZone(tz);
  }
  p.done();
  checkField(source, mapping, kind !== 'terms');
  return { name, kind: kind as CompositeSourceSpec['kind'], source, asc, missingBucket, interval, dateInterval, timeZone: tz };
}

export function parseComposite(c: Common, body: Json, mapping: MappingLookup): CompositeSpec {
  const p = new AggParams('composite', c.name, body);
  const rawSources = p.raw('sources');
  if (rawSources === undefined) throw illegalArgument('Required [sources]');
  if (!Array.isArray(rawSources)) throw parsingException(`[composite] sources doesn't support values of type: ${tokenName(rawSources)}`);
  if (rawSources.length === 0) throw illegalArgument('Composite [sources] cannot be null or empty');
  const sources = rawSources.map((s) => parseSource(s, mapping));
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const s of sources) (seen.has(s.name) ? dups : seen).add(s.name);
  if (dups.size > 0) throw illegalArgument(`Composite source names must be unique, found duplicates: [${[...dups].join(', ')}]`);
  const size = p.int('size') ?? DEFAULT_SIZE;
  mustBeAtLeast('size', 0, size, c.name, true);
  const afterRaw = p.object('after');
  let after: (string | number | boolean | null)[] | null = null;
  if (afterRaw !== null) {
    const n = Object.keys(afterRaw).length;
    if (n !== sources.length) throw illegalArgument(`[after] has ${n} value(s) but [sources] has ${sources.length}`);
    after = sources.map((s) => {
      if (!Object.prototype.hasOwnProperty.call(afterRaw, s.name)) throw illegalArgument(`Missing value for [after.${s.name}]`);
      const v = afterRaw[s.name];
      if (v === null && s.missingBucket) return null;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
      const got = v === null ? 'null' : Array.isArray(v) ? 'ArrayList' : 'HashMap';
      throw illegalArgument(`Invalid value for [after.${s.name}], expected comparable, got [${got}]`);
    });
  }
  p.done();
  return { type: 'composite', ...c, sources, size, after };
}
