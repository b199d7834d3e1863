import { describe, expect, test } from 'vitest';
import { LATITUDE_VARIANTS } from '../reference/variants.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

const variant = (name: string) => LATITUDE_VARIANTS.find((v) => v.name === name)!;

/** §5.6 leaves token lifetime open: a server that ends tokens passes, and the profile says what it did. */
describe.concurrent('token lifetime is not shown (§5.6)', () => {
  test("a server that ends an application's earlier tokens when it issues a new one: nothing fails, the profile says so", async () => {
    await withServer([variant('new-token-revokes-previous')], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.report!.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      const info = run.report!.checks.find((c) => c.id === 'INFO-AUTH-TOKEN')!;
      expect(info.message).toContain('the earlier token is refused (401) once a new one is issued');
    });
  });

  test('a token that expires mid-run is renewed once; the checks that met the expiry go on and note it', async () => {
    await withServer([variant('first-token-expires')], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.report!.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      expect(run.report!.checks.find((c) => c.id === 'INFO-AUTH-TOKEN')!.message).toContain(
        'the run authenticated once more and went on with the new token',
      );
      expect(run.report!.checks.some((c) => c.notes.some((n) => n.includes('authenticated once more and sent')))).toBe(
        true,
      );
      expect(run.code).toBe(0);
    });
  });
});
