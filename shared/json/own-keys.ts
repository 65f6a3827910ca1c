/**
 * Keys of request JSON are data. A document may have a field named
 * `__proto__`, an aggregation may be called `constructor`, and Elasticsearch
 * treats both like any other name. In JavaScript `obj['__proto__'] = v`
 * replaces obj's prototype instead (and `obj['__proto__'].x = v` pollutes
 * Object.prototype for the whole process), and `obj['constructor']` reads an
 * inherited function. Code that uses a name from a request as a key of a
 * plain object goes through these two functions.
 */

/** `obj[key] = value` as an own property, `__proto__` included. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: NoInfer<T>): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** `obj[key]` when obj has it as its own property; undefined for inherited names (`constructor`, `toString`, `__proto__`). */
export function getOwn<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
