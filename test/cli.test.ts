import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { CONFIGURED_SECRETS, targetArgs, targetEnv, withServer } from './helpers/target.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { validate } from '../core/spec/schemas.js';

const SECRETS = CONFIGURED_SECRETS;

describe.concurrent('the CLI end to end', () => {
  test('--demo runs every check against the bundled reference server, skips none and exits 0', async () => {
    const run = await runCli(['--demo', '--fuzz-runs', '20']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const r = run.report!;
    expect(r.verdict).toBe('conformant');
    expect(r.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.summary.passed).toBe(r.checks.length);
    expect(run.stdout).toContain('CONFORMANT');
    expect(run.stdout).toMatch(/Report: .*report\.json/);
    expect(validate('report', r)).toEqual([]);
  });

  test('no secret reaches the terminal or any report file of a run (test/secrets.test.ts covers a server that echoes them)', async () => {
    await withServer([], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      const dir = join(run.dir, 'conformance-report');
      const files = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
      for (const text of [run.stdout, run.stderr, ...files])
        for (const s of SECRETS) expect(text.includes(s)).toBe(false);
      // Tokens the server issued during the run are secrets too: none may appear in the evidence.
      expect(files.join('\n')).not.toMatch(/tok_[A-Za-z0-9_-]{20,}/);
    });
  });

  test('a server that skips the token check on one endpoint fails the run (exit 1) naming the check', async () => {
    const mutant = MUTANTS.find((m) => m.name === 'no-token-check-seats')!;
    await withServer([mutant], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/FAIL\s+UNAUTH-SEATS/);
    });
  });

  test('--demo honours the settings it does not fix, such as a baseline (a stale entry fails the run)', async () => {
    const dir = tempDir('demo-');
    writeFileSync(join(dir, 'known.yaml'), '- id: SEAT-01\n  reason: fixed since\n');
    const run = await runCli(['--demo', '--fuzz-runs', '5', '--baseline', 'known.yaml'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.report!.checks.find((c) => c.id === 'SEAT-01')?.baseline?.state).toBe('stale');
  });

  test('a misspelt config key exits 2 with one line naming it', async () => {
    const dir = tempDir('cfg-');
    writeFileSync(
      join(dir, 'c.yaml'),
      'base_url: https://127.0.0.1:9/open\napp:\n  secret: a\n  key: b\ntimout_ms: 5\n',
    );
    const run = await runCli(['--config', 'c.yaml'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('conformance: unknown config key timout_ms (did you mean timeout_ms?)\n');
    expect(run.stdout).toBe('');
  });

  test.each([
    [['--base-url', 'not a url', '--secret', 'a', '--key', 'b'], /--base-url: base_url "not a url" has no scheme/],
    [['--secret', 'a', '--key', 'b'], /missing base_url/],
    [['--base-url', 'https://x.test/open'], /missing credentials/],
    [
      ['--base-url', 'https://x.test/open', '--secret', 'a', '--key', 'b', '--timeout-ms=-5'],
      /--timeout-ms -5: must be an integer of at least 1$/m,
    ],
    [['--bogus'], /unknown option --bogus/],
  ])('bad input %j exits 2 with one line', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a target that refuses connections exits 3 with one line', async () => {
    const run = await runCli(['--base-url', 'http://127.0.0.1:9/open'], {
      env: { CONFORMANCE_SECRET: 'a', CONFORMANCE_KEY: 'b' },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('conformance: cannot reach http://127.0.0.1:9/open: connection refused\n');
  });

  test('${ENV} in the config file is filled from the environment, and flags win over env over file', async () => {
    await withServer([], async (srv) => {
      const dir = tempDir('cfg-');
      writeFileSync(
        join(dir, 'c.yaml'),
        `base_url: http://127.0.0.1:9/wrong\napp:\n  secret: \${MY_PK}\n  key: \${MY_SK}\nconcurrency: 1\n`,
      );
      const run = await runCli(
        ['--config', 'c.yaml', '--base-url', srv.baseUrl, '--ca-file', srv.caFile!, '--only', 'AUTH-0*'],
        {
          cwd: dir,
          env: { MY_PK: CREDENTIALS.app.secret, MY_SK: CREDENTIALS.app.key, CONFORMANCE_CONCURRENCY: '2' },
        },
      );
      expect(run.code).toBe(0);
      expect(run.report!.config.concurrency).toBe(2);
      expect(run.report!.target.base_url).toBe(srv.baseUrl);
      expect(run.report!.checks.map((c) => c.id).every((id) => id.startsWith('AUTH-0'))).toBe(true);
    });
  });
});
