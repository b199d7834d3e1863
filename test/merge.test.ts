import { tempDir } from './helpers/temp-dirs.js';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildReport, withOutcome, type CheckRecord, type Report } from '../core/model/report.js';
import { mergeReports, mergedText, type MergedReport } from '../app/merge.js';
import { validate } from '../core/spec/schemas.js';
import { runCli } from './helpers/cli.js';

function rec(id: string, status: CheckRecord['status'], level: CheckRecord['level'] = 'MUST'): CheckRecord {
  return withOutcome({
    id,
    title: `title of ${id}`,
    level,
    spec: '§4',
    area: 'auth' as const,
    status,
    message: status === 'passed' ? 'as the spec requires' : `${id} went wrong`,
    evidence: [],
    notes: [],
    duration_ms: 3,
  });
}

function report(baseUrl: string, checks: CheckRecord[], errors: string[] = []): Report {
  return buildReport({
    checks,
    catalogue: checks,
    strict: false,
    baseUrl,
    startedAt: new Date('2026-01-02T03:04:05Z'),
    durationMs: 2500,
    fuzz: { seed: 1, runs: 50 },
    config: {},
    errors,
  });
}

const good = report('https://a.example/open', [
  rec('AUTH-01', 'passed'),
  rec('DISH-01', 'passed'),
  rec('ENV-02', 'passed', 'SHOULD'),
]);
const broken = report('https://b.example/open', [
  rec('AUTH-01', 'passed'),
  rec('DISH-01', 'failed'),
  rec('ENV-02', 'failed', 'SHOULD'),
]);
const crashed = report('https://c.example/open', [rec('AUTH-01', 'error'), rec('DISH-01', 'passed')]);

/** Writes reports as a CI matrix would leave them: reports/<target>/report.json. */
function layout(reports: Record<string, Report>): string {
  const dir = tempDir('merge-test-');
  for (const [name, r] of Object.entries(reports)) {
    mkdirSync(join(dir, 'reports', name), { recursive: true });
    writeFileSync(join(dir, 'reports', name, 'report.json'), JSON.stringify(r));
  }
  return dir;
}

