import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { ALL_CHECKS } from '../suites/index.js';
import { packageRoot, tool } from '../core/base/paths.js';

/** The command line keeps the conventions people expect of one (issue 15, item 5). */
describe.concurrent('command-line conventions', () => {
  test('--help groups the options and shows each value type, default and environment variable', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    const groups = ['Target and credentials:', 'Selection:', 'Limits:', 'Output:', 'General:'];
    const at = groups.map((g) => run.stdout.indexOf(g));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(run.stdout).toMatch(
      /--timeout-ms <ms> +Per-request deadline in ms \[default: 10000\] \[CONFORMANCE_TIMEOUT_MS\]/,
    );
    expect(run.stdout).toMatch(/--only <id>/);
    expect(run.stdout).toMatch(/--version, -V/);
  });

  test('every subcommand takes --help and -h: its usage on stdout, exit 0, nothing else done', async () => {
    const commands = ['openapi', 'serve', 'check-har', 'baseline', 'diff', 'merge', 'catalogue'];
    const asked = commands.flatMap((command) => ['--help', '-h'].map((flag) => [command, flag] as const));
    const runs = await Promise.all(asked.map((args) => runCli([...args])));
    for (const [i, [command, flag]] of asked.entries()) {
      const run = runs[i]!;
      expect(run.code, `${command} ${flag}: ${run.stderr}`).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout, `${command} ${flag}`).toMatch(new RegExp(`^Usage: conformance ${command}\\b`));
      // Help, not the command: no catalogue, no document, no sandbox.
      expect(run.stdout).not.toMatch(/^\| AUTH-01/m);
      expect(run.stdout).not.toMatch(/^openapi: 3\.1/m);
      expect(run.stdout).not.toContain('Sandbox:');
    }
    // Help wins over other arguments; an unknown argument of catalogue is a usage error.
    expect((await runCli(['openapi', '--format', 'xml', '-h'])).code).toBe(0);
    const extra = await runCli(['catalogue', 'extra']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^conformance: catalogue: .*see catalogue --help/);
  });

  test("a run writes nothing into the package's own install (Vitest's results cache included)", async () => {
    // The package as installed, in a folder of its own; its dependencies linked, not copied.
    const install = tempDir('conformance-install-');
    for (const part of ['bin', 'dist', 'schemas', 'spec', 'package.json'])
      cpSync(join(packageRoot, part), join(install, part), { recursive: true });
    mkdirSync(join(install, 'node_modules'));
    for (const dep of readdirSync(join(packageRoot, 'node_modules')))
      if (dep !== '.vite') symlinkSync(join(packageRoot, 'node_modules', dep), join(install, 'node_modules', dep));
    const files = (): string[] => readdirSync(install, { recursive: true, encoding: 'utf8' }).sort();
    const before = files();
    const run = await runCli(['--demo', '--fuzz-runs', '3', '-q'], { script: join(install, 'bin', 'conformance.js') });
    expect(run.code, run.stderr).toBe(0);
    expect(run.report?.verdict).toBe('conformant');
    expect(files()).toEqual(before);
  });

  test('-V prints the version; --list prints the catalogue as a table', async () => {
    const v = await runCli(['-V']);
    expect(v.stdout).toBe(`${tool.name} ${tool.version}\n`);
    const list = await runCli(['--list']);
    expect(list.code).toBe(0);
    const rows = list.stdout.trim().split('\n');
    expect(rows).toHaveLength(ALL_CHECKS.length);
    expect(rows[0]).toMatch(/^AUTH-01\s+MUST\s+auth\s+\/auth issues a token/);
  });

  test('a base URL with user:password is refused without printing the password', async () => {
    const run = await runCli(['--base-url', 'https://bob:hunter2@x.test/open', '--secret', 'a', '--key', 'b']);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stdout).toBe('');
  });

  test('paths in a config file are relative to its folder, wherever the command runs', async () => {
    await withServer([], async (srv) => {
      const dir = tempDir('relative-');
      mkdirSync(join(dir, 'ci', 'certs'), { recursive: true });
      writeFileSync(join(dir, 'ci', 'certs', 'ca.pem'), (await import('node:fs')).readFileSync(srv.caFile!));
      writeFileSync(
        join(dir, 'ci', 'conformance.yaml'),
        `base_url: ${srv.baseUrl}\ntls:\n  ca_file: certs/ca.pem\nreport:\n  dir: out\n`,
      );
      const run = await runCli(['--config', 'ci/conformance.yaml', '--only', 'AUTH-01'], { env: targetEnv, cwd: dir });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(join(dir, 'ci', 'out', 'report.json'));
    });
  });

  test('--quiet prints the verdict and findings only; FORCE_COLOR colours, --no-color does not', async () => {
    await withServer([], async (srv) => {
      const quiet = await runCli(targetArgs(srv, ['--only', 'AUTH-0*', '--quiet']), { env: targetEnv });
      expect(quiet.code).toBe(0);
      expect(quiet.stdout).not.toMatch(/^ {2}PASS/m);
      expect(quiet.stdout).not.toMatch(/By area:/);
      expect(quiet.stdout).toMatch(/^PASSED, PARTIAL: /m);
      const forced = await runCli(targetArgs(srv, ['--only', 'AUTH-01']), { env: { ...targetEnv, FORCE_COLOR: '1' } });
      expect(forced.stdout).toContain('\x1b[32mPASS');
      const plain = await runCli(targetArgs(srv, ['--only', 'AUTH-01', '--no-color']), {
        env: { ...targetEnv, FORCE_COLOR: '0' },
      });
      expect(plain.stdout).not.toContain('\x1b[');
    });
  });

  test('INFO observations are shown in the results, grouped by area in a stable order', async () => {
    await withServer([], async (srv) => {
      const run = await runCli(targetArgs(srv, ['--only', 'INFO-*']), { env: targetEnv });
      const ids = [...run.stdout.matchAll(/^ {2}\S+ +(INFO-\S+)/gm)].map((m) => m[1]);
      expect(ids).toEqual(['INFO-AUTH-TOKEN', ...ids.slice(1)]);
      expect(run.stdout.indexOf('\nauth (')).toBeLessThan(run.stdout.indexOf('\nerrors ('));
      // An area's header counts observations as INFO, never as passed (issue 25).
      const headers = run.stdout.split('\n').filter((l) => /^[a-z]+ \(.*\):$/.test(l));
      expect(headers.length).toBeGreaterThan(1);
      for (const h of headers) expect(h).toMatch(/^[a-z]+ \(\d+ INFO\):$/);
      expect(run.stdout).toMatch(
        /^ {2}INFO {7}INFO-AUTH-TOKEN +Whether \/auth issues a new token on every call.* — observed: \S/m,
      );
    });
  });
});
