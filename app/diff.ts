import { readReportText } from '../core/regular-file.js';
import { ConfigError } from '../core/config.js';
import { outcomeOf, OUTCOMES, type CheckRecord, type Outcome, type Report } from '../core/report.js';
import { formatErrors, validate } from '../core/schemas.js';
import { oneLine } from '../reporters/terminal.js';

/**
 * What changed between two runs (`conformance diff old/report.json new/report.json`), by check ID and, inside a
 * check, by fingerprint: regressed — not failing before, failing now (failed, warned, stale, expired or error; INFO
 * never fails, so never regresses); fixed — failing before, passes now; still failing — failing in both, with the
 * findings added and removed between them (an added one is a regression too); new / removed — the check exists in
 * one report only (the suite changed). A check that did not finish (incomplete) judged nothing: no change either
 * way. Exit 1 when anything regressed.
 */
export interface DiffEntry {
  id: string;
  title: string;
  level: CheckRecord['level'];
  before?: Outcome;
  after?: Outcome;
  message?: string;
  /** Still failing: fingerprints failing now and not before, and the other way round. */
  findings_added?: string[];
  findings_removed?: string[];
}
export interface ReportDiff {
  regressed: DiffEntry[];
  fixed: DiffEntry[];
  added: DiffEntry[];
  removed: DiffEntry[];
  stillFailing: DiffEntry[];
}

/** Failing for a diff: a finding a reader must act on, or an error of the suite. */
const failing = (o: Outcome | undefined): boolean => o !== undefined && (OUTCOMES[o].finding || o === 'error');

/**
 * What the server did, without the baseline: a diff compares two builds of a server, and a baseline entry (known,
 * stale) says what someone accepted, not what changed.
 */
const served = (c: CheckRecord): Outcome => outcomeOf({ status: c.status, level: c.level });

export function diffReports(oldR: Pick<Report, 'checks'>, newR: Pick<Report, 'checks'>): ReportDiff {
  const beforeById = new Map(oldR.checks.map((c) => [c.id, c]));
  const afterById = new Map(newR.checks.map((c) => [c.id, c]));
  const d: ReportDiff = { regressed: [], fixed: [], added: [], removed: [], stillFailing: [] };
  for (const n of newR.checks) {
    const o = beforeById.get(n.id);
    const [was, now] = [o && served(o), served(n)];
    const entry: DiffEntry = {
      id: n.id,
      title: n.title,
      level: n.level,
      ...(was ? { before: was } : {}),
      after: now,
      message: n.message,
    };
    if (!o) d.added.push(entry);
    else if (failing(now) && !failing(was)) d.regressed.push(entry);
    else if (failing(was) && now === 'passed') d.fixed.push(entry);
    else if (failing(was) && failing(now)) {
      const before = new Set(o.fingerprints ?? []);
      const after = new Set(n.fingerprints ?? []);
      // Reports without fingerprints (older versions) compare as the check as a whole.
      const added = o.fingerprints && n.fingerprints ? [...after].filter((f) => !before.has(f)) : [];
      const removed = o.fingerprints && n.fingerprints ? [...before].filter((f) => !after.has(f)) : [];
      const still = {
        ...entry,
        ...(added.length ? { findings_added: added } : {}),
        ...(removed.length ? { findings_removed: removed } : {}),
      };
      d.stillFailing.push(still);
      if (added.length) d.regressed.push(still);
    }
  }
  for (const o of oldR.checks)
    if (!afterById.has(o.id)) d.removed.push({ id: o.id, title: o.title, level: o.level, before: served(o) });
  return d;
}

const fingerprintList = (list: string[]): string =>
  `${list.slice(0, 8).map(oneLine).join(', ')}${list.length > 8 ? `, … (${list.length} in all)` : ''}`;

export function diffText(d: ReportDiff, oldName: string, newName: string): string {
  const out = [`Comparing ${oldName} → ${newName}`];
  const section = (title: string, list: DiffEntry[], line: (e: DiffEntry) => string): void => {
    if (!list.length) return;
    out.push('', `${title} (${list.length}):`, ...list.map((e) => `  ${line(e)}`));
  };
  section('Regressed', d.regressed, (e) =>
    e.findings_added
      ? `${e.id} [${e.level}] still ${e.after}, with new findings: ${fingerprintList(e.findings_added)}`
      : `${e.id} [${e.level}] ${e.before} → ${e.after}: ${oneLine(e.message ?? '')}`,
  );
  section('Fixed', d.fixed, (e) => `${e.id} [${e.level}] ${e.before} → ${e.after}: ${e.title}`);
  section('New checks', d.added, (e) => `${e.id} [${e.level}] ${e.after}: ${e.title}`);
  section('Removed checks', d.removed, (e) => `${e.id} [${e.level}] was ${e.before}: ${e.title}`);
  section(
    'Still failing',
    d.stillFailing,
    (e) =>
      `${e.id} [${e.level}] ${e.after}${e.findings_added ? `; new: ${fingerprintList(e.findings_added)}` : ''}${e.findings_removed ? `; gone: ${fingerprintList(e.findings_removed)}` : ''}`,
  );
  out.push(
    '',
    d.regressed.length
      ? `${d.regressed.length} regressed, ${d.fixed.length} fixed`
      : `nothing regressed; ${d.fixed.length} fixed`,
  );
  return `${out.join('\n')}\n`;
}

/** Reads a report.json and checks it against schemas/report.schema.json (a wrong file is a usage error, exit 2). */
export function readReport(file: string): Report {
  let value: unknown;
  try {
    value = JSON.parse(readReportText(file));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0];
    throw new ConfigError(`cannot read report ${file}: ${why}`);
  }
  const errors = validate('report', value);
  if (errors.length) throw new ConfigError(`${file} is not a conformance report.json: ${formatErrors(errors, 1)}`);
  // Reports of older versions carry no outcomes: derived here, by the one rule.
  const report = value as Report;
  return { ...report, checks: report.checks.map((c) => ({ ...c, outcome: c.outcome ?? outcomeOf(c) })) };
}

/** `conformance diff old/report.json new/report.json`: prints the changes; exit 1 when something regressed. */
export function diffCommand(argv: string[], out: (s: string) => void): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    out(
      'Usage: conformance diff old/report.json new/report.json\nPrints regressed, fixed, new and removed checks; exits 1 when something regressed.\n',
    );
    return 0;
  }
  if (argv.length !== 2 || argv.some((a) => a.startsWith('-')))
    throw new ConfigError('usage: conformance diff old/report.json new/report.json');
  const [a, b] = argv as [string, string];
  const d = diffReports(readReport(a), readReport(b));
  out(diffText(d, a, b));
  return d.regressed.length ? 1 : 0;
}
