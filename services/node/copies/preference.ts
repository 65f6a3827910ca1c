/**
 * The `preference` of a search or get, as Elasticsearch 6.8 reads it
 * (Preference.parse and OperationRouting): an optional `_shards:2,3|` prefix
 * naming the shards to search, then what picks each shard's copies. A value
 * that does not start with `_` is a custom string that always picks the same
 * copies.
 */
import { illegalArgument } from '../../../shared/errors/es-errors.ts';
import { globToRegExp } from '../cluster/index-resolver.ts';
import type { NodeInfo } from '../cluster/membership-protocol.ts';
import { getOwn } from '../../../shared/json/own-keys.ts';

export type CopyChoice =
  | { readonly kind: 'rotate' }
  | { readonly kind: 'custom'; readonly key: string }
  | { readonly kind: 'local' | 'only_local' | 'primary' | 'primary_first' | 'replica' | 'replica_first' }
  | { readonly kind: 'only_nodes' | 'prefer_nodes'; readonly spec: string; readonly nodes: readonly string[] };

export interface Preference {
  /** `_shards:2,3`: only these shards of each index are searched; null: every shard. */
  readonly shards: ReadonlySet<number> | null;
  readonly copies: CopyChoice;
}

const ROTATE: Preference = { shards: null, copies: { kind: 'rotate' } };

const SIMPLE: Record<string, CopyChoice['kind']> = {
  _local: 'local',
  _prefer_local: 'local',
  _only_local: 'only_local',
  _primary: 'primary',
  _primary_first: 'primary_first',
  _replica: 'replica',
  _replica_first: 'replica_first',
};

/** Parses a `preference` parameter; an unknown `_` form is a 400, as in Elasticsearch. */
export function parsePreference(value: string | null | undefined): Preference {
  if (value === null || value === undefined || value === '') return ROTATE;
  let rest = value;
  let shards: Set<number> | null = null;
  if (rest.startsWith('_shards:')) {
    const bar = rest.indexOf('|');
    const list = rest.slice('_shards:'.length, bar < 0 ? undefined : bar);
    shards = new Set(
      list.split(',').map((s) => {
        const n = Number(s.trim());
        if (s.trim() === '' || !Number.isInteger(n) || n < 0) throw illegalArgument(`Failed to parse shard id [${s}] in preference [${value}]`);
        return n;
      }),
    );
    rest = bar < 0 ? '' : rest.slice(bar + 1);
    if (rest === '') return { shards, copies: { kind: 'rotate' } };
  }
  if (!rest.startsWith('_')) return { shards, copies: { kind: 'custom', key: rest } };
  const colon = rest.indexOf(':');
  const type = colon < 0 ? rest : rest.slice(0, colon + 1);
  const simple = getOwn(SIMPLE, type);
  if (simple !== undefined) return { shards, copies: { kind: simple } as CopyChoice };
  if (type === '_only_nodes:' || type === '_prefer_nodes:') {
    const spec = rest.slice(colon + 1);
    const nodes = spec.split(',').filter((n) => n !== '');
    return { shards, copies: { kind: type === '_only_nodes:' ? 'only_nodes' : 'prefer_nodes', spec, nodes } };
  }
  throw illegalArgument(`no Preference for [${type}]`);
}

/**
 * Whether a node matches one of `specs` as Elasticsearch resolves node
 * specifications: `_all`, `_local`, `_master`, or a node id, name or host,
 * each with `*` wildcards.
 */
export function nodeMatches(node: NodeInfo, specs: readonly string[], self: NodeInfo, master: NodeInfo | null): boolean {
  const host = node.transportAddress.slice(0, node.transportAddress.lastIndexOf(':'));
  for (const spec of specs) {
    if (spec === '_all') return true;
    if (spec === '_local' && node.id === self.id) return true;
    if (spec === '_master' && master !== null && node.id === master.id) return true;
    const re = globToRegExp(spec);
    if (re.test(node.id) || re.test(node.name) || re.test(host)) return true;
  }
  return false;
}
