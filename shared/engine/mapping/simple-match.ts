/**
 * Elasticsearch's Regex.simpleMatch: `*` matches any run of characters,
 * everything else itself. Patterns come from requests (index expressions,
 * `filter_path`, type and alias names) and are matched against names that may
 * be long, so the match is the two-pointer glob walk, at most pattern ×
 * text steps, never a backtracking regular expression (`.*a.*a.*a.*b` on a
 * long name took time exponential in the number of stars).
 */
export function simpleMatch(pattern: string, text: string): boolean {
  let pi = 0;
  let ti = 0;
  let star = -1;
  let starText = 0;
  while (ti < text.length) {
    const c = pattern.charCodeAt(pi);
    if (pi < pattern.length && c !== 0x2a && c === text.charCodeAt(ti)) {
      pi++;
      ti++;
    } else if (pi < pattern.length && c === 0x2a) {
      star = pi++;
      starText = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++starText;
    } else {
      return false;
    }
  }
  while (pi < pattern.length && pattern.charCodeAt(pi) === 0x2a) pi++;
  return pi === pattern.length;
}

/** A compiled simpleMatch pattern with RegExp's `test`, for code that keeps a list of patterns. */
export interface SimplePattern {
  test(text: string): boolean;
}

export function simplePattern(pattern: string): SimplePattern {
  return { test: (text) => simpleMatch(pattern, text) };
}
