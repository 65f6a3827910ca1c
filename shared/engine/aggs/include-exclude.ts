/**
 * `include` / `exclude` of the terms aggregation (IncludeExclude in 6.8):
 * a regular expression (string fields only, Lucene syntax, whole-value match),
 * an array of exact values, or a hash partition (`{"partition": p, "num_partitions": n}`).
 */
import { EsError } from '../../errors/es-errors.ts';
import { murmur3x86_32, longBits, hashHigh, mix64, doubleToLongBits } from './murmur3.ts';
import type { IncludeExclude } from './spec.ts';
import { luceneRegex } from '../regex/lucene-regex.ts';
import { ipTerm } from '../mapping/ip-address.ts';

/** IncludeExclude.HASH_PARTITIONING_SEED. */
const HASH_PARTITIONING_SEED = 31;

export function regexNotSupported(aggName: string): EsError {
  return new EsError(
    'aggregation_execution_exception',
    `Aggregation [${aggName}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses`,
    500,
  );
}

const utf8 = new TextEncoder();

/** Accepts a keyword value? */
export function keywordAcceptor(include: IncludeExclude | null, exclude: IncludeExclude | null): ((term: string) => boolean) | null {
  if (include === null && exclude === null) return null;
  const inc = include === null ? null : keywordMatcher(include);
  const exc = exclude === null ? null : keywordMatcher(exclude);
  return (term) => (inc === null || inc(term)) && (exc === null || !exc(term));
}

function keywordMatcher(ie: IncludeExclude): (term: string) => boolean {
  switch (ie.kind) {
    case 'regex': {
      const re = luceneRegex(ie.pattern);
      return (t) => re.matches(t);
    }
    case 'values': {
      const set = new Set(ie.values.map(String));
      return (t) => set.has(t);
    }
    case 'partition':
      return (t) => {
        const b = utf8.encode(t);
        const h = murmur3x86_32(b, 0, b.length, HASH_PARTITIONING_SEED);
        return (((h % ie.numPartitions) + ie.numPartitions) % ie.numPartitions) === ie.partition;
      };
  }
}

/** Accepts a numeric value? `parse` turns request values into the field's numbers (dates, booleans). */
export function numericAcceptor(
  include: IncludeExclude | null,
  exclude: IncludeExclude | null,
  isDouble: boolean,
  parse: (v: string | number | boolean) => number,
  aggName: string,
): ((value: number) => boolean) | null {
  if (include === null && exclude === null) return null;
  const inc = include === null ? null : numericMatcher(include, isDouble, parse, aggName);
  const exc = exclude === null ? null : numericMatcher(exclude, isDouble, parse, aggName);
  return (v) => (inc === null || inc(v)) && (exc === null || !exc(v));
}

function floorModLong(hi: number, lo: number, n: number): number {
  const v = BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
  const b = BigInt(n);
  return Number(((v % b) + b) % b);
}

function numericMatcher(
  ie: IncludeExclude,
  isDouble: boolean,
  parse: (v: string | number | boolean) => number,
  aggName: string,
): (value: number) => boolean {
  switch (ie.kind) {
    case 'regex':
      throw regexNotSupported(aggName);
    case 'values': {
      const set = new Set(ie.values.map((v) => parse(v)));
      return (v) => set.has(v);
    }
    case 'partition':
      return (v) => {
        const lo = isDouble ? doubleToLongBits(v) : longBits(v);
        const mixedLo = mix64(hashHigh(), lo);
        return floorModLong(hashHigh(), mixedLo, ie.numPartitions) === ie.partition;
      };
  }
}

/** include/exclude values of an ip field as its terms (IncludeExclude parses them with DocValueFormat.IP). */
export function ipIncludeExclude(ie: IncludeExclude | null): IncludeExclude | null {
  return ie?.kind === 'values' ? { kind: 'values', values: ie.values.map((v) => ipTerm(String(v))) } : ie;
}
