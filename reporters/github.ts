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
  VERDICT_MEANING,
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

/** A run whose verdict exits 0 but that --strict (certification) fails with exit 3: MUST checks did not all run. */
export const failedByStrict = (r: Report): boolean =>
  r.strict && r.exit_code !== 0 && VERDICT_MEANING[r.verdict].exit === 0;

/** Why --strict failed the run, in one line (the reason says which MUST checks did not run). */
const strictLine = (r: Report): string => `the job fails (exit ${r.exit_code}): ${r.verdict_reason}`;

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
  for (const e of report.errors) lines.push(`::error title=the run::${escapeData(untrustedLine(redactor.redact(e)))}`);
  // No check's annotation says why a run that judged nothing fails the job (exit 3): the verdict does.
  if (report.verdict === 'nothing judged')
    lines.push(
      `::error title=${escapeProperty(VERDICT_WORD[report.verdict])}::${escapeData(untrustedLine(redactor.redact(report.verdict_reason)))}`,
    );
  // Nor does any check say why --strict failed a PARTIAL run (no check failed): the missing coverage does.
  if (failedByStrict(report))
    lines.push(
      `::error title=${escapeProperty(`${VERDICT_WORD[report.verdict]} fails the job (--strict)`)}::${escapeData(untrustedLine(redactor.redact(strictLine(report))))}`,
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
  const strict = failedByStrict(report);
  const out = [
    `## ${strict ? '❌' : icon} Conformance: ${VERDICT_WORD[report.verdict]}${strict ? ` — the job fails (--strict, exit ${report.exit_code})` : ''}`,
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
  for (const e of report.errors.slice(0, 20)) out.push('', `**The run:** ${md(e)}`);
  // Where the reports are is not the run's to say: an upload, if any, comes after it (action.yml names its artifact).
  out.push('');
  return out.join('\n');
}

/**
 * What in a path keeps it from being one line of upload-artifact's `path:` as itself, or None. That input is read as
 * one glob pattern per line: a line break would start another pattern, and * ? [ ] match other files (a `\` escapes
 * the next character outside Windows). upload-artifact also refuses " : < > | in the names it uploads (a `:` after a
 * Windows drive letter is a path's own).
 */
export function unsafeUploadPath(path: string, windows = process.platform === 'win32'): string | undefined {
  if (/[\r\n]/.test(path)) return 'a line break';
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'a control character';
  const glob = /[*?[\]]/.exec(path);
  if (glob) return `the glob character ${glob[0]}`;
  if (!windows && path.includes('\\')) return 'a backslash';
  const refused = /[":<>|]/.exec(path.replace(/^[A-Za-z]:(?=[\\/])/, ''));
  return refused ? `the character ${refused[0]}, which upload-artifact refuses` : undefined;
}

/** What in an artifact name upload-artifact refuses (" : < > | * ? \r \n \ /, and control characters), or None. */
export function unsafeArtifactName(name: string): string | undefined {
  if (/[\r\n]/.test(name)) return 'a line break';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a control character';
  const refused = /[":<>|*?\\/]/.exec(name);
  return refused ? `the character ${refused[0]}, which upload-artifact refuses in an artifact name` : undefined;
}

/**
 * Step outputs for the step that ran the suite: the verdict, the report files this run wrote and their directory (as
 * the run resolved it from the file, environment or flags), so a later step uploads exactly those files. Values go in
 * the delimiter form with a random delimiter: a file name cannot end its value and set another output.
 */
export function stepOutputs(report: Report, files: string[]): string {
  const delimiter = `conformance_${randomUUID()}`;
  // The Action refuses such a report directory before the run (app/action-inputs.ts); a path that is no safe line
  // of upload-artifact's `path:` is never an output whatever else set it.
  const all = files.map((f) => resolve(f));
  const paths = all.some((p) => unsafeUploadPath(p) !== undefined) ? [] : all;
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
