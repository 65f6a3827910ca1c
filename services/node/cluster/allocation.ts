/**
 * Shard allocation (DESIGN.md, "Membership, master, allocation, health"): a
 * pure function from the data nodes, the indices and the previous table to
 * the new table. The elected master runs it in its group assignor; because
 * it is deterministic (same input, in any order, gives the same output), a
 * new master computes the same table the old one would have.
 *
 * Rules, in the order they are applied:
 *  1. Sticky: a copy stays on its node while that node is present.
 *  2. A shard has `number_of_replicas + 1` copies on distinct nodes, or one
 *     per node when there are fewer nodes (the rest are unassigned). Fewer
 *     replicas drop the newest-assigned replicas first, never the primary.
 *  3. A shard whose primary's node left promotes a surviving copy.
 *  4. Missing copies go to the least-loaded node that holds no copy of the
 *     shard: new primaries first, then replicas one round at a time, as far
 *     as `cluster.routing.allocation.enable` (or the index's
 *     `index.routing.allocation.enable`) lets a copy that is not yet
 *     assigned be placed (`enableDecision`). Copies already placed stay.
 *  5. Balanced (among copies whose allocation is `all`: a move places a copy
 *     anew): while two nodes' copy counts differ by 2 or more, a copy
 *     moves from the fullest to the emptiest (this is how a node that joins
 *     gets copies). A legal move always exists then: the fuller node holds
 *     more distinct shards, so one of them is not on the emptier node. So
 *     stickiness gives way to balance, and only to it: a copy on a present
 *     node moves only when rules 1-4 alone leave counts 2 or more apart
 *     (after a leave or fewer replicas that is rare; after a join, usual).
 *  6. Primaries spread: the primary flag moves to another copy of the shard
 *     while that lowers the spread of primaries per node by 2 or more (a
 *     relabelling only: every copy builds itself from the log).
 *
 * A shard's copies are listed oldest-assigned first; a moved copy counts as
 * newly assigned.
 */

export interface DataNode {
  readonly id: string;
  readonly name: string;
  /** `node.attr.*`; not used for placement yet (no awareness rules). */
  readonly attributes?: Readonly<Record<string, string>>;
}

export interface IndexInfo {
  readonly uuid: string;
  /** For logs and `_cat/shards`; placement does not look at it. */
  readonly name?: string;
  readonly numberOfShards: number;
  readonly numberOfReplicas: number;
  /** `index.routing.allocation.enable` when the index sets it: it overrides the cluster's setting. */
  readonly allocationEnable?: AllocationEnable;
}

/** The values of `cluster.routing.allocation.enable` (Elasticsearch's EnableAllocationDecider.Allocation). */
export const ALLOCATION_ENABLE_VALUES = ['all', 'primaries', 'new_primaries', 'none'] as const;
export type AllocationEnable = (typeof ALLOCATION_ENABLE_VALUES)[number];

/**
 * Whether a copy that is not assigned may be placed, as Elasticsearch's
 * `enable` decider decides: null when it may, else the decider's
 * explanation (what `_cluster/allocation/explain` prints). A new primary is
 * one of a shard whose primary was never allocated (a new index).
 */
export function enableDecision(enable: AllocationEnable, primary: boolean, newPrimary: boolean, fromIndexSetting = false): string | null {
  const setting = `${fromIndexSetting ? 'index setting [index' : 'cluster setting [cluster'}.routing.allocation.enable=${enable}]`;
  switch (enable) {
    case 'all':
      return null;
    case 'none':
      return `no allocations are allowed due to ${setting}`;
    case 'new_primaries':
      return primary && newPrimary ? null : `non-new primary allocations are forbidden due to ${setting}`;
    case 'primaries':
      return primary ? null : `replica allocations are forbidden due to ${setting}`;
  }
}

export interface ShardCopy {
  readonly nodeId: string;
  readonly primary: boolean;
}

