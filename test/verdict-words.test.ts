import { tempDir } from './helpers/temp-dirs.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { failedIds, runCli, type CliRun } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { launchChromium, open } from './helpers/browser.js';
import { xmllint } from './helpers/xmllint.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { VERDICT_MEANING, VERDICT_WORD, type Report, type Verdict } from '../core/model/report.js';
import { packageRoot } from '../core/base/paths.js';
import { validate } from '../core/spec/schemas.js';

/**
 * Issue 23, items 1 and 7: every output says the verdict in the model's words and claims no more than the run
 * observed. A MUST failure the baseline lists is NOT CONFORMANT — NO NEW FAILURES (exit 0), never CONFORMANT; a run
 * that judged no MUST check is NOTHING JUDGED (exit 3), never PASSED; `diff` counts coverage and says the verdicts.
 */

/** CONFORMANT as a claim: the word not preceded by NOT. */
const claimsConformant = (text: string): boolean => /(?<!NOT )CONFORMANT/.test(text);

/** What each output of a run in `dir` says: the files as written, and the job summary the run appended. */
function outputs(
  run: CliRun,
  summaryFile: string,
): { json: Report & { verdict_word?: string }; junit: string; md: string } {
  const dir = join(run.dir, 'conformance-report');
  return {
    json: JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report & { verdict_word?: string },
    junit: readFileSync(join(dir, 'junit.xml'), 'utf8'),
    md: readFileSync(summaryFile, 'utf8'),
  };
}

/** report.html in real Chromium: the badge's text, its colour, and the colour of a theme variable, as rendered. */
async function badge(
  browser: Browser,
  run: CliRun,
  themeColour: string,
): Promise<{ text: string; colour: string; theme: string; body: string; errors: string[] }> {
  const { page, seen, close } = await open(browser, join(run.dir, 'conformance-report', 'report.html'));
  try {
    const el = page.locator('.verdict');
    const colour = (await page.evaluate(
      "getComputedStyle(document.querySelector('.verdict')).backgroundColor",
    )) as string;
    // The theme's colour as the browser resolves it, on an element of the page's own.
    const resolve = async (v: string): Promise<string> =>
      (await page.evaluate(
        `(() => { const p = document.createElement('div'); p.style.background = 'var(--${v})'; document.body.append(p); return getComputedStyle(p).backgroundColor; })()`,
      )) as string;
    const theme = await resolve(themeColour);
    // A colour of the theme, and not green (CONFORMANT's).
    expect(theme).not.toBe('rgba(0, 0, 0, 0)');
    expect(theme).not.toBe(await resolve('pass'));
    return { text: await el.innerText(), colour, theme, body: await page.innerText('body'), errors: seen.errors };
  } finally {
    await close();
  }
}

/** The verdict's first and last summary lines in the terminal. */
function verdictLines(stdout: string, verdict: Verdict): string[] {
  return stdout.split('\n').filter((l) => l.startsWith(`${VERDICT_WORD[verdict]}: `));
}

