/**
 * The `highlight` section of a search (HighlightBuilder.fromXContent): global
 * options, overridden per field; `fields` as an object or, to keep their
 * order, as an array of one-key objects. Field names may be patterns.
 */
import { illegalArgument, parsingException } from '../../errors/es-errors.ts';
import type { QuerySource } from '../../engine/search/types.ts';
import { STYLED_PRE_TAGS, type HighlightField, type HighlightOptions, type HighlightSpec } from '../../engine/search/highlight-options.ts';

type Obj = Record<string, unknown>;

/** Parses the query at `container[key]` (positions in errors come from the container). */
export type QueryParser = (container: Obj, key: string) => QuerySource;

function num(o: Obj, k: string, where: string): number {
  const v = o[k];
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw parsingException(`[${where}] failed to parse field [${k}]`);
  return n;
}

function bool(o: Obj, k: string, where: string): boolean {
  const v = o[k];
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw parsingException(`[${where}] failed to parse field [${k}]`);
}

function strings(o: Obj, k: string, where: string): string[] {
  const v = o[k];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw parsingException(`[${where}] failed to parse field [${k}]`);
}

function oneOf<T extends string>(o: Obj, k: string, allowed: readonly T[], message: (v: string) => string): T {
  const v = o[k];
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw illegalArgument(message(String(v)));
  return v as T;
}

const EMPTY: HighlightOptions = {
  type: null,
  preTags: null,
  postTags: null,
  fragmentSize: null,
  numberOfFragments: null,
  noMatchSize: null,
  requireFieldMatch: null,
  order: null,
  encoder: null,
  fragmenter: null,
  boundaryScanner: null,
  highlightQuery: null,
  fragmentOffset: null,
  matchedFields: null,
};

function parseOptions(o: Obj, where: 'highlight' | 'highlight_field', parseQuery: QueryParser, fieldsOut: HighlightField[] | null): HighlightOptions {
  const out: { -readonly [K in keyof HighlightOptions]: HighlightOptions[K] } = { ...EMPTY };
  for (const key of Object.keys(o)) {
    switch (key) {
      case 'pre_tags':
        out.preTags = strings(o, key, where);
        break;
      case 'post_tags':
        out.postTags = strings(o, key, where);
        break;
      case 'tags_schema':
        if (where !== 'highlight') throw parsingException(`[${where}] unknown field [${key}], parser not found`);
        if (o[key] === 'styled') {
          out.preTags = STYLED_PRE_TAGS;
          out.postTags = ['</em>'];
        } else if (o[key] !== 'default') throw illegalArgument(`Unknown tag schema [${String(o[key])}]`);
        break;
      case 'fragment_size':
        out.fragmentSize = num(o, key, where);
        break;
      case 'number_of_fragments':
        out.numberOfFragments = num(o, key, where);
        if (out.numberOfFragments < 0) throw illegalArgument('[number_of_fragments] must be a non-negative integer');
        break;
      case 'no_match_size':
        out.noMatchSize = num(o, key, where);
        break;
      case 'fragment_offset':
        out.fragmentOffset = num(o, key, where);
        break;
      case 'require_field_match':
        out.requireFieldMatch = bool(o, key, where);
        break;
      case 'force_source':
      case 'highlight_filter':
        bool(o, key, where);
        break;
      case 'phrase_limit':
      case 'boundary_max_scan':
      case 'max_analyzed_offset':
        num(o, key, where);
        break;
      case 'boundary_chars':
      case 'boundary_scanner_locale':
        if (typeof o[key] !== 'string') throw parsingException(`[${where}] failed to parse field [${key}]`);
        break;
      case 'order':
        out.order = oneOf(o, key, ['score', 'none'] as const, (v) => `Unknown highlight order [${v}]`);
        break;
      case 'encoder':
        out.encoder = oneOf(o, key, ['default', 'html'] as const, (v) => `Unknown encoder [${v}]`);
        break;
      case 'type':
        out.type = oneOf(o, key, ['unified', 'plain', 'fvh'] as const, (v) => `unknown highlighter type [${v}]`);
        break;
      case 'fragmenter':
        out.fragmenter = oneOf(o, key, ['simple', 'span'] as const, (v) => `unknown fragmenter option [${v}]`);
        break;
      case 'boundary_scanner':
        out.boundaryScanner = oneOf(o, key, ['chars', 'word', 'sentence'] as const, (v) => `Invalid boundary_scanner type [${v}]`);
        break;
      case 'highlight_query':
        out.highlightQuery = parseQuery(o, key);
        break;
      case 'matched_fields':
        if (where !== 'highlight_field') throw parsingException(`[${where}] unknown field [${key}], parser not found`);
        out.matchedFields = strings(o, key, where);
        break;
      case 'options':
        if (typeof o[key] !== 'object' || o[key] === null) throw parsingException(`[${where}] failed to parse field [${key}]`);
        break;
      case 'fields': {
        if (where !== 'highlight' || fieldsOut === null) throw parsingException(`[${where}] unknown field [${key}], parser not found`);
        const v = o[key];
        const entries: [string, unknown][] = [];
        if (Array.isArray(v)) {
          for (const item of v) {
            if (typeof item !== 'object' || item === null || Array.isArray(item) || Object.keys(item).length !== 1) {
              throw parsingException('[highlight] failed to parse field [fields]: an array of fields must hold objects of one field each');
            }
            entries.push(Object.entries(item as Obj)[0]!);
          }
        } else if (typeof v === 'object' && v !== null) entries.push(...Object.entries(v as Obj));
        else throw parsingException('[highlight] failed to parse field [fields]');
        for (const [name, opts] of entries) {
          if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) throw parsingException(`[highlight_field] failed to parse field [${name}]`);
          fieldsOut.push({ name, options: parseOptions(opts as Obj, 'highlight_field', parseQuery, null) });
        }
        break;
      }
      default:
        throw parsingException(`[${where}] unknown field [${key}], parser not found`);
    }
  }
  return out;
}

export function parseHighlight(v: unknown, parseQuery: QueryParser): HighlightSpec {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw parsingException('[highlight] failed to parse: expected an object');
  const fields: HighlightField[] = [];
  const global = parseOptions(v as Obj, 'highlight', parseQuery, fields);
  return { global, fields };
}
