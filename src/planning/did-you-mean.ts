// "Did you mean …?" for a name that is not in a closed vocabulary (capability names): the known
// name at the smallest edit distance, when it is close enough to be a slip of the keyboard rather
// than another name altogether.

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest of `known` to `name` (case-insensitive), or undefined when none is close. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  // A third of the name's length, at least one edit and at most three: `servce.restart` is a
  // slip, `net.fetch` for `web.fetch` is not far either, `deploy` for `service.status` is not one.
  const allowed = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(name: string, known: readonly string[]): string {
  const suggestion = closestName(name, known);
  return suggestion ? ` (did you mean "${suggestion}"?)` : '';
}
