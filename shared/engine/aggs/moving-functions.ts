/**
 * Elasticsearch 6.8's MovingFunctions, the functions a moving_fn script
 * calls on its window (`values`, oldest first): the same arithmetic in the
 * same order, so results match to the last bit where Java's would.
 */

/** DoubleStream.max: NaN for an empty window, and NaN wins (Double.max). */
export function max(values: readonly number[]): number {
  let out = values.length === 0 ? NaN : -Infinity;
  for (const v of values) out = Math.max(out, v);
  return out;
}

export function min(values: readonly number[]): number {
  let out = values.length === 0 ? NaN : Infinity;
  for (const v of values) out = Math.min(out, v);
  return out;
}

/** NaNs count as 0; an empty window sums to 0. */
export function sum(values: readonly number[]): number {
  let out = 0;
  for (const v of values) out += Number.isNaN(v) ? 0 : v;
  return out;
}

export function unweightedAvg(values: readonly number[]): number {
  let avg = 0;
  let count = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    avg += v;
    count++;
  }
  return count === 0 ? NaN : avg / count;
}

/** Population standard deviation around `avg` (NaN when avg is). */
export function stdDev(values: readonly number[], avg: number): number {
  if (Number.isNaN(avg)) return NaN;
  let count = 0;
  let squaredMean = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    squaredMean += (v - avg) ** 2;
    count++;
  }
  return Math.sqrt(squaredMean / count);
}

/** Weights 1, 2, 3, ... by age, newest heaviest; the total weight starts at 1, as Elasticsearch's does. */
export function linearWeightedAvg(values: readonly number[]): number {
  let avg = 0;
  let totalWeight = 1;
  let current = 1;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    avg += v * current;
    totalWeight += current;
    current++;
  }
  return totalWeight === 1 ? NaN : avg / totalWeight;
}

export function ewma(values: readonly number[], alpha: number): number {
  let avg = NaN;
  let first = true;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (first) {
      avg = v;
      first = false;
    } else {
      avg = v * alpha + avg * (1 - alpha);
    }
  }
  return avg;
}

/** Double exponential smoothing; the first forecast is the last smoothed level, as MovingFunctions.holt returns. */
export function holt(values: readonly number[], alpha: number, beta: number): number {
  if (values.length === 0) return NaN;
  let s = 0;
  let lastS = 0;
  let lastB = 0;
  let counter = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (counter === 0) {
      // the first value is the level, with no trend yet
      s = v;
    } else {
      s = alpha * v + (1 - alpha) * (lastS + lastB);
      lastB = beta * (s - lastS) + (1 - beta) * lastB;
    }
    counter++;
    lastS = s;
  }
  return counter === 0 ? NaN : s;
}

/** Triple exponential smoothing with a season of `period` values (at least two seasons in the window). */
export function holtWinters(values: readonly number[], alpha: number, beta: number, gamma: number, period: number, multiplicative: boolean): number {
  if (values.length === 0) return NaN;
  const padding = multiplicative ? 0.0000000001 : 0;
  if (values.length < period * 2) {
    throw new RangeError(
      `Holt-Winters aggregation requires at least (2 * period == 2 * ${period} == ${2 * period}) data-points to function.  Only [${values.length}] were provided.`,
    );
  }
  const vs = new Float64Array(values.length);
  let counter = 0;
  for (const v of values) if (!Number.isNaN(v)) vs[counter++] = v + padding;
  if (counter === 0) return NaN;
  let s = 0;
  let b = 0;
  for (let i = 0; i < period; i++) {
    s += vs[i]!;
    b += (vs[i + period]! - vs[i]!) / period;
  }
  s /= period;
  b /= period;
  let lastS = s;
  let lastB = 0;
  const seasonal = new Float64Array(values.length);
  if (s !== 0) for (let i = 0; i < period; i++) seasonal[i] = vs[i]! / s;
  for (let i = period; i < vs.length; i++) {
    s = multiplicative
      ? alpha * (vs[i]! / seasonal[i - period]!) + (1 - alpha) * (lastS + lastB)
      : alpha * (vs[i]! - seasonal[i - period]!) + (1 - alpha) * (lastS + lastB);
    b = beta * (s - lastS) + (1 - beta) * lastB;
    seasonal[i] = multiplicative
      ? gamma * (vs[i]! / (lastS + lastB)) + (1 - gamma) * seasonal[i - period]!
      : gamma * (vs[i]! - (lastS - lastB)) + (1 - gamma) * seasonal[i - period]!;
    lastS = s;
    lastB = b;
  }
  const idx = values.length - period;
  return multiplicative ? (s + b) * seasonal[idx]! : s + b + seasonal[idx]!;
}

type Arg = number | boolean | null | readonly number[];
type ArgError = (got: Arg, what: string) => Error;

function arr(x: Arg, err: ArgError): readonly number[] {
  if (Array.isArray(x)) return x as readonly number[];
  throw err(x, 'double[]');
}

function dbl(x: Arg, err: ArgError): number {
  if (typeof x === 'number') return x;
  throw err(x, 'double');
}

function flag(x: Arg, err: ArgError): boolean {
  if (typeof x === 'boolean') return x;
  throw err(x, 'boolean');
}

/** The functions a script may call, with their arity, reading Painless values. */
export const MOVING_FUNCTIONS = {
  max: { arity: 1, call: (a: readonly Arg[], e: ArgError) => max(arr(a[0]!, e)) },
  min: { arity: 1, call: (a: readonly Arg[], e: ArgError) => min(arr(a[0]!, e)) },
  sum: { arity: 1, call: (a: readonly Arg[], e: ArgError) => sum(arr(a[0]!, e)) },
  unweightedAvg: { arity: 1, call: (a: readonly Arg[], e: ArgError) => unweightedAvg(arr(a[0]!, e)) },
  linearWeightedAvg: { arity: 1, call: (a: readonly Arg[], e: ArgError) => linearWeightedAvg(arr(a[0]!, e)) },
  stdDev: { arity: 2, call: (a: readonly Arg[], e: ArgError) => stdDev(arr(a[0]!, e), dbl(a[1]!, e)) },
  ewma: { arity: 2, call: (a: readonly Arg[], e: ArgError) => ewma(arr(a[0]!, e), dbl(a[1]!, e)) },
  holt: { arity: 3, call: (a: readonly Arg[], e: ArgError) => holt(arr(a[0]!, e), dbl(a[1]!, e), dbl(a[2]!, e)) },
  holtWinters: {
    arity: 6,
    call: (a: readonly Arg[], e: ArgError) => holtWinters(arr(a[0]!, e), dbl(a[1]!, e), dbl(a[2]!, e), dbl(a[3]!, e), Math.trunc(dbl(a[4]!, e)), flag(a[5]!, e)),
  },
} as const;

export type MovingFunctionName = keyof typeof MOVING_FUNCTIONS;
