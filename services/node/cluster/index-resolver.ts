/**
 * Resolves Elasticsearch index expressions (`a,b`, `log-*`, `_all`, `*`,
 * aliases, `-excluded`) against the cluster state, with the
 * `ignore_unavailable` / `allow_no_indices` semantics of IndicesOptions.
 */
import { illegalArgument, indexClosed, indexNotFound, invalidIndexName } from '../../../shared/errors/es-errors.ts';
import type { ClusterState } from './cluster-state.ts';
import type { AliasMetadata, IndexMetadata } from './index-metadata.ts';
import { simplePattern, type SimplePattern } from '../../../shared/engine/mapping/simple-match.ts';

export type WildcardStates = { readonly open: boolean; readonly closed: boolean };

export interface ResolveOptions {
  readonly ignoreUnavailable?: boolean;
  /** Default true: a wildcard or `_all` that matches nothing is not an error. */
  readonly allowNoIndices?: boolean;
  /** Which indices wildcards expand to (`expand_wildcards`); default open only. */
  readonly expandWildcards?: WildcardStates;
  /** Refuse closed indices named explicitly with index_closed_exception (searches, reads, writes). */
  readonly forbidClosed?: boolean;
}

/** Parses `expand_wildcards` (`open`, `closed`, `all`, `none`, comma lists). */
export function parseExpandWildcards(v: string | undefined): WildcardStates | undefined {
  if (v === undefined) return undefined;
  let open = false;
  let closed = false;
  for (const part of v.split(',')) {
    if (part === 'open') open = true;
    else if (part === 'closed') closed = true;
    else if (part === 'all') open = closed = true;
    else if (part !== 'none') throw illegalArgument(`No valid expand wildcard value [${part}]`);
  }
  return { open, closed };
}

export interface ResolvedIndex {
  readonly meta: IndexMetadata;
  /** The aliases the expression reached this index through (for alias filters and routing). */
  readonly viaAliases: readonly AliasMetadata[];
  /** True when named directly (or by wildcard) rather than only through an alias. */
  readonly direct: boolean;
}

/** An index, alias or type pattern (`logs-*`) as a matcher: Elasticsearch's simpleMatch, linear in its input. */
export function globToRegExp(pattern: string): SimplePattern {
  return simplePattern(pattern);
}

export function isWildcard(s: string): boolean {
  return s.includes('*');
}

export function splitExpression(expr: string | undefined): string[] {
  if (expr === undefined || expr === '') return ['_all'];
  return expr
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function resolveIndices(state: ClusterState, expr: string | undefined, opts: ResolveOptions = {}): ResolvedIndex[] {
  const parts = splitExpression(expr);
  const allowNoIndices = opts.allowNoIndices ?? true;
  const out = new Map<string, { meta: IndexMetadata; via: AliasMetadata[]; direct: boolean }>();
  const aliasTable = state.aliasTable();
  const expand = opts.expandWildcards ?? { open: true, closed: false };
  const expands = (meta: IndexMetadata) => (meta.closed ? expand.closed : expand.open);
  const add = (meta: IndexMetadata, alias: AliasMetadata | null) => {
    let e = out.get(meta.name);
    if (!e) {
      e = { meta, via: [], direct: false };
      out.set(meta.name, e);
    }
    if (alias) e.via.push(alias);
    else e.direct = true;
  };
  let sawWildcard = false;
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i];
    if (p.startsWith('-') && i > 0) {
      const re = globToRegExp(p.slice(1));
      for (const name of [...out.keys()]) if (re.test(name)) out.delete(name);
      continue;
    }
    if (p === '_all') p = '*';
    if (isWildcard(p)) {
      sawWildcard = true;
      const re = globToRegExp(p);
      for (const meta of state.indices()) if (re.test(meta.name) && expands(meta)) add(meta, null);
      for (const [alias, metas] of aliasTable) {
        if (!re.test(alias)) continue;
        for (const m of metas) if (expands(m)) add(m, m.aliases.get(alias) ?? null);
      }
      continue;
    }
    const meta = state.index(p);
    if (meta) {
      if (meta.closed && opts.forbidClosed) {
        if (opts.ignoreUnavailable) continue;
        throw indexClosed(meta.name, meta.uuid);
      }
      add(meta, null);
      continue;
    }
    const viaAlias = aliasTable.get(p);
    if (viaAlias) {
      for (const m of viaAlias) add(m, m.aliases.get(p) ?? null);
      continue;
    }
    if (!opts.ignoreUnavailable) throw indexNotFound(p);
  }
  if (out.size === 0 && !allowNoIndices && (sawWildcard || parts.length > 0)) {
    throw indexNotFound(parts.join(','));
  }
  return [...out.values()].map((e) => ({ meta: e.meta, viaAliases: e.via, direct: e.direct }));
}

export interface WriteTarget {
  readonly meta: IndexMetadata;
  /** The alias's index_routing, when written through an alias that has one. */
  readonly aliasRouting: string | null;
}

/**
 * The one index a document write goes to, or null when the name is free
 * (the caller auto-creates the index, as `action.auto_create_index` does).
 */
export function resolveWriteIndex(state: ClusterState, name: string): WriteTarget | null {
  const meta = state.index(name);
  if (meta?.closed) throw indexClosed(meta.name, meta.uuid);
  if (meta) return { meta, aliasRouting: null };
  const metas = state.aliasTable().get(name);
  if (!metas) return null;
  if (metas.length > 1) {
    const writeIndexes = metas.filter((m) => m.aliases.get(name)?.isWriteIndex === true);
    if (writeIndexes.length !== 1) {
      throw illegalArgument(
        `Alias [${name}] has more than one indices associated with it [[${metas.map((m) => m.name).join(', ')}]], can't execute a single index op`,
      );
    }
    return { meta: writeIndexes[0], aliasRouting: writeIndexes[0].aliases.get(name)?.indexRouting ?? null };
  }
  return { meta: metas[0], aliasRouting: metas[0].aliases.get(name)?.indexRouting ?? null };
}

const INVALID_CHARS = ['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',', '#'];

/** Elasticsearch's MetaDataCreateIndexService.validateIndexOrAliasName rules, for a new index. */
export function validateNewIndexName(name: string): void {
  for (const c of INVALID_CHARS) {
    if (name.includes(c)) {
      throw invalidIndexName(name, 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]');
    }
  }
  if (name.includes(':')) throw invalidIndexName(name, "must not contain ':'");
  if (name !== name.toLowerCase()) throw invalidIndexName(name, 'must be lowercase');
  if (name.startsWith('_') || name.startsWith('-') || name.startsWith('+')) {
    throw invalidIndexName(name, "must not start with '_', '-', or '+'");
  }
  if (name === '.' || name === '..') throw invalidIndexName(name, "must not be '.' or '..'");
  if (Buffer.byteLength(name, 'utf8') > 255) throw invalidIndexName(name, 'index name is too long, (' + Buffer.byteLength(name) + ' > 255)');
}
