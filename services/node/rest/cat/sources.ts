/**
 * What the `_cat` pages read of the cluster, in the order they print it:
 * indices by name, nodes by name, each node's host and roles.
 */
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { resolveIndices, type ResolveOptions } from '../../cluster/index-resolver.ts';

/** The host part of `host:port`. */
export function hostOf(address: string): string {
  const i = address.lastIndexOf(':');
  return i < 0 ? address : address.slice(0, i);
}

/** The port part of `host:port`, or null. */
export function portOf(address: string): number | null {
  const i = address.lastIndexOf(':');
  const n = i < 0 ? NaN : Number(address.slice(i + 1));
  return Number.isInteger(n) ? n : null;
}

/** `node.role` as `_cat/nodes` prints it: m(aster eligible), d(ata), i(ngest), `-` for none. */
export function roleLetters(n: NodeInfo): string {
  return n.data ? 'mdi' : 'mi';
}

/** The indices an expression names (all when absent), by name; wildcards reach open and closed ones (strictExpand). */
export function catIndices(node: NodeContext, expr: string | undefined, opts: ResolveOptions = { expandWildcards: { open: true, closed: true } }): IndexMetadata[] {
  const metas = expr === undefined ? node.cluster.indices() : resolveIndices(node.cluster, expr, opts).map((r) => r.meta);
  return [...new Map(metas.map((m) => [m.name, m])).values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The cluster's nodes by name. */
export function catNodes(node: NodeContext): NodeInfo[] {
  return [...node.directory.nodes()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Seconds since the epoch and `HH:MM:SS` (UTC) of one moment, as the `epoch` and `timestamp` columns print it. */
export function epochAndTime(now: number): { epoch: number; timestamp: string } {
  return { epoch: Math.floor(now / 1000), timestamp: new Date(now).toISOString().slice(11, 19) };
}

/** The parts of a node's `_nodes/stats` entry the `_cat` pages read. */
export interface NodeFigures {
  readonly os?: {
    readonly cpu: { readonly percent: number; readonly load_average: Record<string, number> };
    readonly mem: { readonly total_in_bytes: number; readonly used_in_bytes: number; readonly used_percent: number };
  };
  readonly process?: { readonly open_file_descriptors: number; readonly max_file_descriptors: number };
  readonly jvm?: { readonly uptime_in_millis: number; readonly mem: { readonly heap_used_in_bytes: number; readonly heap_used_percent: number; readonly heap_max_in_bytes: number } };
  readonly fs?: { readonly total: { readonly total_in_bytes: number; readonly free_in_bytes: number; readonly available_in_bytes: number } };
}

/** os, process, jvm and fs figures of each node (by id); a node that did not answer is absent. */
export async function nodeFigures(node: NodeContext, nodes: readonly NodeInfo[]): Promise<ReadonlyMap<string, NodeFigures>> {
  const req = { metrics: ['os', 'process', 'jvm', 'fs'] as const, indexSections: [], level: 'node' as const, human: false, types: null, segmentFileSizes: false };
  const gathered = await node.nodeAdmin.onNodes(nodes, 'node_stats', req, () => node.localNodeStats({ ...req, metrics: [...req.metrics] }));
  return gathered.byNode as ReadonlyMap<string, NodeFigures>;
}
