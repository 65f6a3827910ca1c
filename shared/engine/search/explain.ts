/**
 * Why a document got its score (`_explain`, `"explain": true`): the engine
 * query explained node by node for one document, in Lucene 7.7's
 * Explanation shapes (`weight(field:term in doc) [PerFieldSimilarity]`,
 * `sum of:`, `max of:`, BM25's idf and tfNorm with their inputs). Every
 * value comes from evaluating that node on the document's segment, so it
 * is the score the search computed.
 */
import type { InvertedField, SegmentView } from '../segment/types.ts';
import { BM25_B, BM25_K1, LENGTH_TABLE, bm25AvgFieldLength, bm25Idf } from './bm25.ts';
import { evaluate, type DocSet, type SegmentEvalContext } from './query-eval.ts';
import type { GeoFilter, Query } from './query.ts';
import { ipTextOfHex } from '../mapping/ip-address.ts';
import { scoreAt } from './doc-set.ts';

export interface Explanation {
  readonly value: number;
  readonly description: string;
  readonly details: readonly Explanation[];
}

const f = Math.fround;

function ex(value: number, description: string, details: readonly Explanation[] = []): Explanation {
  return { value: f(value), description, details };
}

function has(set: DocSet, d: number): boolean {
  return (set.bits[d >>> 5]! & (1 << (d & 31))) !== 0;
}

/** The query as Lucene's Query.toString prints it, closely enough for a description. */
export function queryString(q: Query): string {
  switch (q.kind) {
    case 'match_all':
      return '*:*';
    case 'match_none':
      return 'MatchNoDocsQuery("")';
    case 'term':
      return `${q.field}:${q.term}`;
    case 'synonym':
      return `Synonym(${q.terms.map((t) => `${q.field}:${t}`).join(' ')})`;
    case 'term_set':
      return `${q.field}:(${q.terms.join(' ')})`;
    case 'term_range':
      return `${q.field}:${q.includeLower ? '[' : '{'}${q.lower ?? '*'} TO ${q.upper ?? '*'}${q.includeUpper ? ']' : '}'}`;
    case 'prefix':
      return `${q.field}:${q.prefix}*`;
    case 'wildcard':
      return `${q.field}:${q.pattern}`;
    case 'regexp':
      return `${q.field}:/${q.pattern}/`;
    case 'fuzzy':
      return `${q.field}:${q.term}~${q.maxEdits}`;
    case 'numeric_range':
      return `${q.field}:[${q.min} TO ${q.max}]`;
    case 'numeric_set':
      return `${q.field}:{${q.values.join(' ')}}`;
    case 'phrase':
      return `${q.field}:"${q.terms.join(' ')}"${q.slop > 0 ? `~${q.slop}` : ''}`;
    case 'exists':
      return `DocValuesFieldExistsQuery [field=${q.fields.join(',')}]`;
    case 'geo':
      return geoQueryString(q.field, q.filter);
    case 'ip_range':
      return `${q.field}:[${ipTextOfHex(q.lower)} TO ${ipTextOfHex(q.upper)}]`;
    case 'range_field':
      return `${q.field}:${q.relation.toUpperCase()}([${q.lower.join(',')}] TO [${q.upper.join(',')}])`;
    case 'geo_shape':
      return `ConstantScore(${q.field}:${q.relation.toUpperCase()}(${q.shape.kind}))`;
    case 'ids':
      return `_id:(${q.ids.join(' ')})`;
    case 'constant_score':
      return `ConstantScore(${queryString(q.filter)})`;
    case 'dis_max':
      return `(${q.queries.map(queryString).join(' | ')})${q.tieBreaker !== 0 ? `~${q.tieBreaker}` : ''}`;
    case 'bool': {
      const parts = [
        ...q.must.map((c) => `+${wrap(c)}`),
        ...q.filter.map((c) => `#${wrap(c)}`),
        ...q.should.map((c) => wrap(c)),
        ...q.mustNot.map((c) => `-${wrap(c)}`),
      ];
      return parts.join(' ') + (q.minimumShouldMatch > 0 ? `~${q.minimumShouldMatch}` : '');
    }
    case 'nested':
      return `ToParentBlockJoinQuery (${queryString(q.query)})`;
  }
}

function wrap(q: Query): string {
  return q.kind === 'bool' ? `(${queryString(q)})` : queryString(q);
}

