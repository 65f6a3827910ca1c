/** The `ip_range` aggregation's parser (IpRangeAggregationBuilder.PARSER): `ranges` of `from`/`to`/`key` or `mask`, `keyed`. */
import { illegalArgument, parsingException } from '../../errors/es-errors.ts';
import { cidrRange, ipHex, nextIpHex } from '../../engine/mapping/ip-address.ts';
import type { IpRangeAggSpec } from '../../engine/aggs/spec.ts';
import { AggParams, isObject, tokenName, type Json } from './agg-params.ts';
import type { Common } from './parse-bucket-aggs.ts';

export function parseIpRange(c: Common, body: Json): IpRangeAggSpec {
  const p = new AggParams('ip_range', c.name, body);
  if (p.has('script')) {
    p.raw('script');
    throw illegalArgument(`scripts are not supported in aggregations [${c.name}]`);
  }
  const field = p.string('field');
  const keyed = p.boolean('keyed') ?? false;
  const rawRanges = p.raw('ranges');
  p.done();
  if (field === null) throw parsingException('Required one of fields [field, script], but none were specified. ');
  if (rawRanges === undefined || rawRanges === null || (Array.isArray(rawRanges) && rawRanges.length === 0)) {
    throw illegalArgument(`No [ranges] specified for the [${c.name}] aggregation`);
  }
  if (!Array.isArray(rawRanges)) throw parsingException(`[ranges] must be an array in [${c.name}]`);
  const ranges = rawRanges.map((r) => {
    if (!isObject(r)) throw parsingException(`Unexpected token ${tokenName(r)} in [ranges]`);
    let from: string | null = null;
    let to: string | null = null;
    let mask: string | null = null;
    let key: string | null = null;
    for (const k of Object.keys(r)) {
      const v = r[k];
      if (v === null) continue;
      if (typeof v !== 'string') throw parsingException(`[${k}] in [ranges] of [${c.name}] must be a string, got ${tokenName(v)}`);
      if (k === 'from') from = ipHex(v);
      else if (k === 'to') to = ipHex(v);
      else if (k === 'mask') mask = v;
      else if (k === 'key') key = v;
      else throw parsingException(`Unknown key [${k}] in [ranges] of [${c.name}]`);
    }
    if (mask !== null) {
      if (from !== null || to !== null) throw illegalArgument(`[mask] cannot be combined with [from] or [to] in [${c.name}]`);
      const [lo, hi] = cidrRange(mask);
      return { key: key ?? mask, from: lo, to: nextIpHex(hi) };
    }
    return { key, from, to };
  });
  return { type: 'ip_range', ...c, field, ranges, keyed };
}
