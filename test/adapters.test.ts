import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, tool } from '../core/base/paths.js';
import type { Report } from '../core/model/report.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import type { RunningServer } from '../reference/server.js';
import { ALL_CHECKS } from '../suites/index.js';
import { conformanceChecks, runConformance, type ConformanceConfig } from '../app/api.js';
import { withServer } from './helpers/target.js';
import { failedIds, runCli } from './helpers/cli.js';

/**
 * Issue 36: the engine is the host; the programmatic API, node:test and Vitest are adapters over it. For the same
 * server and seed, each fails exactly the checks the CLI fails and writes the same report.json.
 */

/** The config of a run against a reference server: every application, its CA, unsafe methods, a fixed seed. */
const configFor = (srv: RunningServer): ConformanceConfig => ({
  base_url: srv.baseUrl,
  app: CREDENTIALS.app,
  other_app: CREDENTIALS.other_app,
  disabled_app: CREDENTIALS.disabled_app,
  tls: { ca_file: srv.caFile },
  unsafe_methods: true,
  fuzz: { runs: 5, seed: 7 },
});

/** A project of its own with the package linked under node_modules (and Vitest, when asked), and the given files. */
function project(files: Record<string, string>, vitest = false): string {
  const dir = tempDir('conformance-adapters-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(packageRoot, join(dir, 'node_modules', tool.name), 'dir');
  if (vitest) symlinkSync(join(packageRoot, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir');
  return dir;
}

function run(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string; report?: Report }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const file = join(cwd, 'conformance-report', 'report.json');
      resolve({ code, out, ...(existsSync(file) ? { report: JSON.parse(readFileSync(file, 'utf8')) as Report } : {}) });
    });
  });
}

/** The check ids of the tests node:test says failed ("not ok N - ID title" in its TAP output). */
const tapFailures = (out: string): string[] =>
  [...out.matchAll(/^\s*not ok \d+ - ([A-Z][A-Z0-9-]+) /gm)].map((m) => m[1]!).sort();

