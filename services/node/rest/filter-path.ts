/**
 * Elasticsearch's `filter_path` response filtering: comma-separated dotted
 * paths where `*` matches one key (or part of it) and `**` any depth; a
 * leading `-` excludes. Arrays are transparent: the path applies to each element.
 */
import { globToRegExp } from '../cluster/index-resolver.ts';
import { setOwn } from '../../../shared/json/own-keys.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Pattern {
  readonly segments: readonly string[];
}

function matchesSegment(seg: string, key: string): boolean {
  return seg === '*' || seg === key || (seg.includes('*') && globToRegExp(seg).test(key));
}

/** Keeps what any pattern reaches; returns undefined when nothing is kept. */
function include(value: Json, patterns: readonly Pattern[]): Json | undefined {
  if (patterns.some((p) => p.segments.length === 0)) return value;
  if (Array.isArray(value)) {
    const out = value.map((v) => include(v, patterns)).filter((v): v is Json => v !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const out: { [k: string]: Json } = {};
  let any = false;
  for (const [k, v] of Object.entries(value)) {
    const next: Pattern[] = [];
    for (const p of patterns) {
      const [seg, ...rest] = p.segments;
      if (seg === '**') {
        next.push({ segments: p.segments }); // ** may consume this key and more
        if (rest.length > 0 && matchesSegment(rest[0], k)) next.push({ segments: rest.slice(1) });
        if (rest.length === 0) next.push({ segments: [] });
      } else if (matchesSegment(seg, k)) {
        next.push({ segments: rest });
      }
    }
    if (next.length === 0) continue;
    const kept = include(v, next);
    if (kept !== undefined) {
      setOwn(out, k, kept);
      any = true;
    }
  }
  return any ? out : undefined;
}

function exclude(value: Json, segments: readonly string[]): Json | undefined {
  if (segments.length === 0) return undefined;
  if (Array.isArray(value)) return value.map((v) => exclude(v, segments)).filter((v): v is Json => v !== undefined);
  if (typeof value !== 'object' || value === null) return value;
  const [seg, ...rest] = segments;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) {
    let kept: Json | undefined = v;
    if (seg === '**') {
      // `**` matches any depth: exclude the rest here, and keep looking below.
      if (rest.length === 0 || matchesSegment(rest[0], k)) kept = exclude(v, rest.slice(1));
      if (kept !== undefined) kept = exclude(kept, segments);
    } else if (matchesSegment(seg, k)) {
      kept = exclude(v, rest);
    }
    if (kept !== undefined) setOwn(out, k, kept);
  }
  return out;
}

export function filterPath(body: unknown, paths: readonly string[]): unknown {
  const includes: Pattern[] = [];
  const excludes: string[][] = [];
  for (const raw of paths) {
    const p = raw.trim();
    if (!p) continue;
    if (p.startsWith('-')) excludes.push(p.slice(1).split('.'));
    else includes.push({ segments: p.split('.') });
  }
  let out = body as Json;
  if (includes.length > 0) out = include(out, includes) ?? {};
  for (const e of excludes) out = exclude(out, e) ?? {};
  return out;
}
