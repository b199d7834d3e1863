import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { CONFIGURED_SECRETS, targetArgs, targetEnv, withServer } from './helpers/target.js';
import { MUTANTS } from '../reference/mutants/index.js';
import type { Variant } from '../reference/server.js';

/** Two broken servers, each failing one MUST check of its own. */
const mutant = (name: string): Variant => {
  const m = MUTANTS.find((x) => x.name === name);
  if (!m) throw new Error(`no mutant ${name}`);
  return m;
};
const SEAT = mutant('seat-status-out-of-range'); // fails SEAT-01
const DISH = mutant('dish-price-string'); // fails DISH-01
const ONLY = ['--only', 'SEAT-*', '--only', 'DISH-*'];
const SECRETS = CONFIGURED_SECRETS;

/** A run of the seat and dish checks against the reference server with the given breaks, in directory cwd. */
const check = (variants: Variant[], cwd: string, extra: string[] = [], env: Record<string, string> = {}) =>
  withServer(variants, (srv) => runCli(targetArgs(srv, [...ONLY, ...extra]), { env: { ...targetEnv, ...env }, cwd }));

describe.sequential('the baseline gate and report diffs through the CLI', () => {
  const cwd = tempDir('baseline-');
  const reportFile = join(cwd, 'conformance-report', 'report.json');

  test('`conformance baseline` writes the failed MUST checks of a report', async () => {
    const first = await check([SEAT], cwd);
    expect(first.code).toBe(1);
    writeFileSync(join(cwd, 'broken.json'), readFileSync(reportFile));
    const b = await runCli(['baseline'], { cwd });
    expect(b.stderr).toBe('');
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/Wrote 1 known failure to known-failures.yaml/);
    const yaml = readFileSync(join(cwd, 'known-failures.yaml'), 'utf8');
    expect(yaml).toMatch(/^- id: SEAT-01\n {2}reason: /m);
  });

  test('with the baseline, the known failure stays visible in every report but the run exits 0', async () => {
    const run = await check([SEAT], cwd, ['--baseline', 'known-failures.yaml']);
    expect(run.code).toBe(0);
    const seat = run.report!.checks.find((c) => c.id === 'SEAT-01')!;
    expect(seat.status).toBe('failed');
    expect(seat.baseline?.state).toBe('known');
    // A MUST check failed and the baseline lists it: the gate is green, the words are not (never CONFORMANT, nor
    // PASSED), and the MUST checks --only left out are said too.
    expect(run.report!.verdict).toBe('known failures');
    expect(run.stdout).toMatch(
      /^NOT CONFORMANT — NO NEW FAILURES: 1 known MUST failure \(SEAT-01\), listed in the baseline; nothing new fails; \d+ MUST checks not run/m,
    );
    expect(seat.outcome).toBe('known');
    expect(run.stdout).toMatch(/^ {2}KNOWN\s+SEAT-01 /m);
    const dir = join(cwd, 'conformance-report');
    // A known failure must not turn a CI widget red on a green job: <system-out>, never <failure>.
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites [^>]*failures="0" errors="0"/);
    expect(junit).toMatch(/SEAT-01[^>]*><system-out>KNOWN \(does not fail the run\): /);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/class="badge KNOWN">KNOWN</);
  });

  test('a new failure fails the run although the baseline lists another', async () => {
    const run = await check([SEAT, DISH], cwd, ['--baseline', 'known-failures.yaml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^ {2}FAIL\s+DISH-01/m);
    expect(run.stdout).toMatch(/^ {2}KNOWN\s+SEAT-01/m);
  });

  test('a known failure that passes now is stale and fails the run until it is removed', async () => {
    const run = await check([], cwd, ['--baseline', 'known-failures.yaml']);
    expect(run.code).toBe(1);
    expect(run.report!.checks.find((c) => c.id === 'SEAT-01')!.baseline?.state).toBe('stale');
    expect(run.stdout).toMatch(/^ {2}STALE\s+SEAT-01 .*\n.*\n.*passes now: remove the entry/m);
    writeFileSync(join(cwd, 'fixed.json'), readFileSync(reportFile));
  });

  test('an expired entry counts as a new failure', async () => {
    writeFileSync(join(cwd, 'expired.yaml'), '- id: SEAT-01\n  reason: vendor ticket 42\n  expires: 2001-01-31\n');
    const run = await check([SEAT], cwd, ['--baseline', 'expired.yaml']);
    expect(run.code).toBe(1);
    expect(run.report!.checks.find((c) => c.id === 'SEAT-01')!.baseline).toEqual({
      state: 'expired',
      reason: 'vendor ticket 42',
      expires: '2001-01-31',
    });
  });

  test('a baseline naming no check, or of the wrong shape, is a usage error (exit 2, one line)', async () => {
    writeFileSync(join(cwd, 'typo.yaml'), '- id: SEAT-99\n  reason: x\n');
    writeFileSync(join(cwd, 'shape.yaml'), 'SEAT-01: known\n');
    for (const [file, msg] of [
      ['typo.yaml', /lists SEAT-99, which is not a check/],
      ['shape.yaml', /baseline shape.yaml is invalid/],
    ] as const) {
      const run = await runCli(['--base-url', 'https://127.0.0.1:9/open', '--baseline', file], { env: targetEnv, cwd });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(msg);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  test('`conformance diff` names what regressed (exit 1) and what was fixed (exit 0)', async () => {
    const worse = await runCli(['diff', 'fixed.json', 'broken.json'], { cwd });
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/Regressed \(1\):\n {2}SEAT-01 \[MUST\] passed → failed: /);
    const better = await runCli(['diff', 'broken.json', 'fixed.json'], { cwd });
    expect(better.code).toBe(0);
    // fixed.json is the run whose baseline entry went stale: the diff compares what the server did, the verdicts
    // say what the runs concluded.
    expect(better.stdout).toMatch(/^Verdict: NOT CONFORMANT in both$/m);
    expect(better.stdout).toMatch(/Fixed \(1\):\n {2}SEAT-01 \[MUST\] failed → passed/);
    expect(better.stdout).toMatch(/nothing regressed, no coverage lost; 1 fixed/);
    const bad = await runCli(['diff', 'known-failures.yaml', 'fixed.json'], { cwd });
    expect(bad.code).toBe(2);
  });

  test('on GitHub Actions: ::error annotations for failed MUST checks and a job summary, without secrets', async () => {
    const summary = join(cwd, 'step-summary.md');
    writeFileSync(summary, '');
    const run = await check([SEAT], cwd, [], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error title=SEAT-01 FAIL::\[MUST §2\.3[^\n]*$/m);
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('## ❌ Conformance: NOT CONFORMANT');
    expect(md).toMatch(/\| SEAT\\-01 .* \| FAIL \| MUST \|/);
    for (const text of [md, run.stdout]) for (const s of SECRETS) expect(text.includes(s)).toBe(false);
  });
});
