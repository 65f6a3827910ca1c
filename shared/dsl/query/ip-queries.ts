/**
 * Queries on `ip` fields (IpFieldMapper.IpFieldType): a term is one address
 * or a CIDR block (`192.168.0.0/16`), terms any number of them, a range goes
 * from one address to another in address order (IPv4 below IPv6, as Lucene
 * orders InetAddressPoint values). Values that are not addresses are
 * Elasticsearch's `'x' is not an IP string literal.`
 */
import { MATCH_NONE, type Query } from '../../engine/search/query.ts';
import { cidrRange, ipHex, ipTerm, MAX_IP_HEX, MIN_IP_HEX, nextIpHex, prevIpHex } from '../../engine/mapping/ip-address.ts';
import type { DslValue } from './query-builders.ts';

function text(v: DslValue): string {
  return typeof v === 'bigint' ? v.toString() : String(v);
}

/** One address is InetAddressPoint.newExactQuery: a constant-score range of one address (`ip:[a TO a]`). */
export function ipTermQuery(field: string, value: DslValue, boost: number): Query {
  const t = text(value);
  if (t.includes('/')) {
    const [lower, upper] = cidrRange(t);
    return { kind: 'ip_range', field, lower, upper, boost };
  }
  const term = ipTerm(t);
  return { kind: 'ip_range', field, lower: term, upper: term, boost };
}

export function ipTermsQuery(field: string, values: readonly DslValue[], boost: number): Query {
  const texts = values.map(text);
  if (!texts.some((t) => t.includes('/'))) return { kind: 'term_set', field, terms: texts.map((t) => ipTerm(t)), boost };
  const should = texts.map((t) => ipTermQuery(field, t, 1));
  return { kind: 'constant_score', filter: { kind: 'bool', must: [], filter: [], should, mustNot: [], minimumShouldMatch: 1, boost: 1 }, boost };
}

export function ipRangeQuery(
  field: string,
  r: { readonly from: DslValue | null; readonly to: DslValue | null; readonly includeLower: boolean; readonly includeUpper: boolean },
  boost: number,
): Query {
  let lower: string | null = r.from === null ? MIN_IP_HEX : ipHex(text(r.from));
  let upper: string | null = r.to === null ? MAX_IP_HEX : ipHex(text(r.to));
  if (r.from !== null && !r.includeLower) lower = nextIpHex(lower);
  if (r.to !== null && !r.includeUpper) upper = prevIpHex(upper);
  if (lower === null || upper === null || lower > upper) return MATCH_NONE;
  return { kind: 'ip_range', field, lower, upper, boost };
}
