/**
 * `_source` selection from request parameters (`_source`, `_source_includes`,
 * `_source_excludes` and 6.x's `_source_include`/`_source_exclude`), and
 * rendering a stored source with it.
 */
import { filterSource } from '../../../shared/engine/search/source-filter.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { RawJson } from './reply.ts';
import type { Query } from './params.ts';

export interface SourceSelection {
  readonly enabled: boolean;
  readonly includes: readonly string[];
  readonly excludes: readonly string[];
}

const split = (v: string | undefined): string[] => (v === undefined || v === '' ? [] : v.split(','));

export function sourceFilterFromParams(q: Query): SourceSelection {
  const includes = split(q._source_includes ?? q._source_include);
  const excludes = split(q._source_excludes ?? q._source_exclude);
  const s = q._source;
  if (s === 'false') return { enabled: false, includes: [], excludes: [] };
  if (s !== undefined && s !== 'true' && s !== '') return { enabled: true, includes: split(s), excludes };
  return { enabled: true, includes, excludes };
}

/** The source to return, or undefined when none is (disabled by the request or the mapping). */
export function renderSource(meta: IndexMetadata, source: Buffer | null, sel: SourceSelection): RawJson | undefined {
  if (!sel.enabled || source === null) return undefined;
  if (meta.mapping && !meta.mapping.sourceEnabled) return undefined;
  if (sel.includes.length === 0 && sel.excludes.length === 0) return new RawJson(source.toString('utf8'));
  return new RawJson(filterSource(source, sel.includes, sel.excludes));
}
