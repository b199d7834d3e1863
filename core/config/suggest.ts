/** Edit distance (Levenshtein) between two short strings, case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[y.length]!;
}

/** The closest candidates to what the user typed (at most `max`, within a third of its length), for "did you mean". */
export function closest(typed: string, candidates: readonly string[], max = 3): string[] {
  const limit = Math.max(2, Math.ceil(typed.length / 3));
  return candidates
    .map((c) => ({ c, d: distance(typed, c) }))
    .filter((x) => x.d <= limit)
    .sort((p, q) => p.d - q.d || p.c.localeCompare(q.c))
    .slice(0, max)
    .map((x) => x.c);
}

/** "A", "A or B", "A, B or C": the words of a choice. */
export function orList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? '');
}

/** " (did you mean A or B?)", or nothing when no candidate is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const near = closest(typed, candidates);
  return near.length ? ` (did you mean ${orList(near)}?)` : '';
}