export interface AllocationTable {
  /** By index uuid: for each shard number, its copies, oldest-assigned first. */
  readonly indices: Readonly<Record<string, readonly (readonly ShardCopy[])[]>>;
  /**
   * By index uuid, the shards whose primary has never been allocated (an
   * index created while allocation was off); absent when there are none.
   * `new_primaries` places only these: a shard that lost every copy is not new.
   */
  readonly fresh?: Readonly<Record<string, readonly number[]>>;
}

export const EMPTY_TABLE: AllocationTable = Object.freeze({ indices: Object.freeze({}) });

/** A copy a node hosts, as the node's indexers need it. */
export interface AllocationOptions {
  /**
   * Rule 5, as Elasticsearch's `cluster.routing.rebalance.enable` (`all`
   * when true, `none` when false). Without it copies never move while their
   * node is present, and a node that joins only gets copies nobody holds.
   * Default true.
   */
  readonly rebalance?: boolean;
  /** `cluster.routing.allocation.enable`; default `all`. */
  readonly enable?: AllocationEnable;
}

/** Whether a shard's primary was never allocated, as the previous table records it. */
export function isFreshShard(previous: AllocationTable | null, uuid: string, shard: number): boolean {
  if (previous === null || previous.indices[uuid] === undefined) return true;
  return previous.fresh?.[uuid]?.includes(shard) ?? false;
}

export interface HostedCopy {
  readonly uuid: string;
  readonly shard: number;
  readonly primary: boolean;
}

interface Copy {
  nodeId: string;
  primary: boolean;
}

interface ShardWork {
  readonly uuid: string;
  readonly shard: number;
  readonly wanted: number;
  /** The allocation enable in force for the index, and whether the index set it. */
  readonly enable: AllocationEnable;
  readonly fromIndexSetting: boolean;
  /** No primary of this shard was ever allocated. */
  readonly fresh: boolean;
  copies: Copy[];
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Counters per node, and per (index, node) to spread one index's copies. */
class Loads {
  readonly copies = new Map<string, number>();
  readonly primaries = new Map<string, number>();
  private readonly perIndex = new Map<string, Map<string, number>>();

  constructor(nodeIds: readonly string[]) {
    for (const id of nodeIds) {
      this.copies.set(id, 0);
      this.primaries.set(id, 0);
    }
  }

  add(uuid: string, copy: Copy, delta: number): void {
    this.copies.set(copy.nodeId, (this.copies.get(copy.nodeId) ?? 0) + delta);
    if (copy.primary) this.primaries.set(copy.nodeId, (this.primaries.get(copy.nodeId) ?? 0) + delta);
    let m = this.perIndex.get(uuid);
    if (m === undefined) this.perIndex.set(uuid, (m = new Map()));
    m.set(copy.nodeId, (m.get(copy.nodeId) ?? 0) + delta);
  }

  setPrimary(copy: Copy, primary: boolean): void {
    if (copy.primary === primary) return;
    copy.primary = primary;
    this.primaries.set(copy.nodeId, (this.primaries.get(copy.nodeId) ?? 0) + (primary ? 1 : -1));
  }

  ofIndex(uuid: string, nodeId: string): number {
    return this.perIndex.get(uuid)?.get(nodeId) ?? 0;
  }

  load(nodeId: string): number {
    return this.copies.get(nodeId) ?? 0;
  }

