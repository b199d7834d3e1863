/**
 * A unit test per check: its pass and its fail, each over the handful of exchanges it made against the reference
 * server and against a mutant that breaks its rule (test/checks/recordings/<id>.json), replayed with no server.
 * Adding a check: `npm run recordings -- <ID>` writes its recordings; INFO checks never fail, so they have a pass only.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { failsOf, recordingsOf, replay } from './replay.js';
import { mutantsFor } from '../../app/check-recordings.js';

describe.concurrent('each check over its recordings', () => {
  for (const check of ALL_CHECKS) {
    const rec = recordingsOf(check.id);
    describe(check.id, () => {
      test("passes over the conforming server's exchanges, as it did live", async () => {
        expect(rec.pass, `no recordings/${check.id}.json: run \`npm run recordings -- ${check.id}\``).toBeDefined();
        const r = await replay(check, rec.pass!.config, rec.pass!.exchanges);
        expect(r.status).toBe('passed');
        expect(r.message).toBe(rec.pass!.message);
      });
      // INFO checks record what the server does and never fail: they have a pass only.
      if (check.level !== 'INFO')
        test(`fails over the exchanges of ${rec.fail?.variant ?? 'its mutant'}, as it did live`, async () => {
          expect(
            rec.fail,
            `no fail recording in recordings/${check.id}.json: give the check a mutant (reference/mutants)`,
          ).toBeDefined();
          expect(rec.fail!.status, 'the recording itself is of a failure').toBe('failed');
          const r = await replay(check, rec.fail!.config, rec.fail!.exchanges);
          expect(r.status).toBe('failed');
          // What failed, not the message: findings of concurrent requests are listed in the order the answers came.
          expect(r.fingerprints).toEqual(rec.fail!.fingerprints);
        });
      // One per further mutant of the check: each way of failing a mutant proves fails over its own exchanges.
      for (const other of rec.others ?? [])
        test(`fails over the exchanges of ${other.variant}, as it did live`, async () => {
          expect(other.status, 'the recording itself is of a failure').toBe('failed');
          const r = await replay(check, other.config, other.exchanges);
          expect(r.status).toBe('failed');
          expect(r.fingerprints).toEqual(other.fingerprints);
        });
    });
  }
});

test('every check has its unit recordings: a pass, and a fail unless it is INFO (INFO checks never fail)', () => {
  const missing = ALL_CHECKS.flatMap((c) => {
    const rec = recordingsOf(c.id);
    return [...(rec.pass ? [] : [`${c.id} (pass)`]), ...(rec.fail || c.level === 'INFO' ? [] : [`${c.id} (fail)`])];
  });
  expect(missing, 'checks without recordings: run `npm run recordings -- <ID>`').toEqual([]);
});

test('every mutant of a check has its fail recording, unless the check alone does not fail it (then it is named)', () => {
  const unrecorded = ALL_CHECKS.filter((c) => c.level !== 'INFO').flatMap((c) => {
    const rec = recordingsOf(c.id);
    const held = new Set([...failsOf(rec).map((r) => r.variant), ...(rec.notAlone ?? [])]);
    return mutantsFor(c.id)
      .filter((m) => !held.has(m.name))
      .map((m) => `${c.id} against ${m.name}`);
  });
  expect(unrecorded, 'run `npm run recordings -- <ID>`').toEqual([]);
});
