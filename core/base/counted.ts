/** A count and its noun as every output writes it: "1 check", "61 checks", "1,000 orders" (never "check(s)"). */
export const counted = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
