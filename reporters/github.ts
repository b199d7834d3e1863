import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Level } from '../core/model/check.js';
import type { Redactor } from '../core/redact/redact.js';
import {
  findingsOf,
  OUTCOME_ORDER,
  OUTCOMES,
  unfinishedOf,
  VERDICT_WORD,
  type CheckRecord,
  type Outcome,
  type Report,
  type Verdict,
} from '../core/model/report.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';

/**
 * GitHub Actions niceties: `::error` annotations for failed MUST checks (GITHUB_ACTIONS=true) and a Markdown job
 * summary appended to $GITHUB_STEP_SUMMARY. Messages quote server data, so both go through the run's Redactor and
 * are escaped: workflow-command data and properties per GitHub's rules, Markdown so no markup or link gets in.
 */

/** Workflow-command data: %, CR and LF are encoded (so server text cannot start a command of its own on a new line). */
export const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** Workflow-command properties (title=…) also encode : and , which delimit properties. */
export const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** The annotation each outcome gets (a Record: every outcome is decided): errors for what fails the run or broke. */
const ANNOTATION: Record<Outcome, 'error' | 'warning' | undefined> = {
  failed: 'error',
  stale: 'error',
  expired: 'error',
  error: 'error',
  warned: 'warning',
  known: 'warning',
  incomplete: 'warning',
  skipped: undefined,
  passed: undefined,
};

function annotationText(c: CheckRecord): string {
  const what = `[${c.level} ${c.spec}] ${c.title}: ${c.message}`;
  const b = c.baseline;
  switch (c.outcome) {
    case 'stale':
      return `${c.id} passes now but is listed in the baseline (${b?.reason ?? ''}): remove the entry`;
    case 'known':
      return `known failure (baseline: ${b?.reason ?? ''}) ${what}`;
    case 'expired':
      return `baseline entry expired ${b?.expires ?? ''}: ${what}`;
    case 'incomplete':
      return `did not finish (no verdict on this check): ${c.message}`;
    default:
      return b?.state === 'new'
        ? `${what} (the baseline entry does not list: ${(b.new_fingerprints ?? []).join(', ')})`
        : what;
  }
}

/**
 * Annotation lines: errors for what fails the run (and for a run that judged nothing), warnings for SHOULD failures,
 * known failures and unfinished checks.
 */
