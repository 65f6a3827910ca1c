/**
 * BM25 exactly as Lucene 7.7's BM25Similarity computes it (Elasticsearch 6.8),
 * in single precision like Java's floats: every operation is rounded with
 * Math.fround in the order Lucene evaluates it, so scores match to the bit.
 *
 *   idf   = ln(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5))
 *   norm  = k1 * ((1 - b) + b * dl / avgdl), dl = byte4ToInt(norm byte)
 *   score = boost * idf * (k1 + 1) * freq / (freq + norm)
 *
 * Fields without norms (keyword) act as b = 0 (norm = k1) and, being indexed
 * with docs only, have freq 1.
 */

const f = Math.fround;

/** BM25Similarity defaults (Lucene 7.7, Elasticsearch's `BM25` similarity). */
export const BM25_K1 = f(1.2);
export const BM25_B = f(0.75);

/** SmallFloat.NUM_FREE_VALUES: 255 - longToInt4(Integer.MAX_VALUE). */
const NUM_FREE_VALUES = 24;

/** SmallFloat.int4ToLong. */
function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** SmallFloat.byte4ToInt: the field length an encoded norm byte stands for. */
export function byte4ToInt(b: number): number {
  const i = b & 0xff;
  if (i < NUM_FREE_VALUES) return i;
  return Math.min(NUM_FREE_VALUES + int4ToLong(i - NUM_FREE_VALUES), 2147483647);
}

/** BM25Similarity.LENGTH_TABLE (indices created by Lucene 7+). */
export const LENGTH_TABLE: Float64Array = (() => {
  const t = new Float64Array(256);
  for (let i = 0; i < 256; i++) t[i] = byte4ToInt(i);
  return t;
})();

/** BM25Similarity.idf, as a float. */
export function bm25Idf(docFreq: number, docCount: number): number {
  return f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** BM25Similarity.avgFieldLength; fields indexed without freqs report 1. */
export function bm25AvgFieldLength(sumTotalTermFreq: number, docCount: number): number {
  if (sumTotalTermFreq < 0 || docCount <= 0) return 1;
  return f(sumTotalTermFreq / docCount);
}

/** The per-norm-byte denominators `k1 * ((1 - b) + b * dl / avgdl)` (BM25Stats.cache). */
export function bm25NormCache(avgdl: number): Float32Array {
  const cache = new Float32Array(256);
  const oneMinusB = f(1 - BM25_B);
  for (let i = 0; i < 256; i++) {
    cache[i] = f(BM25_K1 * f(oneMinusB + f(f(BM25_B * LENGTH_TABLE[i]!) / avgdl)));
  }
  return cache;
}

/** BM25Stats.weight * (k1 + 1): the numerator factor of one query term (or phrase). */
export function bm25WeightValue(boost: number, idf: number): number {
  return f(f(idf * f(boost)) * f(BM25_K1 + 1));
}

/** BM25DocScorer.score. */
export function bm25Score(weightValue: number, freq: number, norm: number): number {
  return f(f(weightValue * freq) / f(freq + norm));
}
