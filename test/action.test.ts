import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { DEFAULTS } from '../core/config/config.js';
import { packageRoot } from '../core/base/paths.js';
import type { Report } from '../core/model/report.js';
import { REPORT_FILES } from '../reporters/index.js';
import { ActionInputError, shellWords } from '../app/action-inputs.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import {
  newJob,
  readAction,
  readCommandFile,
  runAction,
  uploadArtifact,
  type ActionRun,
  type UsesEffect,
} from './helpers/composite-action.js';
import { installTarball, PACKAGE_NAME, packTarball } from './helpers/pack.js';
import { withServer } from './helpers/target.js';

const action = readAction(packageRoot);

/**
 * The `uses:` steps' effects. actions/setup-node@v4 would put Node `node-version` first on PATH: this machine's Node
 * is new enough, so the step must be skipped, and a run that reaches it fails the test. actions/upload-artifact@v4
 * adds an artifact to the workflow run (see uploadArtifact).
 */
function effects(artifacts: Map<string, string[]>): Record<string, UsesEffect> {
  return {
    'actions/setup-node@v4': () => {
      throw new Error(`setup-node ran although this machine's Node ${process.versions.node} is new enough`);
    },
    'actions/upload-artifact@v4': uploadArtifact(artifacts),
  };
}

const stepOf = (run: ActionRun, name: RegExp) => run.steps.find((s) => name.test(s.step))!;

