import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readReportBytes } from '../core/base/regular-file.js';
import { ConfigError, fileProblem } from '../core/config/config.js';
import { commandArgs } from './command-args.js';
import {
  outcomeOf,
  OUTCOMES,
  VERDICT_WORD,
  type CheckRecord,
  type Outcome,
  type Report,
} from '../core/model/report.js';
import { validate } from '../core/spec/schemas.js';
import { oneLine } from '../reporters/terminal.js';
import { rejudge } from './rejudge.js';
import { loadCheckHeads } from './check-heads.js';

/**
 * What changed between two runs (`conformance diff old/report.json new/report.json`), by check ID and, inside a
 * check, by fingerprint: regressed — not failing before, failing now (failed, warned, stale, expired or error; INFO
 * never fails, so never regresses); fixed — failing before, passes now; still failing — failing in both, with the
 * findings added and removed between them (an added one is a regression too); lost coverage — a MUST or SHOULD check
 * that judged the server before (passed or failed) and does not now (skipped, incomplete, or absent from the new
 * report): what it would have caught is no longer watched; new / removed — the check exists in one report only and
 * judged nothing before. The verdicts are compared too. Exit 1 when anything regressed or coverage was lost.
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
/** What changed between two reports, check by check, as `conformance diff` prints it. */
export interface ReportDiff {
  regressed: DiffEntry[];
  fixed: DiffEntry[];
  added: DiffEntry[];
  removed: DiffEntry[];
  stillFailing: DiffEntry[];
  /** Checks that judged the server before and not now (after: skipped or incomplete; absent when not in the report). */
  lostCoverage: DiffEntry[];
  /** The two runs' verdicts, when both reports have one. */
  verdict?: { before: Report['verdict']; after: Report['verdict'] };
  /** The two runs' base URLs, when they differ: the changes may be the targets', not a build's. */
  targets?: { before: string; after: string };
}

/** Failing for a diff: a finding a reader must act on, or an error of the suite. */
const failing = (o: Outcome | undefined): boolean => o !== undefined && (OUTCOMES[o].finding || o === 'error');

/**
 * What the server did, without the baseline: a diff compares two builds of a server, and a baseline entry (known,
 * stale) says what someone accepted, not what changed.
 */
const served = (c: CheckRecord): Outcome => outcomeOf({ status: c.status, level: c.level });

/** A check that judged the server: it passed or failed (an INFO check observes, it judges nothing). */
const judged = (c: CheckRecord | undefined): boolean =>
  c !== undefined && c.level !== 'INFO' && (c.status === 'passed' || c.status === 'failed');

/** Compares two reports check by check; a check that judged the server before and does not now is lost coverage. */
export function diffReports(
  oldR: Pick<Report, 'checks'> & Partial<Pick<Report, 'verdict'>>,
  newR: Pick<Report, 'checks'> & Partial<Pick<Report, 'verdict'>>,
): ReportDiff {
  const beforeById = new Map(oldR.checks.map((c) => [c.id, c]));
  const afterById = new Map(newR.checks.map((c) => [c.id, c]));
  const d: ReportDiff = { regressed: [], fixed: [], added: [], removed: [], stillFailing: [], lostCoverage: [] };
  if (oldR.verdict && newR.verdict) d.verdict = { before: oldR.verdict, after: newR.verdict };
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
    else if (judged(o) && (now === 'skipped' || now === 'incomplete')) d.lostCoverage.push(entry);
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
    if (!afterById.has(o.id))
      (judged(o) ? d.lostCoverage : d.removed).push({
        id: o.id,
        title: o.title,
        level: o.level,
        before: served(o),
        ...(judged(o) ? { message: 'not in the new report' } : {}),
      });
  return d;
}

const fingerprintList = (list: string[]): string =>
  `${list.slice(0, 8).map(oneLine).join(', ')}${list.length > 8 ? `, … (${list.length} in all)` : ''}`;