describe.sequential('a MUST failure the baseline lists is never CONFORMANT, in any output', () => {
  let srv: RunningServer;
  let browser: Browser;
  let cwd: string;
  const env = (summary: string): Record<string, string> => ({
    ...targetEnv,
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: summary,
  });

  beforeAll(async () => {
    // A server that applies query parameters to its lists: ERR-06 (MUST) fails, nothing else does.
    srv = await startReferenceServer({
      variants: [MUTANTS.find((m) => m.name === 'list-query-applied')!],
      https: true,
    });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('the run fails ERR-06 (exit 1) and `conformance baseline` lists it', async () => {
    const first = await runCli(targetArgs(srv), { env: targetEnv });
    cwd = first.dir;
    expect(first.code, first.stderr).toBe(1);
    expect(failedIds(first.report)).toEqual(['ERR-06']);
    cpSync(join(cwd, 'conformance-report'), join(cwd, 'broken'), { recursive: true });
    const b = await runCli(['baseline'], { cwd });
    expect(b.code, b.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'known-failures.yaml'), 'utf8')).toMatch(/^- id: ERR-06$/m);
  });

  test('with --baseline it exits 0, and the terminal, report.json, JUnit, the job summary and the HTML badge say NOT CONFORMANT — NO NEW FAILURES', async () => {
    const summary = join(cwd, 'summary.md');
    writeFileSync(summary, '');
    const run = await runCli(targetArgs(srv, ['--baseline', 'known-failures.yaml']), { env: env(summary), cwd });
    expect(run.code, run.stderr).toBe(0);
    const { json, junit, md } = outputs(run, summary);
    const word = 'NOT CONFORMANT — NO NEW FAILURES';

    const lines = verdictLines(run.stdout, 'known failures');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${word}: 1 known MUST failure (ERR-06), listed in the baseline; nothing new fails`);
    expect(lines[1]).toMatch(/^NOT CONFORMANT — NO NEW FAILURES: MUST 1 known, \d+ passed; .*exit 0\)$/);
    expect(run.stdout).toMatch(/^::warning title=ERR-06 KNOWN::known failure/m);

    expect([json.verdict, json.verdict_word, json.exit_code]).toEqual(['known failures', word, 0]);
    expect(validate('report', json)).toEqual([]);
    expect(json.checks.find((c) => c.id === 'ERR-06')).toMatchObject({ status: 'failed', outcome: 'known' });

    expect(xmllint(junit).ok).toBe(true);
    expect(junit).toMatch(/<testsuites [^>]*failures="0" errors="0"/);
    expect(junit).toContain('<property name="conformance.verdict" value="known failures"/>');
    expect(junit).toContain(`<property name="conformance.verdict_word" value="${word}"/>`);

    expect(md.split('\n')[0]).toBe(`## ❌ Conformance: ${word}`);

    const html = await badge(browser, run, 'fail');
    expect(html.text).toBe(word);
    // Red as NOT CONFORMANT is: green is CONFORMANT's alone.
    expect(html.colour).toBe(html.theme);
    expect(html.errors).toEqual([]);

    // No output calls the run CONFORMANT, nor PASSED.
    for (const [name, text] of [
      ['terminal', run.stdout],
      ['report.json', JSON.stringify({ verdict: json.verdict, word: json.verdict_word, why: json.verdict_reason })],
      ['junit.xml', junit],
      ['job summary', md],
      ['report.html', html.body],
    ] as const) {
      expect(claimsConformant(text), name).toBe(false);
      expect(text, name).not.toMatch(/PASSED/);
    }
  });

  test('`diff` of the two report directories says the verdicts changed and nothing regressed; `merge` counts both', async () => {
    const diff = await runCli(['diff', 'broken', 'conformance-report'], { cwd });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/^Verdict: NOT CONFORMANT → NOT CONFORMANT — NO NEW FAILURES$/m);
    expect(diff.stdout).toMatch(/^Still failing \(1\):\n {2}ERR-06 \[MUST\] failed$/m);
    expect(diff.stdout).toMatch(/nothing regressed, no coverage lost; 0 fixed\n$/);

    const merge = await runCli(['merge', 'broken', 'conformance-report'], { cwd });
    expect(merge.code).toBe(1);
    const checks = String(JSON.parse(readFileSync(join(cwd, 'broken', 'report.json'), 'utf8')).checks.length);
    expect(merge.stdout).toMatch(
      new RegExp(
        `^ {2}conformance-report +\\S+ +NOT CONFORMANT — NO NEW FAILURES +0 +0 +1 +0 +0 +0 +${checks} +[\\d.]+ s$`,
        'm',
      ),
    );
    expect(merge.stdout.trimEnd().split('\n').at(-1)).toBe(
      'NOT CONFORMANT: 2 targets: 1 NOT CONFORMANT; 1 NOT CONFORMANT — NO NEW FAILURES (exit 1)',
    );
  });
});

