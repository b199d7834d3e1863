import { afterAll, describe, expect, test } from 'vitest';
import { MUTANTS } from '../reference/mutants/index.js';
import { ALL_CHECKS } from '../suites/index.js';
import { failedIds, runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { syncReadmeBlock } from './helpers/readme.js';

/**
 * MUST and SHOULD checks that no mutant can fail alone, and why: each fails only when another check fails too, so
 * a mutant that kills it kills one of `alongside` as well. The static test holds every mutant to that claim, and
 * fails when one of these gets an exclusive mutant after all (then it leaves this list). Empty today: AUTH-05 judges
 * refusals only and ENV-01 the envelope of answers that are not refusals, so each has a mutant of its own.
 */
const NEVER_ALONE: Record<string, { why: string; alongside: string[] }> = {};

const gated = ALL_CHECKS.filter((c) => c.level !== 'INFO');
const exclusive = (id: string): boolean => MUTANTS.some((m) => m.kills.length === 1 && m.kills[0] === id);

const killed = new Set<string>();
const killedAlone = new Set<string>();
let completed = 0;

describe.concurrent('each mutant of the reference server is caught by exactly the checks meant for it', () => {
  for (const m of MUTANTS) {
    test(`${m.name}: ${m.description}`, async () => {
      await withServer([m], async (srv) => {
        const run = await runCli(targetArgs(srv), { env: targetEnv });
        expect(run.stderr).toBe('');
        expect(failedIds(run.report)).toEqual([...m.kills].sort());
        expect(run.code).toBe(run.report!.checks.some((c) => c.level === 'MUST' && c.status === 'failed') ? 1 : 0);
        for (const id of m.kills) killed.add(id);
        if (m.kills.length === 1) killedAlone.add(m.kills[0]!);
        completed++;
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
    const missing = gated.filter((c) => !exclusive(c.id) && !NEVER_ALONE[c.id]).map((c) => `${c.id} (${c.title})`);
    const how =
      'add one to reference/mutants/<area>.ts (prefer a Variant.render-style change of one rendered thing, ' +
      'so no other check notices)';
    expect(missing, `checks without a mutant that only they catch: ${how}: ${missing.join('; ')}`).toEqual([]);
  });

  test('the checks that never fail alone are still so; each of their mutants kills a check they fail with', () => {
    const ids = new Set(gated.map((c) => c.id));
    for (const [id, { alongside }] of Object.entries(NEVER_ALONE)) {
      expect(ids.has(id), `${id} is listed in NEVER_ALONE but is no MUST or SHOULD check`).toBe(true);
      expect(exclusive(id), `${id} now has a mutant that only it catches: remove it from NEVER_ALONE`).toBe(false);
      const killers = MUTANTS.filter((m) => m.kills.includes(id));
      expect(killers.length, `${id}: no mutant kills it at all`).toBeGreaterThan(0);
      for (const m of killers) {
        const why = `${m.name} kills ${id} without any of ${alongside.join(', ')}`;
        expect(
          m.kills.some((k) => alongside.includes(k)),
          why,
        ).toBe(true);
      }
    }
  });
});

afterAll(() => {
  const covered = gated.filter((c) => killed.has(c.id));
  const missing = gated.filter((c) => !killed.has(c.id)).map((c) => c.id);
  const alone = gated.filter((c) => killedAlone.has(c.id));
  const notAlone = gated.filter((c) => killed.has(c.id) && !killedAlone.has(c.id));
  // Only a complete, green run may speak for the README (a filtered or failing run kills fewer).
  if (completed !== MUTANTS.length) return;
  const why = notAlone.map((c) => `${c.id} (${NEVER_ALONE[c.id]?.why ?? 'no reason recorded'})`).join('; ');
  const score =
    `**Mutation score: ${covered.length} / ${gated.length}** MUST and SHOULD checks are killed by a mutant ` +
    `of the reference server (${MUTANTS.length} mutants); ${alone.length} of them by a mutant that only they catch.`;
  const notYet = missing.length ? ` Not yet killed: ${missing.join(', ')}.` : '';
  const never = notAlone.length ? ` Never caught alone, since each fails only with another check: ${why}.` : '';
  syncReadmeBlock('mutation-score', `${score}${notYet}${never}\n`);
});