describe('mergeReports', () => {
  test('the synthetic reports are real report.json files', () => {
    for (const r of [good, broken, crashed]) expect(validate('report', JSON.parse(JSON.stringify(r)))).toEqual([]);
  });

  test('a verdict per target, the checks that failed anywhere, and the worst verdict overall', () => {
    const m = mergeReports([
      { file: 'reports/shop-a/report.json', report: good },
      { file: 'reports/shop-b/report.json', report: broken },
      { file: 'reports/shop-c/report.json', report: crashed },
    ]);
    expect(m.targets.map((t) => [t.label, t.verdict, t.summary.failed, t.summary.warned])).toEqual([
      ['shop-a', 'conformant', 0, 0],
      ['shop-b', 'not conformant', 1, 1],
      ['shop-c', 'incomplete', 0, 0],
    ]);
    expect(m.summary).toEqual({
      targets: 3,
      conformant: 1,
      partial: 0,
      known_failures: 0,
      not_conformant: 1,
      incomplete: 1,
      nothing_judged: 0,
    });
    expect(m.targets.map((t) => t.checks)).toEqual([3, 3, 2]);
    expect(m.exit_code).toBe(3);
    const byId = Object.fromEntries(m.checks.map((c) => [c.id, c]));
    expect(byId['DISH-01']!.outcome).toEqual({ 'shop-a': 'passed', 'shop-b': 'failed', 'shop-c': 'passed' });
    expect(byId['DISH-01']!.failed_on).toEqual([
      { target: 'shop-b', outcome: 'failed', message: 'DISH-01 went wrong' },
    ]);
    expect(byId['AUTH-01']!.failed_on.map((f) => f.outcome)).toEqual(['error']);
    // ENV-02 is absent from shop-c's report: said so, not counted as passed.
    expect(byId['ENV-02']!.outcome).toEqual({ 'shop-a': 'passed', 'shop-b': 'warned' });
    expect(m.notes.join(' ')).toMatch(/1 check is missing from some reports.*ENV-02/);

    const text = mergedText(m);
    expect(text).toMatch(/shop-a\s+https:\/\/a\.example\/open\s+CONFORMANT/);
    expect(text).toMatch(/shop-b\s+https:\/\/b\.example\/open\s+NOT CONFORMANT\s+1\s+1/);
    expect(text).toMatch(/DISH-01\s+MUST\s+1\/3\s+shop-b/);
    expect(text).toMatch(/AUTH-01\s+MUST\s+1\/3\s+shop-c \(ERROR\)/);
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'INCOMPLETE: 3 targets: 1 INCOMPLETE; 1 NOT CONFORMANT; 1 CONFORMANT (exit 3)',
    );
  });

  test('a baselined target is never counted conformant: the worst verdict by VERDICT_ORDER, every verdict counted', () => {
    const known = report('https://k.example/open', [
      rec('AUTH-01', 'passed'),
      withOutcome({ ...rec('DISH-01', 'failed'), baseline: { state: 'known', reason: 'ticket 9' } }),
    ]);
    const nothing = report('https://n.example/open', [rec('ENV-02', 'passed', 'SHOULD')]);
    expect([known.verdict, nothing.verdict]).toEqual(['known failures', 'nothing judged']);
    const m = mergeReports([
      { file: 'reports/shop-a/report.json', report: good },
      { file: 'reports/shop-k/report.json', report: known },
    ]);
    expect([m.verdict, m.exit_code, m.summary.known_failures, m.summary.conformant]).toEqual([
      'known failures',
      0,
      1,
      1,
    ]);
    const text = mergedText(m);
    expect(text).toMatch(
      /shop-k\s+https:\/\/k\.example\/open\s+NOT CONFORMANT — NO NEW FAILURES\s+0\s+0\s+1\s+0\s+0\s+0\s+2\s+2\.5 s/,
    );
    expect(text).toMatch(/No check failed on any target outside its baseline; known failures: DISH-01 on shop-k\./);
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'NOT CONFORMANT — NO NEW FAILURES: 2 targets: 1 NOT CONFORMANT — NO NEW FAILURES; 1 CONFORMANT (exit 0)',
    );
    // A run that judged nothing weighs more than a failing one, and exits 3.
    const worst = mergeReports([
      { file: 'b.json', report: broken },
      { file: 'n.json', report: nothing },
    ]);
    expect([worst.verdict, worst.exit_code, worst.summary.nothing_judged]).toEqual(['nothing judged', 3, 1]);
  });

  test('exit 0 only when every target is conformant; equal labels stay apart', () => {
    const m = mergeReports([
      { file: 'x/report.json', report: good },
      { file: 'x/report.json', report: good },
    ]);
    expect(m.exit_code).toBe(0);
    expect(m.targets.map((t) => t.label)).toEqual(['x', 'x#2']);
    expect(mergedText(m)).toMatch(/No check failed on any target/);
    expect(
      mergeReports([
        { file: 'a.json', report: good },
        { file: 'b.json', report: broken },
      ]).exit_code,
    ).toBe(1);
  });
});

