/**
 * `doc['field']` for scripts that run on search hits (`script_fields`): a
 * field's doc values of one document, typed as Painless sees them (numbers,
 * booleans, dates as date objects, keywords as strings), with
 * Elasticsearch's errors for an unmapped field and a text field without
 * fielddata.
 */
import type { MappingLookup } from '../../../shared/engine/mapping/types.ts';
import { idOf, type Segment } from '../../../shared/engine/segment/types.ts';
import { ipTermText } from '../../../shared/engine/mapping/ip-address.ts';
import { decodeLatitude, decodeLongitude } from '../../../shared/engine/mapping/geo-point.ts';
import { DocField, DocLookup, DateValue, PainlessRuntimeError, type Value } from '../../../shared/script/painless/values.ts';
import { compilePainless, type CompiledPainless } from '../../../shared/script/painless/interpreter.ts';
import { illegalArgument } from '../../../shared/errors/es-errors.ts';
import type { ScriptFieldSpec } from '../../../shared/engine/search/types.ts';
import type { HitHooks } from '../../../shared/engine/search/render-hit.ts';
import type { SegmentView } from '../../../shared/engine/segment/types.ts';

function fielddataMessage(field: string): string {
  return `Fielddata is disabled on text fields by default. Set fielddata=true on [${field}] in order to load fielddata in memory by uninverting the inverted index. Note that this can however use significant memory. Alternatively use a keyword field instead.`;
}

/** The doc values of local doc `d` of `seg`, as a script's `doc`. */
export function docLookupFor(seg: Segment, d: number, mapping: MappingLookup, typeName: string): DocLookup {
  const cache = new Map<string, DocField>();
  return new DocLookup((field) => {
    const known = cache.get(field);
    if (known !== undefined) return known;
    let values: Value[];
    if (field === '_id') values = [idOf(seg, d)];
    else if (field === '_type') values = [typeName];
    else {
      const fm = mapping.field(field);
      if (fm === undefined) throw new PainlessRuntimeError('illegal_argument_exception', `No field found for [${field}] in mapping with types [${typeName}]`);
      if (fm.type === 'text' && fm.fielddata !== true) throw new PainlessRuntimeError('illegal_argument_exception', fielddataMessage(field));
      values = [];
      const dv = seg.docValues.get(fm.path); // a field alias reads its target
      const pv = fm.type === 'geo_point' ? seg.points?.get(fm.path) : undefined;
      if (pv !== undefined) {
        // GeoPoint values: printed as {"lat":..,"lon":..}, as a script field of a GeoPoint prints
        for (let i = pv.starts[d]!; i < pv.starts[d + 1]!; i++) {
          values.push({ lat: decodeLatitude(pv.values[2 * i]!), lon: decodeLongitude(pv.values[2 * i + 1]!) });
        }
      } else if (dv !== undefined && dv.kind === 'numeric') {
        const push = (v: number) => {
          if (Number.isNaN(v)) return;
          values.push(fm.type === 'boolean' ? v === 1 : fm.type === 'date' ? new DateValue(v) : v);
        };
        if (dv.starts === null) push(dv.values[d]!);
        else for (let i = dv.starts[d]!; i < dv.starts[d + 1]!; i++) push(dv.values[i]!);
      } else if (dv !== undefined) {
        // an ip's doc values are its terms (hex): scripts see the address, as IpFieldMapper's script values give it
        const text = fm.mappedType === 'ip' ? ipTermText : (t: string): string => t;
        if (dv.starts === null) {
          const o = dv.ords[d]!;
          if (o >= 0) values.push(text(dv.dict.get(o)));
        } else for (let i = dv.starts[d]!; i < dv.starts[d + 1]!; i++) values.push(text(dv.dict.get(dv.ords[i]!)));
      }
    }
    const out = new DocField(field, values);
    cache.set(field, out);
    return out;
  });
}

/** Compiled script-field scripts by source (script.cache.max_size). */
const compiled = new Map<string, CompiledPainless>();

function compileSearchScript(source: string): CompiledPainless {
  let c = compiled.get(source);
  if (c === undefined) {
    c = compilePainless(source, ['doc', 'params']);
    compiled.set(source, c);
    if (compiled.size > 100) compiled.delete(compiled.keys().next().value!);
  }
  return c;
}

/** The `fields` members of a hit's `script_fields`: each script run with `doc` and `params._source`. */
export function scriptFieldHooks(specs: readonly ScriptFieldSpec[], mapping: MappingLookup, typeName: string): HitHooks {
  const scripts = specs.map((s) => {
    if (s.source === null) throw illegalArgument(`stored script [${s.storedId}] of script field [${s.name}] was not resolved`);
    return { spec: s, script: compileSearchScript(s.source) };
  });
  return {
    fields: (view: SegmentView, d: number, sourceBytes: Uint8Array) => {
      let source: Value | undefined;
      const members: string[] = [];
      for (const { spec, script } of scripts) {
        source ??= sourceBytes.length === 0 ? null : (JSON.parse(Buffer.from(sourceBytes.buffer, sourceBytes.byteOffset, sourceBytes.length).toString('utf8')) as Value);
        const params = { ...(spec.params as Record<string, Value>), _source: source };
        try {
          const v = script.run({ doc: docLookupFor(view.segment, d, mapping, typeName), params });
          const values = Array.isArray(v) ? v : v instanceof DocField ? [...v.values] : [v];
          members.push(`${JSON.stringify(spec.name)}:${JSON.stringify(values)}`);
        } catch (err) {
          if (!spec.ignoreFailure) throw err;
        }
      }
      return members.join(',');
    },
  };
}
