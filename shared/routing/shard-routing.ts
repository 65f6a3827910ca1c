/**
 * Elasticsearch 6.8's document routing (`OperationRouting.generateShardId` /
 * `calculateScaledShardId`), so a document lands on the same shard number as
 * it would in Elasticsearch (DESIGN.md section 2, Writes step 1):
 *
 *   shard = floorMod(murmur3(routing) + partitionOffset, routingNumShards) / routingFactor
 *   routingFactor = routingNumShards / numberOfShards
 *
 * `routing` is the request's `routing` or else the document `_id`;
 * `partitionOffset` is `floorMod(murmur3(_id), routing_partition_size)` for
 * partitioned indices, else 0.
 */
import { illegalArgument } from '../errors/es-errors.ts';
import { esMurmur3Hash } from './murmur3.ts';

/**
 * `index.number_of_routing_shards` when not set: for indices created on 6.x it
 * is `index.number_of_shards` (`MetaDataCreateIndexService.calculateNumRoutingShards`
 * only picks `numShards * 2^n` for indices created on or after 7.0).
 */
export function defaultRoutingNumShards(numberOfShards: number): number {
  return numberOfShards;
}

/** `index.routing_partition_size` default (`IndexMetaData.INDEX_ROUTING_PARTITION_SIZE_SETTING`). */
export const DEFAULT_ROUTING_PARTITION_SIZE = 1;

export interface RoutingSettings {
  /** `index.number_of_shards`. */
  readonly numberOfShards: number;
  /** `index.number_of_routing_shards`; defaults to `numberOfShards` (6.x). */
  readonly routingNumShards?: number;
  /** `index.routing_partition_size`; defaults to 1 (not partitioned). */
  readonly routingPartitionSize?: number;
}

/**
 * Checks `number_of_routing_shards` against `number_of_shards` as Elasticsearch
 * 6.8 does when an index is created, with its messages, and returns the routing
 * factor. (The doubled "must be a" is Elasticsearch 6.8's own text.)
 */
export function routingFactor(numberOfShards: number, routingNumShards: number): number {
  if (!Number.isInteger(numberOfShards) || numberOfShards < 1) {
    throw illegalArgument(`Failed to parse value [${numberOfShards}] for setting [index.number_of_shards] must be >= 1`);
  }
  if (!Number.isInteger(routingNumShards) || routingNumShards < 1) {
    throw illegalArgument(
      `Failed to parse value [${routingNumShards}] for setting [index.number_of_routing_shards] must be >= 1`,
    );
  }
  if (routingNumShards < numberOfShards) {
    throw illegalArgument(
      `index.number_of_routing_shards [${routingNumShards}] must be >= index.number_of_shards [${numberOfShards}]`,
    );
  }
  const factor = Math.floor(routingNumShards / numberOfShards);
  if (factor * numberOfShards !== routingNumShards) {
    throw illegalArgument(
      `the number of source shards [${numberOfShards}] must be a must be a factor of [${routingNumShards}]`,
    );
  }
  return factor;
}

function floorMod(x: number, m: number): number {
  const r = x % m;
  return r < 0 ? r + m : r | 0; // `| 0` turns -0 into 0
}

function scaledShardId(routing: string, partitionOffset: number, numberOfShards: number, routingNumShards: number): number {
  const factor = routingFactor(numberOfShards, routingNumShards);
  // Java int addition: wraps at 2^31.
  const hash = (esMurmur3Hash(routing) + partitionOffset) | 0;
  return Math.floor(floorMod(hash, routingNumShards) / factor);
}

/** The shard a routing value (or `_id` when no routing is given) goes to, in a non-partitioned index. */
export function shardForRouting(routing: string, numberOfShards: number, routingNumShards = numberOfShards): number {
  return scaledShardId(routing, 0, numberOfShards, routingNumShards);
}

/**
 * The shard of one document, `OperationRouting.generateShardId(indexMetaData, id, routing)`:
 * handles `routing_partition_size` (the `_id` picks one of the partition's shards).
 */
export function shardForDocument(id: string, routing: string | null | undefined, settings: RoutingSettings): number {
  const { numberOfShards } = settings;
  const routingNumShards = settings.routingNumShards ?? defaultRoutingNumShards(numberOfShards);
  const partitionSize = settings.routingPartitionSize ?? DEFAULT_ROUTING_PARTITION_SIZE;
  const partitioned = partitionSize > 1;
  if (routing == null && partitioned) {
    throw illegalArgument('A routing value is required for gets from a partitioned index');
  }
  const partitionOffset = partitioned ? floorMod(esMurmur3Hash(id), partitionSize) : 0;
  return scaledShardId(routing ?? id, partitionOffset, numberOfShards, routingNumShards);
}

/**
 * The shards a search with `?routing=` must visit (`OperationRouting.computeTargetedShards`):
 * one per routing value, or `routing_partition_size` of them in a partitioned index.
 * Sorted, without duplicates.
 */
export function shardsForSearchRouting(routings: readonly string[], settings: RoutingSettings): number[] {
  const { numberOfShards } = settings;
  const routingNumShards = settings.routingNumShards ?? defaultRoutingNumShards(numberOfShards);
  const partitionSize = settings.routingPartitionSize ?? DEFAULT_ROUTING_PARTITION_SIZE;
  const shards = new Set<number>();
  for (const routing of routings) {
    for (let offset = 0; offset < partitionSize; offset++) {
      shards.add(scaledShardId(routing, offset, numberOfShards, routingNumShards));
    }
  }
  return [...shards].sort((a, b) => a - b);
}
