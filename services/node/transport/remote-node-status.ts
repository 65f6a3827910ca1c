/** Asks a node which shard copies it holds, their state, applied offset and doc count. */
import { NODE_STATUS, type NodeStatusWireResponse } from './rpc-messages.ts';
import type { NodeAddress, TransportClient } from './transport-client.ts';

export function fetchNodeStatus(transport: TransportClient, node: NodeAddress, timeoutMs: number | null = null): Promise<NodeStatusWireResponse> {
  return transport.call(node, NODE_STATUS, {}, { timeoutMs });
}