describe('the GitHub Action (action.yml)', () => {
  test('declares the target, the credentials as inputs, the verdict as outputs, and never interpolates inputs into a script', () => {
    expect(action.runs.using).toBe('composite');
    for (const k of [
      'base-url',
      'secret',
      'key',
      'other-secret',
      'other-key',
      'baseline',
      'strict',
      'upload-report',
      'artifact-name',
    ])
      expect(action.inputs[k], k).toBeDefined();
    expect(Object.keys(action.outputs)).toEqual(['verdict', 'verdict-word', 'exit-code', 'report-dir', 'report-files']);
    for (const s of action.runs.steps)
      if (s.run) expect(s.run, `${s.name}: inputs go through env`).not.toMatch(/\$\{\{/);
    // A setting the user did not give is the config file's (or the suite's default), never the action's.
    for (const k of ['strict', 'report-dir', 'baseline', 'config', 'args'])
      expect(action.inputs[k]!.default, k).toBe('');
    // No lock file ships with the package: nothing runs `npm ci`, and Node 20 (past its end of life) is not set up.
    expect(action.runs.steps.map((s) => s.run ?? '').join('\n')).not.toMatch(/npm ci\b/);
    const setupNode = action.runs.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
    expect(setupNode.if).toBeDefined();
    expect(Number(setupNode.with!['node-version'])).toBeGreaterThanOrEqual(22);
  });

  test("a runner's Node older than the package's engines, or none, gets the current LTS; a new enough one is left as it is", async () => {
    // Whether the action set up Node on a runner whose PATH is `path`.
    const setsUpNode = async (path: string): Promise<boolean> => {
      const job = newJob(tempDir('action-node-'), 'node');
      job.env.PATH = path;
      const run = await runAction(packageRoot, { 'base-url': 'http://127.0.0.1:9', secret: 's', key: 'k' }, job, {
        // Ends the run there: what follows needs the Node this test does not install.
        'actions/setup-node@v4': () => {
          throw new Error('Node not installed by this test');
        },
        'actions/upload-artifact@v4': () => ({}),
      });
      return stepOf(run, /^Set up Node/).outcome !== 'skipped';
    };
    // This machine's Node (20.19 or newer, as the package needs): no setup-node.
    const here = join(process.execPath, '..');
    expect(await setsUpNode(`${here}:/usr/bin:/bin`)).toBe(false);
    // No Node at all.
    expect(await setsUpNode('/nonexistent')).toBe(true);
    // Node 18: a `node` that reports 18.20.4.
    const old = tempDir('node18-');
    writeFileSync(
      join(old, 'fake18.cjs'),
      'Object.defineProperty(process, "versions", { value: { ...process.versions, node: "18.20.4" } });\n',
    );
    writeFileSync(join(old, 'node'), `#!/bin/sh\nexec '${process.execPath}' --require '${old}/fake18.cjs' "$@"\n`);
    chmodSync(join(old, 'node'), 0o755);
    expect(await setsUpNode(`${old}:/usr/bin:/bin`)).toBe(true);
  });

  test('the suite sets the step outputs verdict, report-dir and report-files in a form no file name can break, one safe path per line', () => {
    const outputs = (files: string[]): Record<string, string> =>
      readCommandFile(
        execFileSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `const { stepOutputs } = await import(${JSON.stringify(join(packageRoot, 'dist/reporters/github.js'))});
             process.stdout.write(stepOutputs({ verdict: 'partial' }, ${JSON.stringify(files)}));`,
          ],
          { encoding: 'utf8' },
        ),
      );
    expect(outputs(['/r/x/report.json', '/r/x/junit.xml'])).toEqual({
      verdict: 'partial',
      'verdict-word': 'PASSED, PARTIAL',
      'report-dir': '/r/x',
      'report-files': '/r/x/report.json\n/r/x/junit.xml',
    });
    // A path that upload-artifact would read as two patterns, or as a glob: no path at all (the Action refuses such a
    // folder before the run; this holds whatever set it).
    for (const dir of ['/r/x\nverdict=conformant', '/r/x\n/home/u/.ssh', '/r/*', '/r/[ab]', '/r/a?'])
      expect(outputs([`${dir}/report.json`, `${dir}/junit.xml`]), dir).toEqual({
        verdict: 'partial',
        'verdict-word': 'PASSED, PARTIAL',
        'report-dir': '',
        'report-files': '',
      });
  });

  test('from the packed tarball, installed by npm and vendored, its steps honour the config file, name each artifact once and mention one only when uploaded', async () => {
    const { dir, tarball } = packTarball();
    // Way 1: the package installed by npm into the user's project; `uses: ./node_modules/restaurant-open-platform-conformance`.
    const project = join(dir, 'project');
    mkdirSync(project);
    const installed = installTarball(tarball, project);
    expect(existsSync(join(installed, 'action.yml'))).toBe(true);
    // Way 2: the tarball unpacked into the user's repository, no dependencies; `uses: ./.github/actions/conformance`.
    const repo = join(dir, 'repo');
    const vendored = join(repo, '.github', 'actions', 'conformance');
    mkdirSync(vendored, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', vendored, '--strip-components=1']);
    // A config file that asks for certification and its own report folder (relative to the file).
    for (const ws of [project, repo])
      writeFileSync(join(ws, 'conformance.yaml'), 'strict: true\nreport:\n  dir: reports/from-config\n');

    await withServer(
      [],
      async (srv) => {
        const artifacts = new Map<string, string[]>();
        const target = {
          'base-url': srv.baseUrl,
          secret: CREDENTIALS.app.secret,
          key: CREDENTIALS.app.key,
          // A selection: PASSED, PARTIAL at best, so `strict` decides the exit code.
          args: '--only AUTH-* --seed 1',
        };
        const logOf = (run: ActionRun): string => run.steps.map((s) => s.log).join('\n');

        // 1. strict and report-dir not given: the config file's strict (exit 3) and report.dir hold.
        const job = newJob(project, 'conformance');
        const first = await runAction(installed, { ...target, config: 'conformance.yaml' }, job, effects(artifacts));
        expect(stepOf(first, /^Set up Node/).outcome).toBe('skipped');
        expect(first.outputs, logOf(first)).toMatchObject({
          verdict: 'partial',
          'verdict-word': 'PASSED, PARTIAL',
          'exit-code': '3',
        });
        expect(first.failed).toBe(true);
        const fromConfig = join(project, 'reports', 'from-config');
        expect(first.outputs['report-dir']).toBe(fromConfig);
        expect((JSON.parse(readFileSync(join(fromConfig, 'report.json'), 'utf8')) as Report).verdict).toBe('partial');
        expect(existsSync(join(project, 'conformance-report'))).toBe(false);
        expect(logOf(first)).not.toContain(CREDENTIALS.app.key);

        // 2. The same job again, without the config: the suite's defaults (strict off, ./conformance-report).
        const second = await runAction(installed, target, job, effects(artifacts));
        expect(second.outputs, logOf(second)).toMatchObject({
          verdict: 'partial',
          'verdict-word': 'PASSED, PARTIAL',
          'exit-code': '0',
        });
        expect(second.failed, logOf(second)).toBe(false);
        expect(existsSync(join(project, 'conformance-report', 'report.json'))).toBe(true);

        // Two artifacts, each with only the report files of its own run.
        expect([...artifacts.keys()]).toEqual([
          'conformance-report-conformance-0',
          'conformance-report-conformance-0-2',
        ]);
        expect(
          artifacts
            .get('conformance-report-conformance-0')!
            .map((f) => basename(f))
            .sort(),
        ).toEqual(['junit.xml', 'report.html', 'report.json']);
        expect(artifacts.get('conformance-report-conformance-0')!.every((f) => f.startsWith(fromConfig))).toBe(true);
        expect(job.summary).toContain('Conformance: PASSED, PARTIAL');
        expect(job.summary).toContain('in the artifact [conformance-report-conformance-0](');
        expect(job.summary).toContain('in the artifact [conformance-report-conformance-0-2](');

        // 3. The vendored copy in the second job of a matrix: it installs its dependencies into the runner's temp
        // folder (npm's cache where it has them), not into the repository; a given input wins over the file.
        const matrix = newJob(repo, 'conformance', { index: 1, total: 2 });
        matrix.env.npm_config_prefer_offline = 'true';
        const third = await runAction(
          vendored,
          { ...target, config: 'conformance.yaml', strict: 'false', 'report-dir': 'given' },
          matrix,
          effects(artifacts),
        );
        expect(third.outputs, logOf(third)).toMatchObject({
          verdict: 'partial',
          'verdict-word': 'PASSED, PARTIAL',
          'exit-code': '0',
        });
        expect(existsSync(join(repo, 'given', 'report.json'))).toBe(true);
        expect(existsSync(join(repo, 'node_modules'))).toBe(false);
        expect(existsSync(join(vendored, 'node_modules'))).toBe(false);
        expect(readdirSync(matrix.temp).some((f) => f.startsWith('restaurant-open-platform-conformance-'))).toBe(true);
        expect([...artifacts.keys()]).toContain('conformance-report-conformance-1');

        // 4. upload-report false: no artifact, and the summary mentions none.
        const before = artifacts.size;
        const summaryBefore = matrix.summary.length;
        const fourth = await runAction(vendored, { ...target, 'upload-report': 'false' }, matrix, effects(artifacts));
        expect(fourth.outputs, logOf(fourth)).toMatchObject({
          verdict: 'partial',
          'verdict-word': 'PASSED, PARTIAL',
          'exit-code': '0',
        });
        expect(artifacts.size).toBe(before);
        const summary = matrix.summary.slice(summaryBefore);
        expect(summary).toContain('Conformance: PASSED, PARTIAL');
        expect(summary).not.toMatch(/artifact/i);

        // 5. A wrong key pair: a setup stop, whose own report says NOTHING JUDGED; a usage error writes none.
        const wrong = await runAction(vendored, { ...target, key: 'sk_wrong' }, matrix, effects(artifacts));
        expect(wrong.outputs, logOf(wrong)).toMatchObject({ verdict: 'nothing judged', 'exit-code': '3' });
        const usage = await runAction(
          vendored,
          { ...target, args: '--only NO-SUCH-CHECK' },
          matrix,
          effects(artifacts),
        );
        expect(usage.outputs, logOf(usage)).toMatchObject({ 'exit-code': '2' });
        expect(usage.outputs.verdict ?? '', 'a usage error has no verdict').toBe('');
      },
      { https: false },
    );
  }, 240_000);
});

describe('the Action in CI: args as a shell means them, a failing --strict says why, paths checked first', () => {
  const workspace = (): string => tempDir('action-ws-');
  const logOf = (run: ActionRun): string => run.steps.map((s) => s.log).join('\n');
  const noUpload: Record<string, UsesEffect> = effects(new Map());

  test("args reach the CLI as a shell user means them; a --strict PARTIAL fails the job with an ::error and a summary that say so; report-dir and report-files are the Action's outputs; JUnit's suite times are wall times", async () => {
    await withServer(
      [],
      async (srv) => {
        const ws = workspace();
        const job = newJob(ws, 'conformance');
        const artifacts = new Map<string, string[]>();
        const run = await runAction(
          packageRoot,
          {
            'base-url': srv.baseUrl,
            secret: CREDENTIALS.app.secret,
            key: CREDENTIALS.app.key,
            strict: 'true',
            // Quoted as in a shell: the quotes are no part of the patterns.
            args: `--only 'AUTH-*' --only "ENV-*" --seed 1`,
          },
          job,
          effects(artifacts),
        );
        const log = logOf(run);
        expect(run.outputs, log).toMatchObject({ verdict: 'partial', 'exit-code': '3' });
        expect(run.failed).toBe(true);
        const dir = join(ws, 'conformance-report');
        expect(run.outputs['report-dir']).toBe(dir);
        expect(run.outputs['report-files']!.split('\n').sort()).toEqual(
          ['junit.xml', 'report.html', 'report.json'].map((f) => join(dir, f)),
        );
        expect([...artifacts.values()][0]!.sort()).toEqual(run.outputs['report-files']!.split('\n').sort());
        const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
        expect(new Set(report.checks.map((c) => c.id.split('-')[0]))).toEqual(new Set(['AUTH', 'ENV']));
        // Why the job failed, though no check did: an annotation and the summary's header.
        expect(log).toMatch(
          /^::error title=PASSED%2C PARTIAL fails the job \(--strict\)::the job fails \(exit 3\): \d+ MUST checks not run/m,
        );
        expect(job.summary).toMatch(/^## ❌ Conformance: PASSED, PARTIAL — the job fails \(--strict, exit 3\)\n/m);
        // JUnit: each area's time is wall time (its first check's start to its last one's end, within the run's),
        // not the sum of its checks' durations (test/junit-wall-time.test.ts has an area of a later phase).
        const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
        const runTime = Number(/<testsuites [^>]*time="([\d.]+)"/.exec(junit)![1]);
        const suites = [...junit.matchAll(/<testsuite name="([^"]+)"[^>]* time="([\d.]+)"/g)];
        expect(suites.length).toBeGreaterThan(1);
        for (const [, area, time] of suites) {
          const checks = report.checks.filter((c) => c.area === area);
          const span =
            Math.max(...checks.map((c) => c.start_ms! + c.duration_ms)) - Math.min(...checks.map((c) => c.start_ms!));
          expect(Number(time), area).toBeLessThanOrEqual(runTime);
          expect(Number(time), area).toBeCloseTo(span / 1000, 2);
        }
      },
      { https: false },
    );
  }, 120_000);

  test('args are split as a POSIX shell splits words, with nothing expanded or run', () => {
    expect(shellWords(`--only 'ISO-*' --only "AUTH-*" --only ENV-*`)).toEqual([
      '--only',
      'ISO-*',
      '--only',
      'AUTH-*',
      '--only',
      'ENV-*',
    ]);
    expect(shellWords(`  --baseline 'my file.yaml'\t--seed  1 \n`)).toEqual([
      '--baseline',
      'my file.yaml',
      '--seed',
      '1',
    ]);
    expect(shellWords(`a\\ b "c \\"d\\" \\$e \\\\" 'f\\g' h''i "" ''`)).toEqual([
      'a b',
      'c "d" $e \\',
      'f\\g',
      'hi',
      '',
      '',
    ]);
    expect(shellWords(`--seed \\\n1 '$HOME' "a'b"`)).toEqual(['--seed', '1', '$HOME', "a'b"]);
    expect(shellWords('')).toEqual([]);
    for (const bad of [
      '$HOME',
      'a;b',
      'a && b',
      'a | b',
      '> f',
      '<f',
      '$(id)',
      '`id`',
      '"$x"',
      '(a)',
      '~/x',
      '# c',
      "'a",
      '"a',
      'a\\',
    ])
      expect(() => shellWords(bad), bad).toThrow(ActionInputError);
  });

  test.each([
    [
      'report-dir with a line break',
      { 'report-dir': 'reports\n/home/runner/.ssh' },
      {},
      /^conformance: the input report-dir "reports\\n\/home\/runner\/\.ssh" holds a line break: /,
    ],
    [
      'report-dir with a glob',
      { 'report-dir': 'reports/*' },
      {},
      /^conformance: the input report-dir "reports\/\*" holds the glob character \*: /,
    ],
    [
      'CONFORMANCE_REPORT_DIR with a line break',
      {},
      { CONFORMANCE_REPORT_DIR: 'r\nsecret-files/id_rsa' },
      /^conformance: CONFORMANCE_REPORT_DIR "r\\nsecret-files\/id_rsa" holds a line break: /,
    ],
    [
      '--report-dir in args with a glob',
      { args: "--report-dir 'r/[ab]'" },
      {},
      /^conformance: --report-dir in args "r\/\[ab\]" holds the glob character \[: /,
    ],
    [
      'artifact-name with a /',
      { 'artifact-name': 'reports/of-today' },
      {},
      /^conformance: the input artifact-name "reports\/of-today" holds the character \/, which upload-artifact refuses in an artifact name: /,
    ],
    [
      'artifact-name with a |',
      { 'artifact-name': 'a|b' },
      {},
      /^conformance: the input artifact-name "a\|b" holds the character \|, which upload-artifact refuses/,
    ],
    [
      'args that a shell would run',
      { args: '--seed $(touch pwned)' },
      {},
      /^conformance: args: an unquoted \$ at character 8: a shell would expand it, and the Action runs no shell; /,
    ],
    [
      'args with a backtick in double quotes',
      { args: '--seed "`touch pwned`"' },
      {},
      /^conformance: args: ` in "…" at character 9: a shell would run a command/,
    ],
    [
      'args with an unclosed quote',
      { args: "--only 'ISO-*" },
      {},
      /^conformance: args: a ' that is never closed at character 8/,
    ],
  ])('%s: one line, exit 2, before any request, nothing uploaded', async (_what, given, env, line) => {
    const ws = workspace();
    const job = newJob(ws, 'conformance');
    Object.assign(job.env, env);
    const artifacts = new Map<string, string[]>();
    // Port 9: nothing listens; a run that started would say "cannot reach" (exit 3).
    const run = await runAction(
      packageRoot,
      { 'base-url': 'http://127.0.0.1:9/open', secret: 's', key: 'k', ...given },
      job,
      effects(artifacts),
    );
    const step = stepOf(run, /^Check the API/);
    expect(step.exitCode, step.log).toBe(2);
    expect(step.log.split('\n').filter(Boolean)).toEqual([expect.stringMatching(line)]);
    expect(run.outputs).toMatchObject({ 'exit-code': '2', 'report-files': '', 'report-dir': '' });
    expect(artifacts.size).toBe(0);
    expect(existsSync(join(ws, 'pwned'))).toBe(false);
    expect(readdirSync(ws)).toEqual([]);
  });

  test("a config file's report.dir with a line break is refused before the run too", async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'conformance.yaml'), 'report:\n  dir: "r\\n/etc"\n');
    const run = await runAction(
      packageRoot,
      { 'base-url': 'http://127.0.0.1:9/open', secret: 's', key: 'k', config: 'conformance.yaml' },
      newJob(ws, 'conformance'),
      noUpload,
    );
    const step = stepOf(run, /^Check the API/);
    expect(step.exitCode, step.log).toBe(2);
    expect(step.log).toMatch(/^conformance: report\.dir of conformance\.yaml "\S+\\n\/etc" holds a line break: /);
  });
});

describe('the CI examples', () => {
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  const example = (name: string): { text: string; doc: Record<string, unknown> } => {
    const text = readFileSync(join(packageRoot, 'examples', name), 'utf8');
    return { text, doc: parse(text) as Record<string, unknown> };
  };
  /** Every `restaurant-open-platform-conformance@X` in a text names this version: the examples run the release. */
  const pinnedVersions = (text: string): string[] =>
    [...text.matchAll(new RegExp(`${PACKAGE_NAME}@([^\\s'"]+)`, 'g'))].map((m) => m[1]!);

  test('the GitHub workflow uses the Action from the package, installed or vendored, with inputs it has', () => {
    const { text, doc } = example('github-actions.yml');
    expect(text).not.toMatch(/OWNER|REPO@/);
    expect(pinnedVersions(text).length).toBeGreaterThan(0);
    expect(new Set(pinnedVersions(text))).toEqual(new Set([version]));
    const jobs = doc.jobs as Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
    const uses = Object.values(jobs).flatMap((j) => j.steps.filter((s) => s.uses?.startsWith('./')));
    expect(uses.map((s) => s.uses).sort()).toEqual([`./.github/actions/conformance`, `./node_modules/${PACKAGE_NAME}`]);
    for (const step of uses) {
      for (const k of Object.keys(step.with ?? {})) expect(action.inputs[k], `input ${k}`).toBeDefined();
      for (const [k, spec] of Object.entries(action.inputs))
        if (spec.required) expect(step.with?.[k], `required input ${k}`).toBeDefined();
    }
  });

  test('the GitLab job runs the release by version, keeps junit.xml as a JUnit report always, and lets only exit code 3 pass with a warning', () => {
    const { text, doc } = example('gitlab-ci.yml');
    const job = doc.conformance as {
      script: string[];
      allow_failure: { exit_codes: number[] };
      artifacts: { when: string; paths: string[]; reports: { junit: string } };
    };
    expect(new Set(pinnedVersions(job.script.join('\n')))).toEqual(new Set([version]));
    expect(job.script.join('\n')).toMatch(new RegExp(`^npx --yes ${PACKAGE_NAME}@`, 'm'));
    expect(job.artifacts.when).toBe('always');
    // Where the suite writes junit.xml when nothing else is said.
    expect(job.artifacts.reports.junit).toBe(`${DEFAULTS.report_dir}/${REPORT_FILES.junit}`);
    expect(job.artifacts.paths).toEqual([`${DEFAULTS.report_dir}/`]);
    expect(job.allow_failure.exit_codes).toEqual([3]);
    // Each exit code is explained.
    for (const code of [0, 1, 2, 3]) expect(text).toMatch(new RegExp(`^#\\s+${code}\\s+\\S`, 'm'));
  });
});
