import { describe, expect, test } from 'vitest';
import { MUTANTS, type Mutant } from '../reference/mutants/index.js';
import { ALL_CHECKS } from '../suites/index.js';
import { failedIds, runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { recordCheck } from '../app/check-recordings.js';
import { recordingsOf } from './checks/replay.js';

const gated = ALL_CHECKS.filter((c) => c.level !== 'INFO');
const exclusive = (id: string): boolean => MUTANTS.some((m) => m.kills.length === 1 && m.kills[0] === id);

describe.concurrent('each mutant of the reference server is caught by exactly the checks meant for it', () => {
  for (const m of MUTANTS) {
    test(`${m.name}: ${m.description}`, async () => {
      await withServer([m], async (srv) => {
        const run = await runCli(targetArgs(srv), { env: targetEnv });
        expect(run.stderr).toBe('');
        expect(failedIds(run.report)).toEqual([...m.kills].sort());
        expect(run.code).toBe(run.report!.checks.some((c) => c.level === 'MUST' && c.status === 'failed') ? 1 : 0);
      });
    });
  }
});

// #27: the unit tests replay each check's fail recording, so a recording must still be what its mutant does. Each is
// re-recorded live (one check against its named mutant, as `npm run recordings` captures it) and compared by status
// and fingerprints: a mutant changed since its recording, or a check that no longer fails it, shows here. All of
// them, every run: the 52 cost about 5 s in all (one server and one check each), so no subset is needed.
describe.concurrent('each fail recording is what its mutant does now (re-recorded live)', () => {
  for (const check of ALL_CHECKS) {
    const fail = recordingsOf(check.id).fail;
    if (!fail) continue;
    test(`${check.id} against ${fail.variant}`, async () => {
      const variants = fail.variant.split('+').map((name) => MUTANTS.find((m) => m.name === name));
      const stale = `recordings/${check.id}.json: run \`npm run recordings -- ${check.id}\``;
      expect(variants.every(Boolean), `${fail.variant} is no mutant any more; ${stale}`).toBe(true);
      const now = await recordCheck(check, variants as Mutant[]);
      expect({ status: now.status, fingerprints: now.fingerprints }, stale).toEqual({
        status: fail.status,
        fingerprints: fail.fingerprints,
      });
    });
  }
});

describe('mutation coverage (static, over MUTANTS)', () => {
  test('every mutant names checks that exist, at MUST or SHOULD level', () => {
    const byId = new Map(ALL_CHECKS.map((c) => [c.id, c]));
    for (const m of MUTANTS) {
      for (const id of m.kills) expect(byId.get(id)?.level, `${m.name} kills ${id}`).toMatch(/MUST|SHOULD/);
    }
  });

  test('mutant names are unique', () => {
    const seen = new Set<string>();
    const twice = MUTANTS.map((m) => m.name).filter((n) => seen.size === seen.add(n).size);
    expect(twice, 'mutant names used twice').toEqual([]);
  });

  test('every MUST and SHOULD check has a mutant that only it catches (kills exactly [that id])', () => {
    const missing = gated.filter((c) => !exclusive(c.id)).map((c) => `${c.id} (${c.title})`);
    const how =
      'add one to reference/mutants/<area>.ts (prefer a Variant.render-style change of one rendered thing, ' +
      'so no other check notices)';
    expect(missing, `checks without a mutant that only they catch: ${how}: ${missing.join('; ')}`).toEqual([]);
  });
});
