import { expect, test } from 'vitest';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

test('without other_app the isolation checks are skipped with a visible reason, never passed', async () => {
  await withServer([], async (srv) => {
    const env = Object.fromEntries(Object.entries(targetEnv).filter(([k]) => !k.startsWith('CONFORMANCE_OTHER_')));
    const run = await runCli(targetArgs(srv, ['--only', 'ISO-*']), { env });
    const iso = run.report!.checks.filter((c) => c.area === 'isolation');
    expect(iso.map((c) => c.id)).toEqual(['ISO-01', 'ISO-02', 'ISO-03', 'ISO-04']);
    for (const c of iso) {
      expect(c.status).toBe('skipped');
      expect(c.message).toMatch(/other_app/);
    }
    expect(run.stdout).toMatch(/ISO-01: not configured: needs other_app/);
    // Nothing was judged: never PASSED.
    expect(run.stdout).toMatch(/NOTHING JUDGED: no MUST check was judged/);
    expect(run.code).toBe(3);
  });
});
