import { afterAll, describe, expect, test } from 'vitest';
import { MUTANTS } from '../reference/mutants/index.js';
import { ALL_CHECKS } from '../suites/index.js';
import { failedIds, runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { syncReadmeBlock } from './helpers/readme.js';

const killed = new Set<string>();
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
        completed++;
      });
    });
  }
});

test('every mutant names checks that exist, at MUST or SHOULD level', () => {
  const byId = new Map(ALL_CHECKS.map((c) => [c.id, c]));
  for (const m of MUTANTS) for (const id of m.kills) expect(byId.get(id)?.level, `${m.name} kills ${id}`).toMatch(/MUST|SHOULD/);
});

afterAll(() => {
  const gated = ALL_CHECKS.filter((c) => c.level !== 'INFO');
  const covered = gated.filter((c) => killed.has(c.id));
  const missing = gated.filter((c) => !killed.has(c.id)).map((c) => c.id);
  // Only a complete, green run may speak for the README (a filtered or failing run kills fewer).
  if (completed !== MUTANTS.length) return;
  syncReadmeBlock('mutation-score', `**Mutation score: ${covered.length} / ${gated.length}** MUST and SHOULD checks are killed by a mutant of the reference server (${MUTANTS.length} mutants).${missing.length ? ` Not yet killed: ${missing.join(', ')}.` : ''}\n`);
});
