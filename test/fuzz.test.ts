import { describe, expect, test } from 'vitest';
import { fuzzMutants } from '../reference/mutants/fuzz.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

const mutant = fuzzMutants.find((m) => m.name === 'fuzz-parseint-dish-ids')!;
const fuzzRecord = (run: Awaited<ReturnType<typeof runCli>>) => run.report!.checks.find((c) => c.id === 'FUZZ-01')!;
/** Fuzz requests of a run: the generated detail requests, not the lists and tokens the check builds on. */
const fuzzRequests = (run: Awaited<ReturnType<typeof runCli>>): number =>
  fuzzRecord(run).evidence.filter((e) => /\/(dishes|seats)\/[^/]/.test(e.request.url)).length;

describe('a failure found by fuzzing replays from its printed seed and path', () => {
  test(`${mutant.name}: the seed and path replay the same shrunk counterexample through the CLI`, async () => {
    await withServer([mutant], async (srv) => {
      const first = await runCli(targetArgs(srv, ['--only', 'FUZZ-01']), { env: targetEnv });
      const found = fuzzRecord(first);
      expect(found.status).toBe('failed');
      const fuzz = found.fuzz!;
      expect(fuzz.seed).toBe(12345);
      expect(fuzz.path).toMatch(/^\d+(:\d+)*$/);
      expect(fuzz.replay).toBe(`--seed ${fuzz.seed} --fuzz-path ${fuzz.path}`);
      // The shrunk counterexample is a dish id that names no id yet answered a dish ("101abc" style).
      expect(fuzz.counterexample).toMatch(/"dish_id":"\d/);
      expect(found.message).toContain(fuzz.counterexample);
      // The terminal prints the replay flags under the finding; the report carries them (report.json).
      expect(first.stdout).toContain(`replay: ${fuzz.replay}`);
      // Once: the message does not say it again (issue 38).
      expect(first.stdout.split(fuzz.replay).length - 1).toBe(1);

      const replay = await runCli(
        [...targetArgs(srv, ['--only', 'FUZZ-01']), '--seed', String(fuzz.seed), '--fuzz-path', fuzz.path],
        { env: targetEnv },
      );
      const again = fuzzRecord(replay);
      expect(again.status).toBe('failed');
      expect(again.fuzz?.counterexample).toBe(fuzz.counterexample);
      expect(again.fuzz?.path).toBe(fuzz.path);
      expect(replay.code).toBe(1);
      // A replay walks the path only: far fewer requests than the search that found it.
      expect(fuzzRequests(replay)).toBeLessThan(fuzzRequests(first));
    });
  });

  test('the same seed finds the same counterexample again (no hidden randomness)', async () => {
    await withServer([mutant], async (srv) => {
      const [a, b] = await Promise.all(
        [1, 2].map(() => runCli(targetArgs(srv, ['--only', 'FUZZ-01']), { env: targetEnv })),
      );
      expect(fuzzRecord(a!).fuzz).toEqual(fuzzRecord(b!).fuzz);
    });
  });
});
