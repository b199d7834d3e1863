/**
 * The longest chain of round trips a run waited through, measured from the run's own exchanges as the server saw
 * them: when each request arrived and when its answer was sent.
 *
 * Definition (the bench's "waves"): the length of the longest sequence of exchanges each of which arrived after the
 * previous one's answer was sent. In a run where no request waits for a free slot (concurrency at least the run's
 * request count), an exchange that starts only after another ended either needed its answer (a token, a list's ids,
 * a check that decides on what it read) or was held back by the client itself (its own order, its CPU): either way a
 * round trip the run paid in series, which no concurrency removes. So chain × round trip is a floor of that run: the
 * dependency floor. Measured in a run limited by its concurrency, the waves would also count the waits for a slot
 * (at least requests ÷ concurrency of them), which the throughput floor already counts.
 */

/** One exchange as the server saw it, in ms on one clock: the request's arrival and the end of its answer. */
export interface Span {
  start: number;
  end: number;
}

/**
 * The longest sequence of exchanges each starting after the previous one ended, first to last (empty for none).
 * O(n log n): the spans by end, a running best, and a pointer to the last span that ended before each start.
 */
export function longestChain<S extends Span>(spans: readonly S[]): S[] {
  const byEnd = [...spans].sort((a, b) => a.end - b.end);
  const byStart = [...spans].sort((a, b) => a.start - b.start);
  // best[i]: the longest chain ending in one of the first i spans by end, as its last span (undefined for none).
  const best: Array<S | undefined> = [undefined];
  const length = new Map<S, number>();
  const before = new Map<S, S | undefined>();
  const len = (x: S | undefined): number => (x === undefined ? 0 : length.get(x)!);
  let ended = 0;
  for (const s of byStart) {
    // Every span that ended strictly before s started may precede it; it started earlier, so its chain is known.
    while (ended < byEnd.length && byEnd[ended]!.end < s.start) {
      const e = byEnd[ended]!;
      const top = best.at(-1);
      best.push(len(e) > len(top) ? e : top);
      ended++;
    }
    const prev = best[ended];
    length.set(s, len(prev) + 1);
    before.set(s, prev);
  }
  let last: S | undefined;
  for (const s of spans) if (len(s) > len(last)) last = s;
  const path: S[] = [];
  for (let x = last; x !== undefined; x = before.get(x)) path.unshift(x);
  return path;
}
