import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, tool } from '../core/base/paths.js';
import type { Report } from '../core/model/report.js';
import { ALL_CHECKS } from '../suites/index.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { withServer } from './helpers/target.js';
import { failedIds } from './helpers/cli.js';
import { expectNoControls } from './helpers/ci-log.js';
import type { RunningServer, Variant } from '../reference/server.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { ciCommands, controlChars } from '../reference/hostile-twists.js';
import { hostileContent } from '../reference/variants-hostile-content.js';
import { onPath, withData, eachRecord } from '../reference/kit.js';
import { targetDirs } from '../app/vitest-reporter.js';

const EXAMPLE = join(packageRoot, 'examples', 'vitest-library');
const VITEST = join(packageRoot, 'node_modules', 'vitest', 'vitest.mjs');

/**
 * The example project as a vendor would have it: its own folder, the package and Vitest under node_modules (linked
 * to this checkout's build and Vitest), run with `vitest run` and its own config.
 */
function exampleProject(): string {
  const dir = tempDir('conformance-library-');
  cpSync(EXAMPLE, dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(packageRoot, join(dir, 'node_modules', tool.name), 'dir');
  symlinkSync(join(packageRoot, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir');
  return dir;
}

/**
 * A vendor's project of its own: the given files (config, tests) beside the package and Vitest under node_modules,
 * linked as in exampleProject.
 */
function ownProject(files: Record<string, string>): string {
  const dir = tempDir('conformance-library-own-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(packageRoot, join(dir, 'node_modules', tool.name), 'dir');
  symlinkSync(join(packageRoot, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir');
  return dir;
}

/** A project config with the conformance reporter (and any other reporters named). */
const projectConfig = (reporters: string[] = []): string => `import { defineConfig } from 'vitest/config';
import { ConformanceReporter } from '${tool.name}/reporter';
export default defineConfig({
  test: {
    include: ['test/**/*.test.mjs'],
    testTimeout: 120_000,
    reporters: ['default', ${reporters.map((r) => `'${r}', `).join('')}new ConformanceReporter({ dir: 'conformance-report' })],
  },
});
`;

/** A test file that checks the target whose config (JSON) is in the environment variable \`variable\`. */
const suiteFile = (variable: string, name?: string): string => `import { conformanceSuite } from '${tool.name}/vitest';
conformanceSuite(() => JSON.parse(process.env.${variable}), ${JSON.stringify(name ? { name } : {})});
`;

/** A library-mode config for a reference server: every application, its CA, unsafe methods, a fixed seed. */
const configFor = (srv: RunningServer): string =>
  JSON.stringify({
    base_url: srv.baseUrl,
    app: CREDENTIALS.app,
    other_app: CREDENTIALS.other_app,
    disabled_app: CREDENTIALS.disabled_app,
    tls: { ca_file: srv.caFile },
    unsafe_methods: true,
    fuzz: { runs: 5, seed: 7 },
  });

const readReport = (file: string): Report => JSON.parse(readFileSync(file, 'utf8')) as Report;

function vitestRun(
  dir: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<{ code: number | null; out: string; report?: Report }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const file = join(dir, 'conformance-report', 'report.json');
      resolve({ code, out, ...(existsSync(file) ? { report: JSON.parse(readFileSync(file, 'utf8')) as Report } : {}) });
    });
  });
}

describe("library mode: conformanceSuite in a project's own Vitest (examples/vitest-library)", () => {
  test("against the server its test starts: every check passes, exit 0, and the reporter writes the CLI's report", async () => {
    const dir = exampleProject();
    const run = await vitestRun(dir);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('Conformance: CONFORMANT');
    const r = run.report!;
    expect(r.verdict).toBe('conformant');
    expect(r.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
    expect(r.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.fuzz).toEqual({ seed: 12345, runs: 20 });
    expect(existsSync(join(dir, 'conformance-report', 'junit.xml'))).toBe(true);
    // The fixture's key pairs are redacted in the report, as in a CLI run.
    expect(JSON.stringify(r)).not.toContain('sk_test_golden_dragon_Vb81mZ');
  });

  test('against a broken server: the same checks fail as in the CLI (a MUST failure fails the Vitest run), a SHOULD failure only warns', async () => {
    const must = MUTANTS.find((m) => m.name === 'status-lowercase')!;
    const should = MUTANTS.find((m) => m.name === 'device-field-table-only')!; // ORD-02, SHOULD (ENV-02 is MUST since issue 11)
    expect(must.kills.length).toBeGreaterThan(0);
    await withServer([must], async (srv) => {
      const run = await vitestRun(exampleProject(), { TARGET_URL: srv.baseUrl, TARGET_CA_FILE: srv.caFile! });
      expect(run.code, run.out).toBe(1);
      expect(failedIds(run.report)).toEqual([...must.kills].sort());
      expect(run.report!.verdict).toBe('not conformant');
      for (const id of must.kills) expect(run.out).toContain(id);
    });
    await withServer([should], async (srv) => {
      const run = await vitestRun(exampleProject(), { TARGET_URL: srv.baseUrl, TARGET_CA_FILE: srv.caFile! });
      expect(run.code, run.out).toBe(0);
      expect(failedIds(run.report)).toEqual(should.kills);
      expect(run.report!.verdict).toBe('conformant');
    });
  });

  test("Vitest's blob reports merged with --merge-reports give the same conformance report (the reporter reads the tests' meta)", async () => {
    const dir = exampleProject();
    const shard = await vitestRun(dir, {}, ['--shard=1/1', '--reporter=blob']);
    expect(shard.code, shard.out).toBe(0);
    expect(shard.report).toBeUndefined();
    const merged = await vitestRun(dir, {}, ['--merge-reports']);
    expect(merged.code, merged.out).toBe(0);
    expect(merged.report!.verdict).toBe('conformant');
    expect(merged.report!.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
    expect(merged.report!.fuzz).toEqual({ seed: 12345, runs: 20 });
  });
});

describe('library mode: one report per target (issue 23)', () => {
  test('the subdirectory of each conformanceSuite call: its name, else its file and name, else its place too', () => {
    expect(targetDirs([{ name: 'reference', file: 'test/a.test.mjs', call: 0 }])).toEqual(['reference']);
    expect(
      targetDirs([
        { name: 'conformance', file: 'test/a.test.mjs', call: 0 },
        { name: 'conformance', file: 'test/b.test.mjs', call: 0 },
        { name: 'staging', file: 'test/b.test.mjs', call: 1 },
        { name: 'x', file: 'test/c.test.mjs', call: 0 },
        { name: 'x', file: 'test/c.test.mjs', call: 1 },
        { name: '../../etc', file: 'test/d.test.mjs', call: 0 },
      ]),
    ).toEqual([
      'test-a.test.mjs-conformance',
      'test-b.test.mjs-conformance',
      'staging',
      'test-c.test.mjs-x-1',
      'test-c.test.mjs-x-2',
      'etc',
    ]);
    // Distinct names that slug alike still get distinct directories.
    expect(
      targetDirs([
        { name: 'a b', file: 'f', call: 0 },
        { name: 'a/b', file: 'f', call: 1 },
      ]),
    ).toEqual(['a-b', 'a-b-2']);
  });

  test("two files against two servers (the reference and a broken one): each report names its own target and holds that target's outcomes, also from merged shards", async () => {
    const broken = MUTANTS.find((m) => m.name === 'status-lowercase')!;
    await withServer([], (good) =>
      withServer([broken], async (bad) => {
        const dir = ownProject({
          'vitest.config.mjs': projectConfig(),
          'test/reference.test.mjs': suiteFile('GOOD_TARGET', 'reference'),
          'test/broken.test.mjs': suiteFile('BAD_TARGET', 'broken'),
        });
        const env = { GOOD_TARGET: configFor(good), BAD_TARGET: configFor(bad) };
        const expectReports = (out: string): void => {
          const reportDir = join(dir, 'conformance-report');
          expect(readdirSync(reportDir).sort(), out).toEqual(['broken', 'reference']);
          const ref = readReport(join(reportDir, 'reference', 'report.json'));
          const bro = readReport(join(reportDir, 'broken', 'report.json'));
          expect(ref.target.base_url).toBe(good.baseUrl);
          expect(bro.target.base_url).toBe(bad.baseUrl);
          for (const r of [ref, bro]) {
            expect(r.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
            expect(existsSync(join(reportDir, r === ref ? 'reference' : 'broken', 'junit.xml'))).toBe(true);
          }
          expect(ref.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
          expect(ref.verdict).toBe('conformant');
          expect(ref.config).toMatchObject({ suite: 'reference', test_file: 'test/reference.test.mjs' });
          expect(failedIds(bro)).toEqual([...broken.kills].sort());
          expect(bro.verdict).toBe('not conformant');
          expect(bro.config).toMatchObject({ suite: 'broken', test_file: 'test/broken.test.mjs' });
          // One line per target, each naming its own report.
          expect(out).toContain(`Conformance [reference, test/reference.test.mjs] ${good.baseUrl}: CONFORMANT`);
          expect(out).toContain(`Conformance [broken, test/broken.test.mjs] ${bad.baseUrl}: NOT CONFORMANT`);
        };
        const run = await vitestRun(dir, env);
        expect(run.code, run.out).toBe(1);
        expectReports(run.out);
        // No report.json at the top that names one target for both.
        expect(run.report).toBeUndefined();

        // Sharded as CI does (one file per shard, blob reports), then merged: the same two reports.
        const merged = ownProject({
          'vitest.config.mjs': projectConfig(),
          'test/reference.test.mjs': suiteFile('GOOD_TARGET', 'reference'),
          'test/broken.test.mjs': suiteFile('BAD_TARGET', 'broken'),
        });
        for (const shard of ['1/2', '2/2']) {
          const r = await vitestRun(merged, env, [`--shard=${shard}`, '--reporter=blob']);
          expect(r.code === 0 || r.code === 1, r.out).toBe(true);
        }
        expect(readdirSync(join(merged, '.vitest-reports'))).toHaveLength(2);
        const m = await vitestRun(merged, {}, ['--merge-reports']);
        expect(m.code, m.out).toBe(1);
        const mergedDir = join(merged, 'conformance-report');
        const again = (name: string): Report => readReport(join(mergedDir, name, 'report.json'));
        expect(again('reference').target.base_url).toBe(good.baseUrl);
        expect(again('reference').verdict).toBe('conformant');
        expect(again('broken').target.base_url).toBe(bad.baseUrl);
        expect(failedIds(again('broken'))).toEqual([...broken.kills].sort());
      }),
    );
  });
});

/** A dish id that is a CI workflow command: every message quoting a detail path quotes it. */
const forgedIds: Variant = onPath(
  'forged-ids',
  'GET /dishes lists a dish whose id is a workflow command',
  ['/dishes'],
  (r) =>
    withData(r, (d) =>
      eachRecord(d, (x, i) => {
        if (i === 0) x.id = `${String(x.id)}##[error title=FORGED]forged ::stop-commands::x \u001b[2J`;
      }),
    ),
);

describe('library mode: hostile server text reaches no CI log (issue 28)', () => {
  test("with GITHUB_ACTIONS=true, Vitest's output (errors, annotations, skips, our reporter's line) forms no workflow command and carries no terminal control", async () => {
    await withServer([ciCommands, controlChars, ...hostileContent, forgedIds], async (srv) => {
      const dir = ownProject({
        'vitest.config.mjs': projectConfig(['github-actions']),
        'test/hostile.test.mjs': suiteFile('TARGET', 'hostile'),
        // A config mistake quoting a hostile file name: Vitest prints the suite's setup error.
        'test/misconfigured.test.mjs': suiteFile('MISCONFIGURED', 'misconfigured'),
      });
      const summary = join(dir, 'step-summary.md');
      writeFileSync(summary, '');
      // Vitest's own colours off (NO_COLOR): every ESC left would be the server's.
      const run = await vitestRun(dir, {
        TARGET: configFor(srv),
        MISCONFIGURED: JSON.stringify({
          base_url: srv.baseUrl,
          app: CREDENTIALS.app,
          tls: { ca_file: '/nonexistent/x\n::error title=FORGED::y ##[error]z \u001b[2J\u202E.pem' },
        }),
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: summary,
        NO_COLOR: '1',
      });
      expect(run.code, run.out).toBe(1);
      const r = readReport(join(dir, 'conformance-report', 'hostile', 'report.json'));
      expect(run.out).toContain('conformanceSuite: cannot read tls.ca_file /nonexistent/x ⏎ ::error title=FORGED::y');
      // The server's text did reach the results (so it was there to print): the messages quote it.
      const messages = r.checks.map((c) => c.message).join('\n');
      expect(messages).toContain('##[set-output name=verdict;]conformant');
      expect(messages).toContain('\u001b');
      expect(messages).toContain('\u202E');
      expect(messages).toContain('##[error title=FORGED]');
      for (const [where, text] of [
        ['output', run.out],
        ['job summary', readFileSync(summary, 'utf8')],
      ] as const) {
        expectNoControls(where, text);
      }
      // Failures were printed, escaped: Vitest showed them.
      expect(run.out).toContain('#\\u0023[set-output name=verdict;]conformant');
      expect(run.out).toContain('#\\u0023[error title=FORGED]');
      // Every line that is a workflow command is one of Vitest's own annotations (an error or a warning of a test).
      const commands = run.out
        .split('\n')
        .map((l) => l.trimStart())
        .filter((l) => l.startsWith('::'));
      expect(commands.length).toBeGreaterThan(0);
      for (const c of commands) expect(c).toMatch(/^::(error|warning) file=[^:]*::/);
    });
  });
});
