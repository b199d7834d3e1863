/**
 * Each check's failure message over its fail recording, as it was live: the message is what a vendor reads, so a
 * changed word, a lost finding or a wrong count is a defect even when the same things failed (checks.test.ts compares
 * the fingerprints). Findings of concurrent requests are listed in the order the answers came, so the message is
 * compared as the multiset of its "; "-separated parts; a message cut to its first findings ("… and N more") lists
 * whichever came first, so its parts are compared only up to the cut: its lead and its count.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { recordingsOf, replay } from './replay.js';

/** A message as the sorted list of its parts; a cut one as its lead (before the first ": ") and the "more" count. */
function comparable(message: string): string[] {
  const more = /; … and (\d+) more$/.exec(message);
  if (more) return [message.slice(0, message.indexOf(': ')), `… and ${more[1]} more`];
  return message.split('; ').sort();
}

describe.concurrent('each check words its failure as it did live', () => {
  for (const check of ALL_CHECKS) {
    const fail = recordingsOf(check.id).fail;
    if (!fail) continue;
    test(check.id, async () => {
      const r = await replay(check, fail.config, fail.exchanges);
      expect(comparable(r.message)).toEqual(comparable(fail.message));
    });
  }
});
