/**
 * The coordinator's merge of composite pages: every shard sent its first
 * `size` keys after `after`, so the first `size` keys of their union, with
 * their counts summed, are the exact page (work in shards × size).
 */
import { compareCompositeKeys, compositeKeyId } from './composite-key.ts';
import type { ReducedBucket, ReducedComposite } from './reduced.ts';
import type { LevelReducer } from './reduce-terms.ts';
import type { CompositeSpec } from './spec.ts';
import type { AggState, CompositeState, CompositeValue, ValueFormat } from './state.ts';
import { formatValue, printedKey } from './value-format.ts';
import { setOwn } from '../../json/own-keys.ts';

function printValue(v: CompositeValue, format: ValueFormat | undefined): unknown {
  if (v === null || format === undefined) return v;
  if (typeof v === 'string') return printedKey(format, v);
  switch (format.kind) {
    case 'raw':
    case 'ip':
      return v;
    case 'boolean':
      return v !== 0;
    case 'date':
      return formatValue(format, v);
  }
}

/** A key as the response prints it: source name → value. */
export function printCompositeKey(spec: CompositeSpec, key: readonly CompositeValue[], formats: readonly ValueFormat[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  spec.sources.forEach((s, i) => setOwn(out, s.name, printValue(key[i] ?? null, formats[i])));
  return out;
}

interface Merged {
  readonly key: readonly CompositeValue[];
  readonly formats: readonly ValueFormat[];
  docCount: number;
  readonly subs: (readonly AggState[])[];
}

export function reduceComposite(spec: CompositeSpec, states: readonly CompositeState[], reduceLevel: LevelReducer): ReducedComposite {
  const asc = spec.sources.map((s) => s.asc);
  const byId = new Map<string, Merged>();
  for (const st of states) {
    for (let i = 0; i < st.keys.length; i++) {
      const key = st.keys[i]!;
      const id = compositeKeyId(key);
      let m = byId.get(id);
      if (m === undefined) {
        m = { key, formats: st.formats, docCount: 0, subs: [] };
        byId.set(id, m);
      }
      m.docCount += st.docCounts[i]!;
      if (st.subs !== null) m.subs.push(st.subs[i]!);
    }
  }
  const page = [...byId.values()].sort((a, b) => compareCompositeKeys(a.key, b.key, asc)).slice(0, spec.size);
  const buckets: ReducedBucket[] = page.map((m) => {
    const printed = printCompositeKey(spec, m.key, m.formats);
    return { key: JSON.stringify(printed), keyAsString: null, docCount: m.docCount, compositeKey: printed, aggs: reduceLevel(spec.subs, m.subs) };
  });
  const last = buckets[buckets.length - 1];
  return { kind: 'composite', name: spec.name, meta: spec.meta, buckets, afterKey: last?.compositeKey ?? null };
}