describe('conformance merge (the CLI)', () => {
  test('merges reports/*/report.json, prints the tables and writes --out', async () => {
    const dir = layout({ 'shop-a': good, 'shop-b': broken });
    const run = await runCli(['merge', 'reports/shop-a/report.json', 'reports/shop-b', '--out', 'out/merged.json'], {
      cwd: dir,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Merged 2 reports/);
    // Every column a number (the checks column once printed "3[object Object][object Object]").
    expect(run.stdout).toMatch(
      /shop-b\s+https:\/\/b\.example\/open\s+NOT CONFORMANT\s+1\s+1\s+0\s+0\s+0\s+0\s+3\s+2\.5 s\n/,
    );
    expect(run.stdout).not.toContain('[object Object]');
    expect(run.stdout).toMatch(/DISH-01\s+MUST\s+1\/2\s+shop-b/);
    const merged = JSON.parse(readFileSync(join(dir, 'out', 'merged.json'), 'utf8')) as MergedReport;
    expect(merged.verdict).toBe('not conformant');
    expect(merged.targets.map((t) => t.label)).toEqual(['shop-a', 'shop-b']);
    expect(merged.checks.find((c) => c.id === 'DISH-01')!.failed_on[0]!.target).toBe('shop-b');
  });

  test('a file that is not a report is a usage error (exit 2, one line)', async () => {
    const dir = layout({ 'shop-a': good });
    writeFileSync(join(dir, 'junk.json'), '{"hello": 1}');
    const run = await runCli(['merge', 'reports/shop-a/report.json', 'junk.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/junk\.json is not a conformance report\.json/);
    const none = await runCli(['merge'], { cwd: dir });
    expect(none.code).toBe(2);
  });
});

describe('issue 37: merge and diff go by what a report checked, and quote no file that is no report', () => {
  test('a report.json that is a symlink to a token file: the error quotes none of it', async () => {
    const dir = layout({ 'shop-a': good });
    const secret = 'sk_live_9f8e7d6c5b4a39281706';
    writeFileSync(join(dir, 'token.txt'), `${secret}\n`);
    mkdirSync(join(dir, 'reports', 'evil'));
    symlinkSync(join(dir, 'token.txt'), join(dir, 'reports', 'evil', 'report.json'));
    // And a JSON file whose keys and values are secrets.
    writeFileSync(join(dir, 'creds.json'), JSON.stringify({ [secret]: secret }));
    for (const arg of ['reports/evil', 'creds.json']) {
      const run = await runCli(['merge', 'reports/shop-a', arg], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/is not a conformance report\.json/);
      expect(run.stderr + run.stdout).not.toContain(secret.slice(0, 6));
    }
  });

  test('exit code and verdict come from the checks: a failed MUST check with exit_code 0, an empty "conformant" report', async () => {
    const lying: Report = { ...broken, exit_code: 0 };
    const tiny = JSON.stringify(broken).replace('"exit_code":1', '"exit_code":1e-400');
    const empty: Report = {
      ...good,
      checks: [],
      coverage: { ...good.coverage, not_run: [] },
      summary: report('x', []).summary,
    };
    const dir = layout({ lying, empty });
    mkdirSync(join(dir, 'reports', 'tiny'));
    writeFileSync(join(dir, 'reports', 'tiny', 'report.json'), tiny);
    for (const name of ['lying', 'tiny']) {
      const run = await runCli(['merge', `reports/${name}`], { cwd: dir });
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toMatch(/NOT CONFORMANT: 1 target/);
    }
    const run = await runCli(['merge', 'reports/empty', '--out', 'm.json'], { cwd: dir });
    expect(run.code, run.stdout).toBe(3);
    expect(run.stdout).toMatch(/its report says CONFORMANT \(exit 0\), but its checks give NOTHING JUDGED \(exit 3\)/);
    expect((JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')) as MergedReport).verdict).toBe('nothing judged');
  });

  test('diff says when the two reports are of different targets, and takes the verdict from the checks', async () => {
    const dir = layout({ a: good, b: { ...broken, verdict: 'conformant', exit_code: 0 } satisfies Report });
    const run = await runCli(['diff', 'reports/a', 'reports/b'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /Warning: the reports are of different targets \(https:\/\/a\.example\/open → https:\/\/b\.example\/open\)/,
    );
    // Its report says CONFORMANT; its checks (a MUST check failed) say otherwise.
    expect(run.stdout).toMatch(/Verdict: .+ → NOT CONFORMANT\n/);
    const same = await runCli(['diff', 'reports/a', 'reports/a'], { cwd: dir });
    expect(same.stdout).not.toMatch(/different targets/);
  });
});
