/** Parsers of the pipeline aggregations: bucket_selector, bucket_script, bucket_sort, sum/avg/min/max/stats_bucket, moving_avg, cumulative_sum. */
import { illegalArgument, parsingException } from '../../errors/es-errors.ts';
import { parseAggPath } from '../../engine/aggs/buckets-path.ts';
import { compileScript, type CompiledScript, type ScriptContext } from '../../engine/aggs/painless-expression.ts';
import type {
  AggPath,
  BucketMetricsSpec,
  BucketMetricsType,
  BucketScriptSpec,
  BucketSelectorSpec,
  BucketSortSpec,
  CumulativeSumSpec,
  GapPolicy,
  MovingAvgSpec,
  MovingFnSpec,
} from '../../engine/aggs/spec.ts';
import { AggParams, isObject, missingField, mustBeAtLeast, type Json } from './agg-params.ts';
import type { Common } from './parse-bucket-aggs.ts';
import { parseSort } from './parse-metric-aggs.ts';

/** MovAvgPipelineAggregationBuilder's default window. */
const DEFAULT_MOVING_AVG_WINDOW = 5;

function gapPolicy(p: AggParams): GapPolicy {
  const v = p.string('gap_policy');
  if (v === null || v === 'skip') return 'skip';
  if (v === 'insert_zeros') return 'insert_zeros';
  throw illegalArgument(`Invalid gap policy: [${v}], accepted values: [skip, insert_zeros]`);
}

function script(p: AggParams, context: ScriptContext = 'bucket'): CompiledScript {
  const raw = p.raw('script');
  if (raw === undefined || raw === null) throw missingField('script', p.type, p.name);
  if (typeof raw === 'string') return compileScript(raw, 'painless', {}, context);
  if (isObject(raw)) {
    const source = raw.source ?? raw.inline;
    if (typeof source !== 'string') {
      if (typeof raw.id === 'string') throw illegalArgument(`stored scripts are not supported [${raw.id}]`);
      throw parsingException('must specify either [source] for an inline script or [id] for a stored script');
    }
    const lang = typeof raw.lang === 'string' ? raw.lang : 'painless';
    const params = isObject(raw.params) ? raw.params : {};
    return compileScript(source, lang, params, context);
  }
  throw parsingException(`Unknown token in [script] of [${p.name}]`);
}

function pathMap(p: AggParams): { variable: string; path: AggPath }[] {
  const raw = p.raw('buckets_path');
  if (raw === undefined || raw === null) throw missingField('buckets_path', p.type, p.name);
  if (typeof raw === 'string') return [{ variable: '_value', path: parseAggPath(raw) }];
  if (Array.isArray(raw)) return raw.map((v, i) => ({ variable: `_value${i}`, path: parseAggPath(String(v)) }));
  if (isObject(raw)) return Object.entries(raw).map(([variable, v]) => ({ variable, path: parseAggPath(String(v)) }));
  throw parsingException(`Unknown key for a ${typeof raw} in [buckets_path]`);
}

function singlePath(p: AggParams): AggPath {
  const raw = p.raw('buckets_path');
  if (raw === undefined || raw === null) throw missingField('buckets_path', p.type, p.name);
  if (typeof raw === 'string') return parseAggPath(raw);
  if (Array.isArray(raw) && raw.length === 1) return parseAggPath(String(raw[0]));
  throw parsingException(`[${p.type}] buckets_path must be a single path in [${p.name}]`);
}

export function parseBucketSelector(c: Common, body: Json): BucketSelectorSpec {
  const p = new AggParams('bucket_selector', c.name, body);
  const bucketsPath = pathMap(p);
  const s = script(p);
  const gap = gapPolicy(p);
  p.done();
  return { type: 'bucket_selector', ...c, bucketsPath, script: s, gapPolicy: gap };
}

export function parseBucketScript(c: Common, body: Json): BucketScriptSpec {
  const p = new AggParams('bucket_script', c.name, body);
  const bucketsPath = pathMap(p);
  const s = script(p);
  const gap = gapPolicy(p);
  const format = p.string('format');
  p.done();
  return { type: 'bucket_script', ...c, bucketsPath, script: s, gapPolicy: gap, format };
}

export function parseBucketSort(c: Common, body: Json): BucketSortSpec {
  const p = new AggParams('bucket_sort', c.name, body);
  const sort = parseSort(p.raw('sort')).map((s) => {
    const field = s.kind === 'field' ? s.field : s.kind === 'score' ? '_score' : '_doc';
    return { path: parseAggPath(field), asc: s.asc };
  });
  const from = p.int('from') ?? 0;
  mustBeAtLeast('from', 0, from, c.name, false);
  const size = p.int('size');
  if (size !== null) mustBeAtLeast('size', 0, size, c.name, true);
  const gap = gapPolicy(p);
  p.done();
  return { type: 'bucket_sort', ...c, sort, from, size, gapPolicy: gap };
}

export function parseBucketMetrics(c: Common, body: Json, type: BucketMetricsType): BucketMetricsSpec {
  const p = new AggParams(type, c.name, body);
  const bucketsPath = singlePath(p);
  const gap = gapPolicy(p);
  const format = p.string('format');
  p.done();
  return { type, ...c, bucketsPath, gapPolicy: gap, format };
}

export function parseMovingAvg(c: Common, body: Json): MovingAvgSpec {
  const p = new AggParams('moving_avg', c.name, body);
  const bucketsPath = singlePath(p);
  const window = p.int('window') ?? DEFAULT_MOVING_AVG_WINDOW;
  mustBeAtLeast('window', 0, window, c.name, true);
  const model = p.string('model') ?? 'simple';
  if (model !== 'simple' && model !== 'linear') throw illegalArgument(`Unsupported moving_avg model [${model}] in [${c.name}]`);
  const gap = gapPolicy(p);
  p.ignore('settings', 'minimize', 'predict', 'format');
  p.done();
  return { type: 'moving_avg', ...c, bucketsPath, window, model, gapPolicy: gap };
}

export function parseCumulativeSum(c: Common, body: Json): CumulativeSumSpec {
  const p = new AggParams('cumulative_sum', c.name, body);
  const bucketsPath = singlePath(p);
  const format = p.string('format');
  p.done();
  return { type: 'cumulative_sum', ...c, bucketsPath, format };
}

/** MovFnPipelineAggregationBuilder: buckets_path, script and window required; `shift` is 7.x (an unknown field here). */
export function parseMovingFn(c: Common, body: Json): MovingFnSpec {
  const p = new AggParams('moving_fn', c.name, body);
  const bucketsPath = singlePath(p);
  const rawWindow = p.raw('window');
  if (rawWindow === undefined || rawWindow === null) throw illegalArgument('Required [window]');
  const window = p.int('window')!;
  if (window <= 0) throw illegalArgument('[window] must be a positive, non-zero integer.');
  const compiled = script(p, 'moving_fn');
  const gap = gapPolicy(p);
  const format = p.string('format');
  p.done();
  return { type: 'moving_fn', ...c, bucketsPath, window, script: compiled, gapPolicy: gap, format };
}