/** Term frequency and norm byte of `term` in local doc `d`, or null when the doc does not have it. */
function termFreq(inv: InvertedField | undefined, term: string, d: number): { freq: number; norm: number } | null {
  if (inv === undefined) return null;
  const t = inv.terms.find(term);
  if (t < 0) return null;
  const cursor = inv.postings(t);
  const at = cursor.advance(d);
  if (at < 0 || cursor.docs[at] !== d) return null;
  return { freq: cursor.freqs[at]!, norm: inv.norms === null ? -1 : inv.norms[d]! };
}

/** BM25Similarity.explain of one term (or a phrase's summed idf) in one doc. */
function bm25Explain(ctx: SegmentEvalContext, field: string, idfParts: readonly { term: string; docFreq: number }[], freq: number, normByte: number, boost: number, score: number, label: string, docBase: number, d: number): Explanation {
  const stats = ctx.stats.field(field);
  const docCount = stats.docCount;
  const idfs = idfParts.map((p) => ex(bm25Idf(p.docFreq, docCount), 'idf, computed as log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)) from:', [ex(p.docFreq, 'docFreq'), ex(docCount, 'docCount')]));
  const idf = idfs.length === 1 ? idfs[0]! : ex(idfs.reduce((s, e) => s + e.value, 0), 'idf(), sum of:', idfs);
  let tfNorm: Explanation;
  if (normByte < 0) {
    const v = f(f(freq * f(BM25_K1 + 1)) / f(freq + BM25_K1));
    tfNorm = ex(v, 'tfNorm, computed as freq * (k1 + 1) / (freq + k1) from:', [ex(freq, 'termFreq=' + freq), ex(BM25_K1, 'parameter k1'), ex(0, 'parameter b (norms omitted for field)')]);
  } else {
    const avgdl = bm25AvgFieldLength(stats.sumTotalTermFreq, docCount);
    const dl = LENGTH_TABLE[normByte]!;
    const v = f(f(freq * f(BM25_K1 + 1)) / f(freq + f(BM25_K1 * f(f(1 - BM25_B) + f(f(BM25_B * dl) / avgdl)))));
    tfNorm = ex(v, 'tfNorm, computed as (freq * (k1 + 1)) / (freq + k1 * (1 - b + b * fieldLength / avgFieldLength)) from:', [
      ex(freq, `${label === 'phrase' ? 'phraseFreq' : 'termFreq'}=${freq}`),
      ex(BM25_K1, 'parameter k1'),
      ex(BM25_B, 'parameter b'),
      ex(avgdl, 'avgFieldLength'),
      ex(dl, 'fieldLength'),
    ]);
  }
  const product = [...(boost !== 1 ? [ex(boost, 'boost')] : []), idf, tfNorm];
  return ex(score, `score(doc=${docBase + d},freq=${freq}.0 = ${label === 'phrase' ? 'phraseFreq' : 'termFreq'}=${freq}.0\n), product of:`, product);
}

/**
 * Explains `q` for local doc `d` of the context's segment. `boost` is the
 * product of the ancestors' boosts, as evaluate() takes it.
 */
