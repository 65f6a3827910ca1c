/**
 * Bucket orders (InternalOrder in 6.8): `_count`, `_key` and sub-aggregation
 * paths, compound, with a `_key` ascending tie-breaker appended whenever the
 * order does not already end on the key. Sub-aggregation values that are NaN
 * sort last in either direction.
 */
import type { BucketOrder } from './spec.ts';

export function withKeyTieBreak(order: readonly BucketOrder[]): readonly BucketOrder[] {
  if (order.some((o) => o.kind === 'key')) return order;
  return [...order, { kind: 'key', asc: true }];
}

/** The primary order is by key (then the error bound of terms is 0). */
export function isKeyOrder(order: readonly BucketOrder[]): boolean {
  return order.length > 0 && order[0]!.kind === 'key';
}

export function isCountDesc(order: readonly BucketOrder[]): boolean {
  return order.length > 0 && order[0]!.kind === 'count' && !order[0]!.asc;
}

export function isKeyAsc(order: readonly BucketOrder[]): boolean {
  return order.length > 0 && order[0]!.kind === 'key' && order[0]!.asc;
}

export function isKeyDesc(order: readonly BucketOrder[]): boolean {
  return order.length > 0 && order[0]!.kind === 'key' && !order[0]!.asc;
}

/** Compares two sub-aggregation values: NaN last, else by direction. */
export function compareMetric(a: number, b: number, asc: boolean): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  if (a === b) return 0;
  return (a < b ? -1 : 1) * (asc ? 1 : -1);
}

export function compareKeys(a: string | number, b: string | number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
