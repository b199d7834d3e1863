import { writeFileAtomic } from '../core/base/atomic-file.js';
import { join } from 'node:path';
import { AREAS } from '../core/model/check.js';
import {
  blocksVerdict,
  OUTCOMES,
  VERDICT_WORD,
  type CheckRecord,
  type Outcome,
  type Report,
} from '../core/model/report.js';
import { curlOptionsOf, exchangeText, shownExchanges, type CurlOptions } from './evidence.js';
import { counted } from '../core/base/counted.js';

/**
 * junit.xml for CI test widgets (GitHub Actions, GitLab, Jenkins): one <testsuite> per area, one <testcase> per check
 * (classname = area, name = "ID title"), <failure> with the message and the evidence as text, <skipped> with the
 * reason, <error> when the harness broke. Attributes follow the common Jenkins/Ant JUnit schema
 * (schemas/junit.xsd), which has no `skipped` on <testsuites>.
 */

/** Characters XML 1.0 forbids (most C0 controls, lone surrogates, U+FFFE/U+FFFF) become U+FFFD. */
const ILLEGAL = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe in an XML text node: characters XML 1.0 forbids become U+FFFD, markup characters are escaped. */
export function xmlText(s: string): string {
  return s.replace(ILLEGAL, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values also escape quotes, and keep line breaks and tabs (attribute normalization would flatten them). */
export function xmlAttr(s: string): string {
  return xmlText(s)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function evidenceText(c: CheckRecord, curl: CurlOptions): string {
  if (!c.evidence.length) return '';
  const { shown, omitted, at } = shownExchanges(c.evidence, 5);
  const parts = shown.map(
    (e, i) =>
      `${i === at && omitted ? `… ${counted(omitted, 'more exchange')} in report.json …\n\n` : ''}${exchangeText(e, curl)}`,
  );
  return `\n\nEvidence:\n\n${parts.join('\n\n')}`;
}

type Element = 'failure' | 'error' | 'skipped' | 'out';

/**
 * The JUnit element of each outcome (a Record: the compiler proves every outcome has one). GitLab's widget, Jenkins
 * and the GitHub JUnit actions count <failure> and <error> as failed: <failure> only for what fails the gate,
 * <error> only for what stops a verdict (exit 3), so the file never shows red on a green job. Warnings, known
 * failures and INFO observations go to <system-out>, visible on demand.
 */
const ELEMENT: Record<Outcome, (c: CheckRecord) => Element> = {
  failed: () => 'failure',
  stale: () => 'failure',
  expired: () => 'failure',
  error: () => 'error',
  incomplete: (c) => (blocksVerdict(c) ? 'error' : 'skipped'),
  skipped: () => 'skipped',
  passed: () => 'out',
  warned: () => 'out',
  known: () => 'out',
};

/**
 * The JUnit element an outcome becomes: only what fails the run is a <failure>, only what stops a verdict an <error>.
 */
export const junitElement = (c: CheckRecord): Element => ELEMENT[c.outcome](c);

function body(c: CheckRecord, curl: CurlOptions): string {
  const b = c.baseline;
  const fuzz = c.fuzz
    ? `\n\nfuzz: seed ${c.fuzz.seed}, path ${c.fuzz.path}, counterexample ${c.fuzz.counterexample}\nreplay: ${c.fuzz.replay}`
    : '';
  const baseline = b
    ? `\nbaseline (${b.reason}): ${b.state}${b.new_fingerprints ? `, new now: ${b.new_fingerprints.join(', ')}` : ''}${b.expires ? `, expires ${b.expires}` : ''}`
    : '';
  const el = (tag: string, type: string, message: string, text: string): string =>
    `<${tag} message="${xmlAttr(message)}" type="${xmlAttr(type)}">${xmlText(text)}</${tag}>`;
  const word = OUTCOMES[c.outcome].word;
  switch (junitElement(c)) {
    case 'failure': {
      const message =
        c.outcome === 'stale'
          ? `${c.id} passes now but is listed in the baseline as a known failure (${b?.reason ?? ''}): remove it from the baseline`
          : c.message;
      return el(
        'failure',
        `${c.level} ${word}`,
        message,
        `${c.spec} ${c.title}\n${c.message}${baseline}${fuzz}${evidenceText(c, curl)}`,
      );
    }
    case 'error':
      return el('error', word, c.message, `${c.message}${evidenceText(c, curl)}`);
    case 'skipped':
      return `<skipped message="${xmlAttr(`${c.outcome === 'incomplete' ? 'incomplete: ' : ''}${c.message}`)}"/>`;
    case 'out': {
      const head =
        c.outcome === 'passed'
          ? c.level === 'INFO'
            ? `observed: ${c.observation ?? c.message}`
            : ''
          : `${word} (does not fail the run): ${c.message}${baseline}`;
      const out = [head, ...c.notes].filter(Boolean).join('\n');
      return out ? `<system-out>${xmlText(out)}</system-out>` : '';
    }
  }
}

function testcase(c: CheckRecord, curl: CurlOptions): string {
  const inner = body(c, curl);
  const open = `<testcase classname="${xmlAttr(c.area)}" name="${xmlAttr(`${c.id} ${c.title}`)}" time="${seconds(c.duration_ms)}"`;
  return inner ? `    ${open}>${inner}</testcase>` : `    ${open}/>`;
}

/** The run's verdict on every suite, so a widget that shows one suite still shows the verdict. */
function properties(report: Report): string {
  const p = {
    verdict: report.verdict,
    verdict_word: VERDICT_WORD[report.verdict],
    exit_code: String(report.exit_code),
    verdict_reason: report.verdict_reason,
    coverage: report.coverage.complete ? 'complete' : report.coverage.text,
  };
  return `    <properties>${Object.entries(p)
    .map(([k, v]) => `<property name="conformance.${k}" value="${xmlAttr(v)}"/>`)
    .join('')}</properties>`;
}

/**
 * An area's wall time: from its first check's start to its last one's end (auth's durations summed to 20 s in a 2.6 s
 * run; a check of a later phase starts after the others, so the longest check is not it either). A report of a
 * version before records held their start: the longest check, never more than the run.
 */
function wallTime(checks: readonly CheckRecord[], runMs: number): number {
  const timed = checks.filter((c) => c.start_ms !== undefined);
  if (!timed.length) return Math.min(runMs, Math.max(0, ...checks.map((c) => c.duration_ms)));
  const first = Math.min(...timed.map((c) => c.start_ms!));
  const last = Math.max(...timed.map((c) => c.start_ms! + c.duration_ms));
  return last - first;
}

/** junit.xml as text: one <testsuite> per area, one <testcase> per check. */
export function renderJunit(report: Report): string {
  const curl = curlOptionsOf(report);
  const timestamp = report.started_at.replace(/\.\d+Z$|Z$/, '');
  const props = properties(report);
  const suites: string[] = [];
  let tests = 0,
    failures = 0,
    errors = 0;
  for (const area of AREAS) {
    const checks = report.checks.filter((c) => c.area === area);
    if (!checks.length) continue;
    const count = (e: Element): number => checks.filter((c) => junitElement(c) === e).length;
    const f = count('failure');
    const e = count('error');
    const time = wallTime(checks, report.duration_ms);
    tests += checks.length;
    failures += f;
    errors += e;
    suites.push(
      `  <testsuite name="${xmlAttr(area)}" tests="${checks.length}" failures="${f}" errors="${e}" skipped="${count('skipped')}" time="${seconds(time)}" timestamp="${xmlAttr(timestamp)}">\n${props}\n${checks.map((c) => testcase(c, curl)).join('\n')}\n  </testsuite>`,
    );
  }
  // A run-level error the checks do not show reaches the widget too, as one suite of one <error> (the run exits 3):
  // harness problems outside any check, and a run that judged no MUST check (a setup stop has no check at all).
  const runError = (suite: string, caseName: string, message: string, type: string, text: string): void => {
    tests++;
    errors++;
    suites.push(
      `  <testsuite name="${suite}" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${xmlAttr(timestamp)}">\n${props}\n    <testcase classname="${suite}" name="${caseName}" time="0.000"><error message="${xmlAttr(message)}" type="${xmlAttr(type)}">${xmlText(text)}</error></testcase>\n  </testsuite>`,
    );
  };
  if (report.errors.length)
    runError('harness', 'the run completed', report.errors[0]!, 'harness', report.errors.join('\n'));
  if (report.verdict === 'nothing judged')
    runError(
      'verdict',
      'a MUST check was judged',
      report.verdict_reason,
      VERDICT_WORD[report.verdict],
      report.verdict_reason,
    );
  const name = `${report.tool.name} ${report.tool.version}: ${report.target.base_url}`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlAttr(name)}" tests="${tests}" failures="${failures}" errors="${errors}" time="${seconds(report.duration_ms)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** Writes junit.xml into the report directory and returns its path. */
export async function writeJunitReport(report: Report, dir: string): Promise<string> {
  const file = join(dir, 'junit.xml');
  await writeFileAtomic(file, renderJunit(report));
  return file;
}