  primaryLoad(nodeId: string): number {
    return this.primaries.get(nodeId) ?? 0;
  }
}

function checkIndex(index: IndexInfo): void {
  if (!Number.isInteger(index.numberOfShards) || index.numberOfShards < 1) {
    throw new Error(`allocation: index [${index.name ?? index.uuid}] has number_of_shards ${index.numberOfShards}`);
  }
  if (!Number.isInteger(index.numberOfReplicas) || index.numberOfReplicas < 0) {
    throw new Error(`allocation: index [${index.name ?? index.uuid}] has number_of_replicas ${index.numberOfReplicas}`);
  }
}

/** Computes the allocation table; see the module comment for the rules. */
export function allocate(
  nodes: readonly DataNode[],
  indices: readonly IndexInfo[],
  previous: AllocationTable | null,
  options: AllocationOptions = {},
): AllocationTable {
  const nodeIds = [...new Set(nodes.map((n) => n.id))].sort(byString);
  const present = new Set(nodeIds);
  const loads = new Loads(nodeIds);
  const sortedIndices = [...new Map(indices.map((i) => [i.uuid, i])).values()].sort((a, b) => byString(a.uuid, b.uuid));

  // 1-2: keep the copies on present nodes, trimmed to what is wanted.
  const work: ShardWork[] = [];
  for (const index of sortedIndices) {
    checkIndex(index);
    const before = previous?.indices[index.uuid];
    const wanted = Math.min(index.numberOfReplicas + 1, nodeIds.length);
    const enable = index.allocationEnable ?? options.enable ?? 'all';
    const fromIndexSetting = index.allocationEnable !== undefined;
    for (let shard = 0; shard < index.numberOfShards; shard++) {
      const seen = new Set<string>();
      const copies: Copy[] = [];
      for (const c of before?.[shard] ?? []) {
        if (!present.has(c.nodeId) || seen.has(c.nodeId)) continue;
        seen.add(c.nodeId);
        copies.push({ nodeId: c.nodeId, primary: c.primary });
      }
      // One primary at most: a malformed previous table keeps its oldest.
      let hasPrimary = false;
      for (const c of copies) {
        if (c.primary && hasPrimary) c.primary = false;
        hasPrimary ||= c.primary;
      }
      for (let i = copies.length - 1; i >= 0 && copies.length > wanted; i--) {
        if (!copies[i]!.primary || wanted === 0) copies.splice(i, 1);
      }
      for (const c of copies) loads.add(index.uuid, c, 1);
      const fresh = copies.length === 0 && isFreshShard(previous, index.uuid, shard);
      work.push({ uuid: index.uuid, shard, wanted, enable, fromIndexSetting, fresh, copies });
    }
  }

  // 3: promote a surviving copy where the primary's node left.
  for (const w of work) {
    if (w.copies.length === 0 || w.copies.some((c) => c.primary)) continue;
    let best = w.copies[0]!;
    for (const c of w.copies) if (loads.primaryLoad(c.nodeId) < loads.primaryLoad(best.nodeId)) best = c;
    loads.setPrimary(best, true);
  }

  // 4: place missing copies, primaries first, then one replica round at a time.
  const place = (w: ShardWork, primary: boolean): void => {
    let best: string | null = null;
    for (const id of nodeIds) {
      if (w.copies.some((c) => c.nodeId === id)) continue;
      if (best === null || better(id, best)) best = id;
    }
    if (best === null) return;
    const copy = { nodeId: best, primary };
    w.copies.push(copy);
    loads.add(w.uuid, copy, 1);

    function better(a: string, b: string): boolean {
      const d = loads.load(a) - loads.load(b);
      if (d !== 0) return d < 0;
      const di = loads.ofIndex(w.uuid, a) - loads.ofIndex(w.uuid, b);
      if (di !== 0) return di < 0;
      if (primary) {
        const dp = loads.primaryLoad(a) - loads.primaryLoad(b);
        if (dp !== 0) return dp < 0;
      }
      return a < b;
    }
  };
  const mayPlace = (w: ShardWork, primary: boolean): boolean => enableDecision(w.enable, primary, w.fresh, w.fromIndexSetting) === null;
  for (const w of work) if (w.copies.length === 0 && w.wanted > 0 && mayPlace(w, true)) place(w, true);
  const maxWanted = work.reduce((m, w) => Math.max(m, w.wanted), 0);
  for (let round = 1; round < maxWanted; round++) {
    // A replica needs a primary to copy from: none is placed while its shard has no copy.
    for (const w of work) if (w.copies.length > 0 && w.copies.length < Math.min(w.wanted, round + 1) && mayPlace(w, false)) place(w, false);
  }

  // 5: move copies from the fullest node to the emptiest until within 1.
  for (;;) {
    if (options.rebalance === false) break;
    let max = nodeIds[0];
    let min = nodeIds[0];
    for (const id of nodeIds) {
      if (loads.load(id) > loads.load(max!)) max = id;
      if (loads.load(id) < loads.load(min!)) min = id;
    }
    if (max === undefined || min === undefined || loads.load(max) - loads.load(min) < 2) break;
    let pick: { w: ShardWork; copy: Copy; score: number } | null = null;
    for (const w of work) {
      if (w.enable !== 'all') continue;
      const copy = w.copies.find((c) => c.nodeId === max);
      if (copy === undefined || w.copies.some((c) => c.nodeId === min)) continue;
      // A replica rather than a primary (when the shard has one), from the index most piled on `max`.
      const spread = loads.ofIndex(w.uuid, max) - loads.ofIndex(w.uuid, min);
      const score = (copy.primary && w.copies.length > 1 ? 0 : 1_000_000) + spread;
      if (pick === null || score > pick.score) pick = { w, copy, score };
    }
    if (pick === null) break; // only when allocation is restricted (see the module comment); never loop forever
    const { w, copy } = pick;
    if (copy.primary && w.copies.length > 1) {
      loads.setPrimary(copy, false);
      loads.setPrimary(w.copies.find((c) => c !== copy)!, true);
    }
    loads.add(w.uuid, copy, -1);
    w.copies.splice(w.copies.indexOf(copy), 1);
    const moved = { nodeId: min, primary: copy.primary };
    w.copies.push(moved);
    loads.add(w.uuid, moved, 1);
  }

  // 6: spread primaries by relabelling, while a move lowers the spread by 2 or more.
  for (let changed = true; changed; ) {
    changed = false;
    for (const w of work) {
      const primary = w.copies.find((c) => c.primary);
      if (primary === undefined) continue;
      let target: Copy | null = null;
      for (const c of w.copies) {
        if (loads.primaryLoad(c.nodeId) <= loads.primaryLoad(primary.nodeId) - 2) {
          if (target === null || loads.primaryLoad(c.nodeId) < loads.primaryLoad(target.nodeId)) target = c;
        }
      }
      if (target === null) continue;
      loads.setPrimary(primary, false);
      loads.setPrimary(target, true);
      changed = true;
    }
  }

  const out: Record<string, ShardCopy[][]> = {};
  const fresh: Record<string, number[]> = {};
  for (const w of work) {
    (out[w.uuid] ??= [])[w.shard] = w.copies.map((c) => Object.freeze({ nodeId: c.nodeId, primary: c.primary }));
    if (w.fresh && w.copies.length === 0) (fresh[w.uuid] ??= []).push(w.shard);
  }
  return Object.keys(fresh).length === 0 ? { indices: out } : { indices: out, fresh };
}

/** The copies a node hosts in the table, by index uuid then shard. */
export function copiesOnNode(table: AllocationTable, nodeId: string): HostedCopy[] {
  const hosted: HostedCopy[] = [];
  for (const uuid of Object.keys(table.indices).sort(byString)) {
    table.indices[uuid]!.forEach((copies, shard) => {
      const c = copies.find((x) => x.nodeId === nodeId);
      if (c !== undefined) hosted.push({ uuid, shard, primary: c.primary });
    });
  }
  return hosted;
}

/** Copies the indices want that the table could not place (fewer data nodes than copies). */
export function unassignedCopies(table: AllocationTable, indices: readonly IndexInfo[]): number {
  let missing = 0;
  for (const index of indices) {
    const shards = table.indices[index.uuid];
    for (let s = 0; s < index.numberOfShards; s++) {
      missing += Math.max(0, index.numberOfReplicas + 1 - (shards?.[s]?.length ?? 0));
    }
  }
  return missing;
}
