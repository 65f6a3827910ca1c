/**
 * The allocation settings in force for an index: the index's own
 * `index.routing.allocation.enable` when it sets one, else the cluster's
 * `cluster.routing.allocation.enable` (Elasticsearch's EnableAllocationDecider
 * reads them in that order). The master's allocation, a single node's
 * copies and `_cluster/allocation/explain` all read them here.
 */
import { ALLOCATION_ENABLE_VALUES, type AllocationEnable, type IndexInfo } from './allocation.ts';
import { ALLOCATION_ENABLE, type EffectiveSettings } from './cluster-settings.ts';
import type { IndexMetadata } from './index-metadata.ts';

/** The index's own `index.routing.allocation.enable`, when it sets a valid one (checked when it was set). */
export function indexAllocationEnable(meta: IndexMetadata): AllocationEnable | undefined {
  const v = meta.settings.flat['index.routing.allocation.enable'];
  if (typeof v !== 'string') return undefined;
  const lower = v.toLowerCase();
  return ALLOCATION_ENABLE_VALUES.find((a) => a === lower);
}

/** The enable value that decides for an index's copies, and whether it is the index's own setting. */
export function allocationEnableFor(meta: IndexMetadata, settings: EffectiveSettings): { enable: AllocationEnable; fromIndexSetting: boolean } {
  const own = indexAllocationEnable(meta);
  return own !== undefined ? { enable: own, fromIndexSetting: true } : { enable: settings.get(ALLOCATION_ENABLE), fromIndexSetting: false };
}

/** An index as the allocation sees it. */
export function allocationIndexInfo(meta: IndexMetadata): IndexInfo {
  const allocationEnable = indexAllocationEnable(meta);
  return {
    uuid: meta.uuid,
    name: meta.name,
    numberOfShards: meta.settings.numberOfShards,
    numberOfReplicas: meta.settings.numberOfReplicas,
    ...(allocationEnable !== undefined ? { allocationEnable } : {}),
  };
}

/**
 * What allocation depends on: the indices with their shards, replicas and
 * own enable setting, and the cluster's enable setting. The master
 * rebalances when it changes, so `all` again places what was held back.
 */
export function allocationSignature(metas: readonly IndexMetadata[], settings: EffectiveSettings): string {
  const indices = metas
    .map((m) => `${m.uuid}/${m.settings.numberOfShards}/${m.settings.numberOfReplicas}/${indexAllocationEnable(m) ?? ''}`)
    .sort()
    .join(',');
  return `${settings.get(ALLOCATION_ENABLE)};${indices}`;
}