export function explainQuery(q: Query, ctx: SegmentEvalContext, d: number, boost = 1): Explanation {
  const view: SegmentView = ctx.view;
  const docBase = view.docBase;
  const set = evaluate(q, ctx, true, boost);
  const matched = has(set, d);
  const score = matched ? scoreAt(set, d) : 0;
  const b = f(boost * ('boost' in q ? q.boost : 1));
  switch (q.kind) {
    case 'term': {
      if (!matched) return ex(0, `no matching term`);
      const tf = termFreq(ctx.segment.inverted.get(q.field), q.term, d);
      const df = ctx.stats.docFreq(q.field, q.term);
      const inner = bm25Explain(ctx, q.field, [{ term: q.term, docFreq: df }], tf?.freq ?? 1, tf?.norm ?? -1, b, score, 'term', docBase, d);
      return ex(score, `weight(${queryString(q)} in ${docBase + d}) [PerFieldSimilarity], result of:`, [inner]);
    }
    case 'synonym': {
      if (!matched) return ex(0, `no matching term`);
      const inv = ctx.segment.inverted.get(q.field);
      let freq = 0;
      let norm = -1;
      let df = 0;
      for (const t of q.terms) {
        const tf = termFreq(inv, t, d);
        if (tf) {
          freq += tf.freq;
          norm = tf.norm;
        }
        df = Math.max(df, ctx.stats.docFreq(q.field, t));
      }
      const inner = bm25Explain(ctx, q.field, [{ term: q.terms.join(' '), docFreq: df }], freq, norm, b, score, 'term', docBase, d);
      return ex(score, `weight(${queryString(q)} in ${docBase + d}) [PerFieldSimilarity], result of:`, [inner]);
    }
    case 'phrase': {
      if (!matched) return ex(0, `no matching term`);
      const parts = q.terms.map((t) => ({ term: t, docFreq: ctx.stats.docFreq(q.field, t) }));
      const norm = termFreq(ctx.segment.inverted.get(q.field), q.terms[0]!, d)?.norm ?? -1;
      const inner = bm25Explain(ctx, q.field, parts, 1, norm, b, score, 'phrase', docBase, d);
      return ex(score, `weight(${queryString(q)} in ${docBase + d}) [PerFieldSimilarity], result of:`, [inner]);
    }
    case 'bool':
      return explainBool(q, ctx, d, b, matched, score);
    case 'dis_max': {
      if (!matched) return ex(0, 'No matching clause');
      const subs = q.queries.map((c) => explainQuery(c, ctx, d, b)).filter((e) => e.value > 0 || e.description !== 'no matching term');
      const desc = q.tieBreaker === 0 ? 'max of:' : `max plus ${q.tieBreaker} times others of:`;
      return ex(score, desc, subs.filter((e) => e.value !== 0 || !e.description.startsWith('no match')));
    }
    case 'constant_score':
      if (!matched) return ex(0, `${queryString(q)} doesn't match id ${docBase + d}`);
      return ex(score, queryString(q), []);
    case 'match_all':
      return ex(score, '*:*', []);
    case 'match_none':
      return ex(0, 'MatchNoDocsQuery("")');
    default:
      if (!matched) return ex(0, `${queryString(q)} doesn't match id ${docBase + d}`);
      return ex(score, queryString(q), []);
  }
}

function explainBool(q: Query & { kind: 'bool' }, ctx: SegmentEvalContext, d: number, boost: number, matched: boolean, score: number): Explanation {
  const details: Explanation[] = [];
  let failed: string | null = null;
  for (const c of q.must) {
    const e = explainQuery(c, ctx, d, boost);
    if (has(evaluate(c, ctx, false), d)) details.push(e);
    else failed ??= `no match on required clause (${queryString(c)})`;
  }
  for (const c of q.filter) {
    if (has(evaluate(c, ctx, false), d)) details.push(ex(0, 'match on required clause, product of:', [ex(0, '# clause'), ex(1, queryString(c))]));
    else failed ??= `no match on required clause (${queryString(c)})`;
  }
  for (const c of q.mustNot) {
    if (has(evaluate(c, ctx, false), d)) failed ??= `match on prohibited clause (${queryString(c)})`;
  }
  let shouldMatched = 0;
  for (const c of q.should) {
    if (has(evaluate(c, ctx, false), d)) {
      details.push(explainQuery(c, ctx, d, boost));
      shouldMatched++;
    }
  }
  if (!matched) {
    const reason = failed ?? (q.should.length > 0 ? `No matching clauses` : 'no match');
    return ex(0, `Failure to meet condition(s) of required/prohibited clause(s)`, [ex(0, reason)]);
  }
  void shouldMatched;
  return ex(score, 'sum of:', details);
}

/** Explanation.toXContent. */
export function explanationJson(e: Explanation): Record<string, unknown> {
  return { value: e.value, description: e.description, details: e.details.map(explanationJson) };
}

/** How Lucene's LatLonPoint queries print themselves. */
function geoQueryString(field: string, g: GeoFilter): string {
  switch (g.type) {
    case 'box':
      return `${field}:[${g.minLat} TO ${g.maxLat}],[${g.minLon} TO ${g.maxLon}]`;
    case 'distance':
      return `${field}:${g.lat},${g.lon} +/- ${g.meters} meters`;
    case 'polygon':
      return `${field}:Polygon(${g.lats.map((la, i) => `[${la}, ${g.lons[i]}]`).join(' ')})`;
  }
}
