import { readFileSync } from 'node:fs';
import { ConfigError } from './config.js';
import type { CheckRecord, Report } from './report.js';
import { formatErrors, validate } from './schemas.js';
import { oneLine } from '../reporters/terminal.js';

/**
 * What changed between two runs (`conformance diff old/report.json new/report.json`), by check ID:
 * regressed — passed or skipped before, failed or broke now (INFO never fails, so never regresses);
 * fixed — failed or broke before, passes now; new / removed — the check exists in one report only (the suite
 * changed); still failing — failed in both. Exit 1 when anything regressed.
 */
export interface DiffEntry { id: string; title: string; level: CheckRecord['level']; before?: CheckRecord['status']; after?: CheckRecord['status']; message?: string }
export interface ReportDiff { regressed: DiffEntry[]; fixed: DiffEntry[]; added: DiffEntry[]; removed: DiffEntry[]; stillFailing: DiffEntry[] }

const bad = (s: CheckRecord['status'] | undefined): boolean => s === 'failed' || s === 'error';

export function diffReports(oldR: Pick<Report, 'checks'>, newR: Pick<Report, 'checks'>): ReportDiff {
  const before = new Map(oldR.checks.map((c) => [c.id, c]));
  const after = new Map(newR.checks.map((c) => [c.id, c]));
  const d: ReportDiff = { regressed: [], fixed: [], added: [], removed: [], stillFailing: [] };
  for (const n of newR.checks) {
    const o = before.get(n.id);
    const entry: DiffEntry = { id: n.id, title: n.title, level: n.level, ...(o ? { before: o.status } : {}), after: n.status, message: n.message };
    if (!o) d.added.push(entry);
    else if (bad(n.status) && !bad(o.status)) d.regressed.push(entry);
    else if (bad(o.status) && n.status === 'passed') d.fixed.push(entry);
    else if (bad(o.status) && bad(n.status)) d.stillFailing.push(entry);
  }
  for (const o of oldR.checks) if (!after.has(o.id)) d.removed.push({ id: o.id, title: o.title, level: o.level, before: o.status });
  return d;
}

export function diffText(d: ReportDiff, oldName: string, newName: string): string {
  const out = [`Comparing ${oldName} → ${newName}`];
  const section = (title: string, list: DiffEntry[], line: (e: DiffEntry) => string): void => {
    if (!list.length) return;
    out.push('', `${title} (${list.length}):`, ...list.map((e) => `  ${line(e)}`));
  };
  section('Regressed', d.regressed, (e) => `${e.id} [${e.level}] ${e.before} → ${e.after}: ${oneLine(e.message ?? '')}`);
  section('Fixed', d.fixed, (e) => `${e.id} [${e.level}] ${e.before} → ${e.after}: ${e.title}`);
  section('New checks', d.added, (e) => `${e.id} [${e.level}] ${e.after}: ${e.title}`);
  section('Removed checks', d.removed, (e) => `${e.id} [${e.level}] was ${e.before}: ${e.title}`);
  section('Still failing', d.stillFailing, (e) => `${e.id} [${e.level}] ${e.after}`);
  out.push('', d.regressed.length
    ? `${d.regressed.length} regressed, ${d.fixed.length} fixed`
    : `nothing regressed; ${d.fixed.length} fixed`);
  return `${out.join('\n')}\n`;
}

/** Reads a report.json and checks it against schemas/report.schema.json (a wrong file is a usage error, exit 2). */
export function readReport(file: string): Report {
  let value: unknown;
  try { value = JSON.parse(readFileSync(file, 'utf8')); } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0];
    throw new ConfigError(`cannot read report ${file}: ${why}`);
  }
  const errors = validate('report', value);
  if (errors.length) throw new ConfigError(`${file} is not a conformance report.json: ${formatErrors(errors, 1)}`);
  return value as Report;
}

/** `conformance diff old/report.json new/report.json`: prints the changes; exit 1 when something regressed. */
export function diffCommand(argv: string[], out: (s: string) => void): number {
  if (argv.includes('--help') || argv.includes('-h')) { out('Usage: conformance diff old/report.json new/report.json\nPrints regressed, fixed, new and removed checks; exits 1 when something regressed.\n'); return 0; }
  if (argv.length !== 2 || argv.some((a) => a.startsWith('-'))) throw new ConfigError('usage: conformance diff old/report.json new/report.json');
  const [a, b] = argv as [string, string];
  const d = diffReports(readReport(a), readReport(b));
  out(diffText(d, a, b));
  return d.regressed.length ? 1 : 0;
}