describe.concurrent('a run that judges no MUST check is NOTHING JUDGED (exit 3), never PASSED', () => {
  test('--only INFO-*: every output says NOTHING JUDGED and why, the opening lines do not promise PARTIAL', async () => {
    const browser = await launchChromium();
    try {
      await withServer([], async (srv) => {
        const cwd = tempDir('nothing-judged-');
        const summary = join(cwd, 'summary.md');
        writeFileSync(summary, '');
        const run = await runCli(targetArgs(srv, ['--only', 'INFO-*']), {
          env: { ...targetEnv, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
          cwd,
        });
        expect(run.code, run.stderr).toBe(3);
        const { json, junit, md } = outputs(run, summary);
        expect(json.checks.length).toBeGreaterThan(0);
        expect(json.checks.every((c) => c.level === 'INFO')).toBe(true);

        expect(run.stdout).toMatch(
          /^Selection: \d+ of \d+ checks \(--only\/--skip\), none of them a MUST check: nothing can be judged, the verdict will be NOTHING JUDGED \(exit 3\)$/m,
        );
        const lines = verdictLines(run.stdout, 'nothing judged');
        expect(lines[0]).toMatch(
          /^NOTHING JUDGED: no MUST check was judged: \d+ MUST checks not run .*\(\d+ not selected\); \d+ of the rule matrix's \d+ applicable cells not probed$/,
        );
        expect(lines[1]).toMatch(/exit 3\)$/);
        expect([json.verdict, json.verdict_word, json.exit_code]).toEqual(['nothing judged', 'NOTHING JUDGED', 3]);
        expect(validate('report', json)).toEqual([]);
        expect(xmllint(junit).ok).toBe(true);
        expect(junit).toContain('<property name="conformance.verdict_word" value="NOTHING JUDGED"/>');
        expect(junit).toMatch(
          /<testcase classname="verdict" name="a MUST check was judged" time="0.000"><error message="no MUST check was judged: /,
        );
        expect(md.split('\n')[0]).toBe('## ⚠️ Conformance: NOTHING JUDGED');
        expect(run.stdout).toMatch(/^::error title=NOTHING JUDGED::no MUST check was judged: /m);

        const html = await badge(browser, run, 'err');
        expect(html.text).toBe('NOTHING JUDGED');
        expect(html.colour).toBe(html.theme);
        for (const text of [run.stdout, junit, md, html.body]) {
          expect(text).not.toMatch(/PASSED/);
          expect(claimsConformant(text)).toBe(false);
        }
      });
    } finally {
      await browser.close();
    }
  });
});

describe.concurrent('`diff` counts coverage', () => {
  test('a run that lost other_app lost the checks that need it: named, exit 1; the verdict change said', async () => {
    await withServer([], async (srv) => {
      const full = await runCli(targetArgs(srv), { env: targetEnv });
      expect(full.code, full.stderr).toBe(0);
      expect(full.report!.verdict).toBe('conformant');
      cpSync(join(full.dir, 'conformance-report'), join(full.dir, 'full'), { recursive: true });
      const less = await runCli(targetArgs(srv, ['--report-dir', 'less']), {
        env: { ...targetEnv, CONFORMANCE_OTHER_SECRET: '', CONFORMANCE_OTHER_KEY: '' },
        cwd: full.dir,
      });
      expect(less.code, less.stderr).toBe(0);
      const lessReport = JSON.parse(readFileSync(join(full.dir, 'less', 'report.json'), 'utf8')) as Report;
      expect(lessReport.verdict).toBe('partial');
      // Every check that needs other_app: MUST and SHOULD alike (an INFO check judges nothing).
      const lost = lessReport.checks
        .filter((c) => c.outcome === 'skipped' && c.unmet?.includes('other_app') && c.level !== 'INFO')
        .map((c) => c.id);
      expect(lost.length).toBeGreaterThan(0);

      const diff = await runCli(['diff', 'full', 'less'], { cwd: full.dir });
      expect(diff.code, diff.stdout).toBe(1);
      expect(diff.stdout).toMatch(/^Verdict: CONFORMANT → PASSED, PARTIAL$/m);
      const section = diff.stdout.split('\n\n').find((s) => s.startsWith('Lost coverage'))!;
      expect(section.split('\n')[0]).toBe(`Lost coverage (judged before, not now) (${lost.length}):`);
      for (const id of lost)
        expect(section).toMatch(new RegExp(`^ {2}${id} \\[(MUST|SHOULD)\\] passed → skipped: `, 'm'));
      expect(diff.stdout.trimEnd().split('\n').at(-1)).toBe(`0 regressed, ${lost.length} lost coverage, 0 fixed`);
      // Coverage gained is no regression.
      const back = await runCli(['diff', 'less/report.json', 'full'], { cwd: full.dir });
      expect(back.code, back.stdout).toBe(0);
      expect(back.stdout).toMatch(/^Verdict: PASSED, PARTIAL → CONFORMANT$/m);
    });
  });
});

test("the README's exit-code table lists every verdict word with its exit code", () => {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Exit codes\n'),
    readme.indexOf('\n## ', readme.indexOf('## Exit codes\n') + 1),
  );
  for (const v of Object.keys(VERDICT_WORD) as Verdict[])
    expect(section, v).toContain(`| ${VERDICT_MEANING[v].exit} | ${VERDICT_WORD[v]} |`);
});
