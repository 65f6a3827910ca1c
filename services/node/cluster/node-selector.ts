/**
 * Elasticsearch's node specifications (DiscoveryNodes.resolveNodes), as
 * `/_nodes/{node_id}`, `/_cat/allocation/{node_id}` and friends take them:
 * a comma list of `_all`, `_local`, `_master`, node ids, names or
 * addresses (with `*` wildcards), and role filters (`master:true`,
 * `data:false`, `ingest:true`, `coordinating_only:true`).
 */
import { simpleMatch } from '../../../shared/engine/mapping/simple-match.ts';
import type { NodeInfo } from './membership-protocol.ts';

function hostOf(address: string): string {
  const i = address.lastIndexOf(':');
  return i < 0 ? address : address.slice(0, i);
}

/** The nodes a specification names, in `nodes`' order. Unknown names select nothing, as in Elasticsearch. */
export function selectNodes(spec: string | undefined, nodes: readonly NodeInfo[], self: NodeInfo, master: NodeInfo | null): NodeInfo[] {
  if (spec === undefined || spec === '' || spec === '_all') return [...nodes];
  const chosen = new Set<string>();
  for (const raw of spec.split(',').map((s) => s.trim()).filter((s) => s.length > 0)) {
    if (raw === '_all' || raw === '*') {
      for (const n of nodes) chosen.add(n.id);
      continue;
    }
    if (raw === '_local') {
      chosen.add(self.id);
      continue;
    }
    if (raw === '_master') {
      if (master !== null) chosen.add(master.id);
      continue;
    }
    const colon = raw.indexOf(':');
    if (colon > 0 && ['master', 'data', 'ingest', 'coordinating_only'].includes(raw.slice(0, colon))) {
      const role = raw.slice(0, colon);
      const want = raw.slice(colon + 1) === 'true';
      for (const n of nodes) {
        // Every node here may be master and runs ingest; data nodes hold copies.
        const has = role === 'data' ? n.data : role === 'coordinating_only' ? false : true;
        if (has === want) chosen.add(n.id);
        else chosen.delete(n.id);
      }
      continue;
    }
    for (const n of nodes) {
      const host = hostOf(n.transportAddress);
      if ([n.id, n.name, host, n.transportAddress].some((v) => simpleMatch(raw, v))) chosen.add(n.id);
    }
  }
  return nodes.filter((n) => chosen.has(n.id));
}
