// Target patterns in policy rules, commitments and grants: `*` stands for any run of
// characters, `?` for exactly one; everything else is literal. Matching is whole-string.

const MAX_PATTERN_LENGTH = 512;
const PATTERN_CHARS = /^[\x21-\x7e]+$/;

/** Null when the pattern is acceptable, else why not. */
export function checkTargetPattern(pattern: unknown): string | null {
  if (typeof pattern !== 'string' || pattern.length === 0) return 'a target pattern must be a non-empty string';
  if (pattern.length > MAX_PATTERN_LENGTH) return `a target pattern is at most ${MAX_PATTERN_LENGTH} characters`;
  if (!PATTERN_CHARS.test(pattern)) return 'a target pattern uses printable ASCII without spaces';
  return null;
}

export function matchesTarget(pattern: string, target: string): boolean {
  // Iterative glob match with backtracking on the last `*`: linear enough for short
  // patterns and immune to the catastrophic backtracking a naive regex could show.
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < target.length) {
    const c = pattern[p];
    if (c === '?' || (c !== undefined && c !== '*' && c === target[t])) {
      p += 1;
      t += 1;
    } else if (c === '*') {
      star = p;
      resume = t;
      p += 1;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/**
 * True when every target `narrower` matches is also matched by `wider`. Sound, not complete: a
 * pattern equal to the wider one, or one the wider pattern matches as a plain string, when the
 * wider one has no `?` (its `*` then absorbs any wildcard of the narrower one; a `?` could stand
 * for a `*` and so admit more than one character).
 */
export function patternWithin(narrower: string, wider: string): boolean {
  if (narrower === wider) return true;
  const hasWildcard = narrower.includes('*') || narrower.includes('?');
  if (wider.includes('?') && hasWildcard) return false;
  return matchesTarget(wider, narrower);
}

/**
 * How specific a pattern is: an exact target beats any pattern; among patterns, more literal
 * characters win. Used to pick the most specific matching rule.
 */
export function patternSpecificity(pattern: string): number {
  const wildcards = [...pattern].filter((c) => c === '*' || c === '?').length;
  if (wildcards === 0) return 100_000 + pattern.length;
  return (pattern.length - wildcards) * 10 - wildcards;
}
