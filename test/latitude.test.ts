import { describe, expect, test } from 'vitest';
import { expectNoProcessWarnings } from './helpers/process-warnings.js';
import { LATITUDE_VARIANTS } from '../reference/variants.js';
import { runEveryCheck } from '../app/check-recordings.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

describe.concurrent("conforming servers that use the spec's latitude pass with no failure and no warning", () => {
  expectNoProcessWarnings();

  // The whole CLI once (config from flags and the environment, the checks' process, the report, the exit code)...
  test('the reference server itself, through the CLI', async () => {
    await withServer([], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      const bad = run.report!.checks.filter((c) => c.status !== 'passed');
      expect(bad.map((c) => `${c.id}: ${c.status}: ${c.message}`)).toEqual([]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    });
  });
  // ...and each variant through the one engine the CLI runs, in this process (as the mutants test does), over HTTPS, at
  // the same settings: the preflight, then every check. A CLI run per variant cost four times the CPU for no more proof.
  for (const v of LATITUDE_VARIANTS) {
    test(`${v.name}: ${v.description}`, async () => {
      const { records, errors } = await runEveryCheck([v]);
      expect(errors).toEqual([]);
      const bad = records.filter((c) => c.status === 'failed' || c.status === 'error');
      expect(bad.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      // Judged in full, as CONFORMANT needs: latitude never leaves a check blocked or unfinished (per-merchant ids
      // once left ISO-01 and ISO-03 with nothing to ask, and a conforming server PARTIAL at best).
      const notJudged = records.filter((c) => c.status === 'skipped' || c.status === 'incomplete');
      expect(notJudged.map((c) => `${c.id}: ${c.status}: ${c.message}`)).toEqual([]);
    });
  }
});
