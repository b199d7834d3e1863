import { AREAS } from '../src/check.js';
import type { CheckRecord, Report } from '../src/report.js';

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, s: string): string => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const TAG: Record<CheckRecord['status'], (level: string) => string> = {
  passed: () => paint(32, 'PASS'),
  failed: (level) => (level === 'MUST' ? paint(31, 'FAIL') : paint(33, 'WARN')),
  skipped: () => paint(90, 'SKIP'),
  incomplete: () => paint(35, 'INC '),
  error: () => paint(35, 'ERR '),
};

/**
 * Server text on one terminal line: line breaks shown as ⏎ and other control characters as \uXXXX, so a hostile
 * server can neither move the cursor or recolour the terminal nor start a CI workflow command (`::error…`) on a
 * line of its own.
 */
export function oneLine(s: string): string {
  return s.replace(/\r\n|\r|\n|\u2028|\u2029/g, ' ⏎ ').replace(/[\u0000-\u001F\u007F-\u009F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line per check as it finishes: progress for a person watching, a log for CI. */
export function progressLine(r: CheckRecord): string {
  const known = r.baseline?.state === 'known' ? ' (known failure)' : '';
  return `  ${TAG[r.status](r.level)} ${r.id.padEnd(16)} ${r.title}${known}`;
}

/** The closing summary: counts by area, then every failed or errored check with its message. */
export function summaryText(report: Report, reportFiles: string[]): string {
  const out: string[] = [''];
  out.push('Summary by area:');
  for (const area of AREAS) {
    const c = report.summary.by_area[area];
    if (!c) continue;
    out.push(`  ${area.padEnd(12)} ${String(c.passed).padStart(3)} passed  ${String(c.failed).padStart(3)} failed  ${String(c.skipped).padStart(3)} skipped${c.error ? `  ${c.error} error` : ''}`);
  }
  const problems = report.checks.filter((c) => c.status === 'failed' || c.status === 'error' || c.baseline?.state === 'stale');
  if (problems.length) {
    out.push('', 'Findings:');
    for (const c of problems) {
      const b = c.baseline;
      const kind = c.status === 'error' ? 'ERROR' : b?.state === 'stale' ? 'STALE BASELINE' : b?.state === 'known' ? 'KNOWN FAILURE' : b?.state === 'expired' ? 'FAIL (baseline entry expired)' : c.level === 'MUST' ? 'FAIL' : `${c.level} WARN`;
      out.push(`  ${kind} ${c.id} [${c.spec}] ${c.title}`, `      ${oneLine(c.message)}`);
      if (b) out.push(`      baseline: ${oneLine(b.reason)}${b.expires ? ` (expires ${b.expires})` : ''}${b.state === 'stale' ? ' — passes now: remove the entry' : ''}`);
      if (c.fuzz) out.push(`      replay: ${oneLine(c.fuzz.replay)}`);
    }
  }
  const skipped = report.checks.filter((c) => c.status === 'skipped' && !c.message.startsWith('blocked'));
  if (skipped.length) {
    out.push('', 'Skipped:');
    for (const c of skipped) out.push(`  ${c.id}: ${oneLine(c.message)}`);
  }
  for (const e of report.errors) out.push(`  HARNESS ERROR: ${oneLine(e)}`);
  const s = report.summary;
  const must = s.by_level.MUST;
  const should = s.by_level.SHOULD;
  const known = report.checks.filter((c) => c.level === 'MUST' && c.baseline?.state === 'known').length;
  out.push('', `${report.verdict === 'conformant' ? paint(32, 'CONFORMANT') : report.verdict === 'incomplete' ? paint(35, 'INCOMPLETE') : paint(31, 'NOT CONFORMANT')}: MUST ${must.passed} passed, ${must.failed} failed${known ? ` (${known} known)` : ''}; SHOULD ${should.passed} passed, ${should.failed} warned; ${s.skipped} skipped${s.error ? `, ${s.error} errors` : ''} (${report.checks.length} checks, ${(report.duration_ms / 1000).toFixed(1)} s)`);
  for (const f of reportFiles) out.push(`Report: ${f}`);
  return `${out.join('\n')}\n`;
}
