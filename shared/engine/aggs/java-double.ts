/**
 * Java's `Double.toString`, which Elasticsearch uses to print raw double keys
 * (`"100.0-200.0"` range keys, `"99.0"` percentile keys, histogram keyed
 * buckets): at least one fractional digit, scientific notation (`1.0E7`,
 * `1.0E-4`) outside [1e-3, 1e7).
 */
export function javaDoubleToString(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(value);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(value);
    if (s.includes('e')) return plainFromExponential(value);
    return s.includes('.') ? s : `${s}.0`;
  }
  // Shortest round-trip digits, as Java prints them: d.dddE±n
  const [mantissa, exp] = value.toExponential().split('e') as [string, string];
  const m = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  const e = Number(exp);
  return `${m}E${e}`;
}

function plainFromExponential(value: number): string {
  // Only reached for values in [1e-3, 1e7) that String() prints in exponent form (never in practice).
  const s = value.toFixed(20).replace(/0+$/, '');
  return s.endsWith('.') ? `${s}0` : s;
}
