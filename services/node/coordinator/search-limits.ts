/**
 * Per-index request limits Elasticsearch enforces on searches, with its
 * messages: the result window, scroll batch size, rescore window,
 * docvalue_fields and script_fields counts, and scroll slices.
 */
import { illegalArgument, resultWindowTooLarge } from '../../../shared/errors/es-errors.ts';
import type { ParsedSearch } from '../../../shared/engine/search/types.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';

/** IndexSettings defaults of Elasticsearch 6.8. */
const DEFAULTS = {
  'index.max_rescore_window': 10_000,
  'index.max_docvalue_fields_search': 100,
  'index.max_script_fields': 32,
  'index.max_slices_per_scroll': 1024,
} as const;

export function intSetting(meta: IndexMetadata, key: keyof typeof DEFAULTS): number {
  const v = meta.settings.flat[key];
  const n = typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : DEFAULTS[key];
}

export function checkSearchLimits(meta: IndexMetadata, search: ParsedSearch, size: number, scroll: boolean): void {
  const maxWindow = meta.settings.maxResultWindow;
  if (scroll) {
    if (size > maxWindow) {
      throw illegalArgument(
        `Batch size is too large, size must be less than or equal to: [${maxWindow}] but was [${size}]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.`,
      );
    }
  } else if (search.from + size > maxWindow) {
    throw resultWindowTooLarge(search.from + size, maxWindow);
  }
  const maxRescore = intSetting(meta, 'index.max_rescore_window');
  if (search.rescoreWindow !== null && search.rescoreWindow > maxRescore) {
    throw illegalArgument(
      `Rescore window [${search.rescoreWindow}] is too large. It must be less than [${maxRescore}]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.`,
    );
  }
  const maxDocvalue = intSetting(meta, 'index.max_docvalue_fields_search');
  if (search.docvalueFields.length > maxDocvalue) {
    throw illegalArgument(
      `Trying to retrieve too many docvalue_fields. Must be less than or equal to: [${maxDocvalue}] but was [${search.docvalueFields.length}]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.`,
    );
  }
  const maxScript = intSetting(meta, 'index.max_script_fields');
  if (search.scriptFields.length > maxScript) {
    throw illegalArgument(
      `Trying to retrieve too many script_fields. Must be less than or equal to: [${maxScript}] but was [${search.scriptFields.length}]. This limit can be set by changing the [index.max_script_fields] index level setting.`,
    );
  }
}

export interface SliceSpec {
  readonly id: number;
  readonly max: number;
}

/** The `slice` of a scroll request body, validated as SliceBuilder does. */
export function parseSlice(body: unknown): SliceSpec | null {
  const s = (body as { slice?: unknown } | null | undefined)?.slice;
  if (s === undefined || s === null) return null;
  const { id, max, field } = s as { id?: unknown; max?: unknown; field?: unknown };
  if (typeof max !== 'number' || !Number.isInteger(max) || max <= 1) throw illegalArgument('max must be greater than 1');
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) throw illegalArgument('id must be greater than or equal to 0');
  if (id >= max) throw illegalArgument('max must be greater than id');
  if (field !== undefined && field !== '_id' && field !== '_uid') {
    throw illegalArgument(`slicing on field [${String(field)}] is not supported; slice on [_id]`);
  }
  return { id, max };
}

/**
 * Which shards of an index a slice reads (SliceBuilder.toFilter for
 * `max <= number_of_shards`: slice `id` takes the shards with `shard % max == id`).
 * More slices than shards would split shards by `_id` hash, which this engine
 * does not do: refused with a clear error.
 */
export function shardsOfSlice(meta: IndexMetadata, slice: SliceSpec, shards: readonly number[]): number[] {
  const maxSlices = intSetting(meta, 'index.max_slices_per_scroll');
  if (slice.max > maxSlices) {
    throw illegalArgument(
      `The number of slices [${slice.max}] is too large. It must be less than [${maxSlices}]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.`,
    );
  }
  if (slice.max > meta.settings.numberOfShards) {
    throw illegalArgument(
      `slice max [${slice.max}] is greater than the number of shards [${meta.settings.numberOfShards}] of [${meta.name}]; use at most one slice per shard`,
    );
  }
  return shards.filter((s) => s % slice.max === slice.id);
}
