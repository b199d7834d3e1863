import { describe, expect, test } from 'vitest';
import { LATITUDE_VARIANTS } from '../reference/variants.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

describe.concurrent("conforming servers that use the spec's latitude pass with no failure and no warning", () => {
  test('the reference server itself', async () => {
    await withServer([], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      const bad = run.report!.checks.filter((c) => c.status !== 'passed');
      expect(bad.map((c) => `${c.id}: ${c.status}: ${c.message}`)).toEqual([]);
      expect(run.code).toBe(0);
    });
  });
  for (const v of LATITUDE_VARIANTS) {
    test(`${v.name}: ${v.description}`, async () => {
      await withServer([v], async (srv) => {
        const run = await runCli(targetArgs(srv), { env: targetEnv });
        const bad = run.report!.checks.filter((c) => c.status === 'failed' || c.status === 'error');
        expect(bad.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
        expect(run.code).toBe(0);
      });
    });
  }
});
