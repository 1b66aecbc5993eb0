// "Did you mean …?" for a mistyped command, subcommand or flag: the known word nearest by edit
// distance (a swap of two neighbouring letters counts as one edit), when it is near enough to
// be what the user meant.

/** Edits (insert, delete, replace, swap neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate `word` most likely stands for, or undefined when none is near enough. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  // One edit in a short word, two in a longer one, three in a long one: "sesions", "--workspce".
  const allowed = typed.length <= 4 ? 1 : typed.length <= 10 ? 2 : 3;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance === 0 || distance > allowed) continue;
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  return best?.candidate;
}

/** " Did you mean `x`?" for a sentence's end, or "" when nothing is near. */
export function didYouMean(word: string, candidates: readonly string[], shown = (c: string) => c): string {
  const match = closest(word, candidates);
  return match === undefined ? "" : ` Did you mean \`${shown(match)}\`?`;
}
