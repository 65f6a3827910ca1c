/**
 * Elasticsearch 7's MultiBucketConsumer (`search.max_buckets`): every bucket
 * an aggregation is about to return is counted, and the request fails with
 * too_many_buckets_exception as soon as the count passes the limit. A shard
 * counts the buckets it builds before it builds their sub-aggregations, and
 * the reduce counts the empty buckets a histogram fills in, so a request
 * over the limit stops early instead of building, sending and merging
 * millions of buckets first.
 */
import { tooManyBuckets } from '../../errors/es-errors.ts';

export class BucketBudget {
  private count = 0;

  constructor(readonly limit: number) {}

  consume(n: number): void {
    this.count += n;
    if (this.count > this.limit) throw tooManyBuckets(this.limit, this.count);
  }
}
