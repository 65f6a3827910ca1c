/** Waiting on something with a limit, where running out is an answer rather than an error. */

/** `answer`, or null once `ms` passed without it (the answer may still come later). */
export function orNullAfter<T>(answer: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, ms));
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}
