let digits: Intl.NumberFormat | undefined;

/**
 * A number as every output writes it, its thousands grouped: "1,234,567". One formatter made at first use:
 * `n.toLocaleString('en-US')` makes one on every call (about 5 µs each; a report's thousand counts took 5 ms).
 */
export const grouped = (n: number): string => (digits ??= new Intl.NumberFormat('en-US')).format(n);

/** A count and its noun as every output writes it: "1 check", "61 checks", "1,000 orders" (never "check(s)"). */
export const counted = (n: number, word: string): string => `${grouped(n)} ${word}${n === 1 ? '' : 's'}`;
