/**
 * The `script` object of a request (Script.parse in Elasticsearch 6.8): a
 * string (inline Painless), or `{source | inline | id, lang, params,
 * options}`. Painless is the one language: any other `lang` is refused with
 * Elasticsearch's error. Stored scripts (`id`) are resolved by the caller
 * against the cluster state (PUT /_scripts/{id}).
 */
import { illegalArgument, parsingException, storedScriptMissing } from '../errors/es-errors.ts';
import type { ScriptRecord } from '../records/doc-op.ts';

export type ScriptSpec =
  | { readonly kind: 'inline'; readonly source: string; readonly lang: string; readonly params: Readonly<Record<string, unknown>> }
  | { readonly kind: 'stored'; readonly id: string; readonly params: Readonly<Record<string, unknown>> };

/** A script ready to run: its source, language and params. */
export interface ResolvedScript {
  readonly source: string;
  readonly lang: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** ScriptService.SCRIPT_MAX_SIZE_IN_BYTES's default. */
export const MAX_SCRIPT_SIZE_BYTES = 65_535;

export const DEFAULT_LANG = 'painless';

/** The languages a script may name; Painless is the only one this server runs. */
export function checkLang(lang: string): void {
  if (lang !== DEFAULT_LANG) throw illegalArgument(`script_lang not supported [${lang}]`);
}

function checkSize(source: string): void {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_SCRIPT_SIZE_BYTES) {
    throw illegalArgument(`exceeded max allowed inline script size in bytes [${MAX_SCRIPT_SIZE_BYTES}] with size [${bytes}] for script [${source.slice(0, 64)}]`);
  }
}

/** Deprecation warnings a script object may cause (`inline`). */
export type Warn = (message: string) => void;

export function parseScriptSpec(value: unknown, warn: Warn = () => {}): ScriptSpec {
  if (typeof value === 'string') {
    checkSize(value);
    return { kind: 'inline', source: value, lang: DEFAULT_LANG, params: {} };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw parsingException(`expected a string or an object for [script] but found [${Array.isArray(value) ? 'START_ARRAY' : typeof value}]`);
  }
  let source: string | undefined;
  let id: string | undefined;
  let lang: string | undefined;
  let params: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    switch (key) {
      case 'source':
      case 'inline':
        if (key === 'inline') warn('Deprecated field [inline] used, expected [source] instead');
        if (typeof v !== 'string') throw parsingException(`[script] failed to parse field [${key}]: expected a string`);
        source = v;
        break;
      case 'id':
        if (typeof v !== 'string') throw parsingException('[script] failed to parse field [id]: expected a string');
        id = v;
        break;
      case 'lang':
        if (typeof v !== 'string') throw parsingException('[script] failed to parse field [lang]: expected a string');
        lang = v;
        break;
      case 'params':
        if (v === null) break;
        if (typeof v !== 'object' || Array.isArray(v)) throw parsingException('[script] failed to parse field [params]: expected an object');
        params = v as Record<string, unknown>;
        break;
      case 'options':
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw parsingException('[script] failed to parse field [options]: expected an object');
        break;
      default:
        throw parsingException(`[script] unknown field [${key}], parser not found`);
    }
  }
  if ((source === undefined) === (id === undefined)) {
    throw illegalArgument('must specify either [source] for an inline script or [id] for a stored script');
  }
  if (id !== undefined) {
    if (lang !== undefined) throw illegalArgument('[lang] cannot be specified for stored scripts: a stored script has its own');
    return { kind: 'stored', id, params };
  }
  checkSize(source!);
  const l = lang ?? DEFAULT_LANG;
  checkLang(l);
  return { kind: 'inline', source: source!, lang: l, params };
}

/** A stored script's body (`PUT /_scripts/{id}`): `{"script": {"lang": "painless", "source": "..."}}`. */
export function parseStoredScriptBody(id: string, body: unknown): { lang: string; source: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw parsingException('request body is required');
  const outer = body as Record<string, unknown>;
  const inner = outer.script ?? outer.template;
  if (outer.template !== undefined) throw illegalArgument(`search templates are not supported: stored script [${id}] must be a [script] in [painless]`);
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) {
    throw parsingException(`unable to parse stored script [${id}]: expected [script] with [lang] and [source]`);
  }
  let lang: string | undefined;
  let source: string | undefined;
  for (const [key, v] of Object.entries(inner as Record<string, unknown>)) {
    if (key === 'lang' && typeof v === 'string') lang = v;
    else if ((key === 'source' || key === 'code') && typeof v === 'string') source = v;
    else if (key === 'options' && typeof v === 'object') continue;
    else throw parsingException(`unexpected field [${key}] in stored script [${id}]`);
  }
  if (lang === undefined) throw illegalArgument('must specify lang for stored script');
  if (source === undefined) throw illegalArgument('must specify source for stored script');
  if (source === '') throw illegalArgument('source cannot be empty');
  checkLang(lang);
  checkSize(source);
  return { lang, source };
}

/**
 * The script as the log carries it: a stored script's id is replaced by its
 * source here, before the op is appended, so applying it never depends on
 * the cluster state of the copy.
 */
export function resolveScript(spec: ScriptSpec, stored: (id: string) => { lang: string; source: string } | undefined): ScriptRecord {
  if (spec.kind === 'inline') return { source: spec.source, lang: spec.lang, params_json: JSON.stringify(spec.params) };
  const s = stored(spec.id);
  if (s === undefined) throw storedScriptMissing(spec.id);
  return { source: s.source, lang: s.lang, params_json: JSON.stringify(spec.params) };
}
