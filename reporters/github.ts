import { appendFile } from 'node:fs/promises';
import type { Level } from '../src/check.js';
import type { Redactor } from '../src/redact.js';
import type { CheckRecord, Report } from '../src/report.js';
import { statusWord } from './evidence.js';

/**
 * GitHub Actions niceties: `::error` annotations for failed MUST checks (GITHUB_ACTIONS=true) and a Markdown job
 * summary appended to $GITHUB_STEP_SUMMARY. Messages quote server data, so both go through the run's Redactor and
 * are escaped: workflow-command data and properties per GitHub's rules, Markdown so no markup or link gets in.
 */

/** Workflow-command data: %, CR and LF are encoded (so server text cannot start a command of its own on a new line). */
export const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** Workflow-command properties (title=…) also encode : and , which delimit properties. */
export const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** Annotation lines: errors for what fails the run, warnings for SHOULD failures and known failures. */
export function annotations(report: Report, redactor: Redactor): string {
  const lines: string[] = [];
  const line = (kind: 'error' | 'warning', c: CheckRecord, text: string): void => {
    lines.push(`::${kind} title=${escapeProperty(redactor.redact(`${c.id} ${statusWord(c)}`))}::${escapeData(redactor.redact(text))}`);
  };
  for (const c of report.checks) {
    const b = c.baseline?.state;
    const what = `[${c.level} ${c.spec}] ${c.title}: ${c.message}`;
    if (b === 'stale') line('error', c, `${c.id} passes now but is listed in the baseline (${c.baseline!.reason}): remove the entry`);
    else if (c.status !== 'failed') continue;
    else if (b === 'known') line('warning', c, `known failure (baseline: ${c.baseline!.reason}) ${what}`);
    else if (b === 'expired') line('error', c, `baseline entry expired ${c.baseline!.expires ?? ''}: ${what}`);
    else line(c.level === 'MUST' ? 'error' : 'warning', c, what);
  }
  for (const e of report.errors) lines.push(`::error title=harness error::${escapeData(redactor.redact(e))}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** Text for a Markdown table cell or line: no HTML, no Markdown syntax, no line breaks. */
export function mdText(s: string): string {
  return s
    .replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
    .replace(/[\\`*_{}[\]()#+\-.!|~@:]/g, '\\$&')
    .replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ');
}

export function stepSummary(report: Report, redactor: Redactor): string {
  // Redact before escaping: escaping changes the text a secret would be matched in.
  const md = (s: string): string => mdText(redactor.redact(s));
  const icon = report.verdict === 'conformant' ? '✅' : report.verdict === 'incomplete' ? '⚠️' : '❌';
  const s = report.summary;
  const out = [
    `## ${icon} Conformance: ${report.verdict.toUpperCase()}`,
    '',
    `Target ${md(report.target.base_url)} · ${report.checks.length} checks · ${(report.duration_ms / 1000).toFixed(1)} s · ${md(`${report.tool.name} ${report.tool.version}`)} · fuzz seed ${report.fuzz.seed}`,
    '',
    '| Level | passed | failed | skipped | error |',
    '|---|---:|---:|---:|---:|',
    ...(['MUST', 'SHOULD', 'INFO'] as Level[]).map((l) => { const c = s.by_level[l]; return `| ${l} | ${c.passed} | ${c.failed} | ${c.skipped} | ${c.error} |`; }),
  ];
  const findings = report.checks.filter((c) => c.status === 'failed' || c.status === 'error' || c.baseline?.state === 'stale');
  if (findings.length) {
    out.push('', '### Failed checks', '', '| Check | Status | Level | Spec | Message |', '|---|---|---|---|---|');
    for (const c of findings) {
      const note = c.baseline ? ` (baseline: ${c.baseline.reason})` : '';
      out.push(`| ${md(c.id)} ${md(c.title)} | ${statusWord(c)} | ${c.level} | ${md(c.spec)} | ${md(`${c.message}${note}`)} |`);
    }
  }
  for (const e of report.errors) out.push('', `**Harness error:** ${md(e)}`);
  out.push('', 'The full report (report.html, junit.xml, report.json) is in the report directory artifact.', '');
  return out.join('\n');
}

/** Writes both when the environment asks for them; returns the annotation text for stdout. */
export async function githubOutputs(report: Report, redactor: Redactor, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, stepSummary(report, redactor));
  return env.GITHUB_ACTIONS === 'true' ? annotations(report, redactor) : '';
}