/** The diff as the terminal shows it, file names escaped (they are untrusted). */
export function diffText(d: ReportDiff, oldName: string, newName: string): string {
  const out = [`Comparing ${oneLine(oldName)} → ${oneLine(newName)}`];
  if (d.targets)
    out.push(
      `Warning: the reports are of different targets (${oneLine(d.targets.before)} → ${oneLine(d.targets.after)}): what changed may be the target, not the build`,
    );
  if (d.verdict)
    out.push(
      d.verdict.before === d.verdict.after
        ? `Verdict: ${VERDICT_WORD[d.verdict.after]} in both`
        : `Verdict: ${VERDICT_WORD[d.verdict.before]} → ${VERDICT_WORD[d.verdict.after]}`,
    );
  const section = (title: string, list: DiffEntry[], line: (e: DiffEntry) => string): void => {
    if (!list.length) return;
    out.push('', `${title} (${list.length}):`, ...list.map((e) => `  ${line(e)}`));
  };
  section('Regressed', d.regressed, (e) =>
    e.findings_added
      ? `${e.id} [${e.level}] still ${e.after}, with new findings: ${fingerprintList(e.findings_added)}`
      : `${e.id} [${e.level}] ${e.before} → ${e.after}: ${oneLine(e.message ?? '')}`,
  );
  section(
    'Lost coverage (judged before, not now)',
    d.lostCoverage,
    (e) => `${e.id} [${e.level}] ${e.before} → ${e.after ?? 'absent'}: ${oneLine(e.message ?? '')}`,
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
  const lost = d.lostCoverage.length;
  out.push(
    '',
    d.regressed.length || lost
      ? `${d.regressed.length} regressed, ${lost} lost coverage, ${d.fixed.length} fixed`
      : `nothing regressed, no coverage lost; ${d.fixed.length} fixed`,
  );
  return `${out.join('\n')}\n`;
}

/** A report's file: the path given, or the report.json in it when it is a report directory. */
export function reportFileOf(path: string): string {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ? join(path, 'report.json') : path;
}

/**
 * Reads a report.json (or the one in a report directory) and checks it against schemas/report.schema.json (a wrong
 * file is a usage error, exit 2).
 */
export function readReport(path: string): Report {
  return readReportFile(path).report;
}

/** A report.json's bytes as read (what an attestation's digest covers) and the report they hold. */
export function readReportFile(path: string): { bytes: Buffer; report: Report } {
  const file = reportFileOf(path);
  let bytes: Buffer;
  try {
    bytes = readReportBytes(file);
  } catch (e) {
    throw new ConfigError(`cannot read report ${file}: ${fileProblem(e)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    // JSON.parse's message quotes the text around the error: a file that is no report may be a key file.
    const at = /position (\d+)/.exec((e as Error).message)?.[1];
    throw new ConfigError(
      `${file} is not a conformance report.json: not JSON${at !== undefined ? ` (at byte offset ${at})` : ''}`,
    );
  }
  const errors = validate('report', value);
  // The schema's words quote the file's key names and values: said by count and by where, never what.
  if (errors.length)
    throw new ConfigError(
      `${file} is not a conformance report.json: it does not have the shape of schemas/report.schema.json (${errors.length} problem${errors.length === 1 ? '' : 's'})`,
    );
  // Reports of older versions carry no outcomes: derived here, by the one rule.
  const report = value as Report;
  return {
    bytes,
    report: { ...report, checks: report.checks.map((c) => ({ ...c, outcome: c.outcome ?? outcomeOf(c) })) },
  };
}

/** `conformance diff --help`. */
export const DIFF_USAGE = `Usage: conformance diff <old report.json | report dir> <new report.json | report dir>
Prints the verdicts and the regressed, lost-coverage, fixed, new and removed checks; exits 1 when something regressed
or a check that judged the server before does not now (skipped, incomplete or absent).
  --help, -h            This help
`;

/**
 * `conformance diff old new` (each a report.json or a report directory): prints the changes; exit 1 when something
 * regressed or coverage was lost.
 */
export async function diffCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { positionals } = commandArgs(
    { args: argv, options: {}, allowPositionals: true },
    (m) => `diff: ${m} (see diff --help)`,
    DIFF_USAGE,
  );
  if (positionals.length !== 2)
    throw new ConfigError('diff: give two reports, the old then the new (report.json files or report directories)');
  const [a, b] = positionals as [string, string];
  const [before, after] = [readReport(a), readReport(b)];
  // The verdicts as each report's checks give them, never as its verdict field says (rejudge).
  const heads = await loadCheckHeads();
  const d = diffReports(
    { checks: before.checks, verdict: rejudge(before, heads).verdict },
    { checks: after.checks, verdict: rejudge(after, heads).verdict },
  );
  if (before.target.base_url !== after.target.base_url)
    d.targets = { before: before.target.base_url, after: after.target.base_url };
  out(diffText(d, a, b));
  return d.regressed.length || d.lostCoverage.length ? 1 : 0;
}