/** The check ids of the tests Vitest says failed ("FAIL file > conformance > area > ID title"). */
const vitestFailures = (out: string): string[] =>
  [...new Set([...out.matchAll(/^\s*FAIL\s.* > ([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+) /gm)].map((m) => m[1]!))].sort();

const NODE_TEST_FILE = `import { conformanceTests } from '${tool.name}/node-test';
conformanceTests(() => JSON.parse(process.env.TARGET_CONFIG), { report: { dir: 'conformance-report' } });
`;

const VITEST_CONFIG = `import { defineConfig } from 'vitest/config';
import { ConformanceReporter } from '${tool.name}/reporter';
export default defineConfig({ test: { include: ['test/**/*.test.mjs'], testTimeout: 120_000,
  reporters: ['default', new ConformanceReporter({ dir: 'conformance-report' })] } });
`;
const VITEST_FILE = `import { conformanceSuite } from '${tool.name}/vitest';
conformanceSuite(() => JSON.parse(process.env.TARGET_CONFIG));
`;

describe('adapters agree with the CLI (same server, same seed)', () => {
  test('against a mutant: the CLI, runConformance, node --test and Vitest 4 fail exactly the same checks, and write the same verdict', async () => {
    const mutant = MUTANTS.find((m) => m.name === 'status-lowercase')!;
    await withServer([mutant], async (srv) => {
      const config = configFor(srv);
      const dir = project({ 'conformance.yaml': JSON.stringify(config) });
      const cli = await runCli(['--config', join(dir, 'conformance.yaml')], { cwd: dir });
      expect(cli.code, cli.stderr).toBe(1);
      const expected = failedIds(cli.report);
      expect(expected).toEqual([...mutant.kills].sort());

      // The programmatic API, in this process.
      const report = await runConformance(config);
      expect(failedIds(report)).toEqual(expected);
      expect(report.verdict).toBe(cli.report!.verdict);
      expect(report.exit_code).toBe(1);
      expect(report.checks.map((c) => c.id).sort()).toEqual(cli.report!.checks.map((c) => c.id).sort());

      // node:test, from a project of its own: its failing tests are the CLI's failed checks, and its report says so.
      const nt = project({ 'test/conformance.test.mjs': NODE_TEST_FILE });
      const node = await run(['--test', '--test-reporter=tap', 'test/conformance.test.mjs'], nt, {
        TARGET_CONFIG: JSON.stringify(config),
      });
      expect(node.code, node.out).toBe(1);
      expect(tapFailures(node.out)).toEqual(expected);
      expect(failedIds(node.report)).toEqual(expected);
      expect(node.report!.verdict).toBe(cli.report!.verdict);
      expect(node.report!.fuzz).toEqual(cli.report!.fuzz);
      expect(node.report!.config).toMatchObject({ mode: 'library (node:test)' });

      // Vitest 4 (this checkout's), from a project of its own.
      const vt = project({ 'vitest.config.mjs': VITEST_CONFIG, 'test/conformance.test.mjs': VITEST_FILE }, true);
      const vitest = await run([join(packageRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], vt, {
        TARGET_CONFIG: JSON.stringify(config),
        CI: 'true',
        NO_COLOR: '1',
      });
      expect(vitest.code, vitest.out).toBe(1);
      expect(vitestFailures(vitest.out)).toEqual(expected);
      expect(failedIds(vitest.report)).toEqual(expected);
      expect(vitest.report!.verdict).toBe(cli.report!.verdict);
    });
  });

  test('conformanceChecks: the checks as plain values over one session; each run() resolves with its own record', async () => {
    await withServer([], async (srv) => {
      const checks = conformanceChecks(configFor(srv), { only: ['AUTH-*'] });
      const auth = ALL_CHECKS.filter((c) => c.id.startsWith('AUTH-'));
      expect(checks.map((c) => c.id)).toEqual(auth.map((c) => c.id));
      expect(checks[0]).toMatchObject({
        id: auth[0]!.id,
        title: auth[0]!.title,
        level: auth[0]!.level,
        section: auth[0]!.spec,
      });
      // One session: the first run() starts the engine on all of them; each resolves with its own record.
      const records = await Promise.all(checks.map((c) => c.run()));
      expect(records.map((r) => r.id)).toEqual(checks.map((c) => c.id));
      expect(records.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.message}`)).toEqual([]);
      // Asked again, a check gives the same record: it is not run twice.
      expect(await checks[0]!.run()).toBe(records[0]);
    });
    // A config mistake is one line, as the CLI says it.
    await expect(runConformance({ base_url: 'not a url', app: { secret: 'a', key: 'b' } })).rejects.toThrow(
      /^runConformance: /,
    );
    expect(() =>
      conformanceChecks({ base_url: 'https://x.invalid', app: { secret: 'a', key: 'b' } }, { only: ['NOPE-*'] }),
    ).toThrow(/^conformanceChecks: /);
  });
});

describe('examples/node-test, as a vendor has it', () => {
  test('node --test against the sandbox its test starts: every check passes, and the report says CONFORMANT', async () => {
    const dir = project({});
    cpSync(join(packageRoot, 'examples', 'node-test'), dir, { recursive: true });
    const node = await run(['--test', '--test-reporter=tap', 'test/conformance.test.mjs'], dir);
    expect(node.code, node.out).toBe(0);
    expect(tapFailures(node.out)).toEqual([]);
    expect(node.out).toContain('Conformance: CONFORMANT');
    expect(node.report!.verdict).toBe('conformant');
    expect(node.report!.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
    expect(existsSync(join(dir, 'conformance-report', 'junit.xml'))).toBe(true);
  });
});

describe('the CLI runs no test runner', () => {
  test('with Vitest unresolvable (a loader hook refuses it) the run is CONFORMANT: Vitest is not in its process tree', async () => {
    const dir = tempDir('conformance-no-vitest-');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `export async function resolve(specifier, context, next) {
  if (specifier === 'vitest' || specifier.startsWith('vitest/')) throw new Error('vitest is not installed here');
  return next(specifier, context);
}
`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${hooks}`).href)});\n`,
    );
    const run = await runCli(['--demo', '--fuzz-runs', '5'], {
      cwd: dir,
      env: { NODE_OPTIONS: `--import=${register}` },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.report!.verdict).toBe('conformant');
  });
});