export function annotations(report: Report, redactor: Redactor): string {
  const lines: string[] = [];
  for (const c of report.checks) {
    const kind = ANNOTATION[c.outcome];
    // The one line escaping first (no `##[`, no control or bidi characters, bounded length), then GitHub's rules.
    if (kind)
      lines.push(
        `::${kind} title=${escapeProperty(untrustedLine(redactor.redact(`${c.id} ${OUTCOMES[c.outcome].word}`)))}::${escapeData(untrustedLine(redactor.redact(annotationText(c))))}`,
      );
  }
  for (const e of report.errors)
    lines.push(`::error title=harness error::${escapeData(untrustedLine(redactor.redact(e)))}`);
  // No check's annotation says why a run that judged nothing fails the job (exit 3): the verdict does.
  if (report.verdict === 'nothing judged')
    lines.push(
      `::error title=${escapeProperty(VERDICT_WORD[report.verdict])}::${escapeData(untrustedLine(redactor.redact(report.verdict_reason)))}`,
    );
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** Text for a Markdown table cell or line: no HTML, no Markdown syntax, no line breaks. */
export function mdText(s: string, max = CELL_MAX): string {
  return untrustedLine(s, max)
    .replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
    .replace(/[\\`*_{}[\]()#+\-.!|~@:]/g, '\\$&')
    .replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ');
}

const ICON: Record<Verdict, string> = {
  conformant: '✅',
  partial: '☑️',
  'known failures': '❌',
  'not conformant': '❌',
  incomplete: '⚠️',
  'nothing judged': '⚠️',
};

/** Longest Markdown cell; GitHub drops a job summary over 1 MiB, so the summary stops adding rows before that. */
const CELL_MAX = 2000;
/** Past this much of the job summary, rows are counted, not shown: GitHub drops a summary over 1 MiB. */
export const SUMMARY_MAX_BYTES = 900 * 1024;

/** The Markdown job summary for GITHUB_STEP_SUMMARY: verdict and why, counts, findings; redacted and escaped. */
export function stepSummary(report: Report, redactor: Redactor): string {
  // Redact before escaping: escaping changes the text a secret would be matched in.
  const md = (s: string): string => mdText(redactor.redact(s));
  const icon = ICON[report.verdict];
  const s = report.summary;
  const out = [
    `## ${icon} Conformance: ${VERDICT_WORD[report.verdict]}`,
    '',
    md(report.verdict_reason),
    '',
    `Target ${md(report.target.base_url)} · ${report.checks.length} checks · ${(report.duration_ms / 1000).toFixed(1)} s · ${md(`${report.tool.name} ${report.tool.version}`)} · fuzz seed ${report.fuzz.seed}`,
    '',
    `| Level | ${OUTCOME_ORDER.join(' | ')} |`,
    `|---|${OUTCOME_ORDER.map(() => '---:').join('|')}|`,
    ...(['MUST', 'SHOULD', 'INFO'] as Level[]).map(
      (l) => `| ${l} | ${OUTCOME_ORDER.map((o) => s.by_level[l][o]).join(' | ')} |`,
    ),
  ];
  const findings = [...findingsOf(report), ...unfinishedOf(report)];
  if (findings.length) {
    out.push(
      '',
      '### Findings and unfinished checks',
      '',
      '| Check | Status | Level | Spec | Message |',
      '|---|---|---|---|---|',
    );
    let bytes = Buffer.byteLength(out.join('\n'));
    for (const [i, c] of findings.entries()) {
      const note = c.baseline ? ` (baseline: ${c.baseline.reason})` : '';
      const row = `| ${md(c.id)} ${md(c.title)} | ${OUTCOMES[c.outcome].word} | ${c.level} | ${md(c.spec)} | ${md(`${c.message}${note}`)} |`;
      bytes += Buffer.byteLength(row) + 1;
      if (bytes > SUMMARY_MAX_BYTES) {
        out.push(`| … | ${findings.length - i} more | | | see the report |`);
        break;
      }
      out.push(row);
    }
  }
  for (const e of report.errors.slice(0, 20)) out.push('', `**Harness error:** ${md(e)}`);
  // Where the reports are is not the run's to say: an upload, if any, comes after it (action.yml names its artifact).
  out.push('');
  return out.join('\n');
}

/**
 * Step outputs for the step that ran the suite: the verdict, the report files this run wrote and their directory (as
 * the run resolved it from the file, environment or flags), so a later step uploads exactly those files. Values go in
 * the delimiter form with a random delimiter: a file name cannot end its value and set another output.
 */
export function stepOutputs(report: Report, files: string[]): string {
  const delimiter = `conformance_${randomUUID()}`;
  const paths = files.map((f) => resolve(f));
  return Object.entries({
    verdict: report.verdict,
    'verdict-word': VERDICT_WORD[report.verdict],
    'report-dir': paths.length ? dirname(paths[0]!) : '',
    'report-files': paths.join('\n'),
  })
    .map(([name, value]) => `${name}<<${delimiter}\n${value}\n${delimiter}\n`)
    .join('');
}

/**
 * Writes the summary and the step outputs when the environment asks for them; returns the annotation text for stdout.
 * `files` are the report files this run wrote.
 */
export async function githubOutputs(
  report: Report,
  redactor: Redactor,
  env: NodeJS.ProcessEnv = process.env,
  files?: string[],
): Promise<string> {
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, stepSummary(report, redactor));
  if (env.GITHUB_OUTPUT && files) await appendFile(env.GITHUB_OUTPUT, stepOutputs(report, files));
  return env.GITHUB_ACTIONS === 'true' ? annotations(report, redactor) : '';
}
