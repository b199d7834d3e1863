import { commandArgs } from './command-args.js';
import { writeOutputFile } from './output-file.js';
import { existsSync } from 'node:fs';
import { readCappedText } from '../core/base/regular-file.js';
import { parseYaml, yaml, YamlRefused } from '../core/config/yaml.js';
import { ConfigError, fileProblem } from '../core/config/config.js';
import { didYouMean } from '../core/config/suggest.js';
import { checkRecord, judge, type BaselineMark, type CheckRecord, type Report } from '../core/model/report.js';
import { formatErrors, validate } from '../core/spec/schemas.js';
import { readReport } from './diff.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import { counted } from '../core/base/counted.js';

/**
 * The baseline gate for CI (schemas/baseline.schema.json): a YAML list of known failures
 * {id, reason, expires?, fingerprints?}. A listed check that fails with no fingerprint beyond the entry's is 'known'
 * (visible, does not gate); one that fails with a fingerprint the entry does not list is 'new' (gates, naming what is
 * new: a baseline written on one broken record does not hide another); a listed check that passes is 'stale' (gates
 * until the entry is removed, so the baseline only shrinks); a listed check that fails after its expiry date is
 * 'expired' (gates like a new failure). Failures not listed gate as usual. An entry without fingerprints (written by
 * an older version) accepts any failure of its check, with a warning.
 */
export interface BaselineEntry {
  id: string;
  reason: string;
  expires?: string;
  fingerprints?: string[];
}

/** Today as YYYY-MM-DD in UTC: an entry holds through its expiry day. */
export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);

/**
 * Reads a baseline file's YAML into its entries, refusing one that does not match schemas/baseline.schema.json or names
 * a check the suite does not have (a usage error naming the file).
 */
export function parseBaseline(text: string, file: string, knownIds?: ReadonlySet<string>): BaselineEntry[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    if (!(e instanceof YamlRefused)) throw e;
    throw new ConfigError(`baseline ${file} is not valid YAML: ${e.message}`);
  }
  doc ??= [];
  const errors = validate('baseline', doc);
  if (errors.length)
    throw new ConfigError(
      `baseline ${file} is invalid: ${formatErrors(errors, 1)} (expected a list of {id, reason, expires?: YYYY-MM-DD})`,
    );
  const entries = doc as BaselineEntry[];
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.id)) throw new ConfigError(`baseline ${file} lists ${e.id} twice`);
    seen.add(e.id);
    if (knownIds && !knownIds.has(e.id))
      throw new ConfigError(
        `baseline ${file} lists ${e.id}, which is not a check of this suite${didYouMean(e.id, [...knownIds])}`,
      );
    if (e.expires && Number.isNaN(Date.parse(`${e.expires}T00:00:00Z`)))
      throw new ConfigError(`baseline ${file}: ${e.id} expires on ${e.expires}, which is not a date`);
  }
  return entries;
}

/** The entries of the baseline file --baseline names; an unreadable file is a usage error, said in one line. */
export function readBaseline(file: string, knownIds?: ReadonlySet<string>): BaselineEntry[] {
  let text: string;
  try {
    text = readCappedText(file, 'baseline');
  } catch (e) {
    throw new ConfigError(`cannot read baseline ${file}: ${fileProblem(e)}`);
  }
  return parseBaseline(text, file, knownIds);
}

/** One line per entry that has no fingerprints: it accepts any failure of its check. Empty when all have them. */
export function legacyWarnings(entries: BaselineEntry[], file: string): string[] {
  const old = entries.filter((e) => !e.fingerprints).map((e) => e.id);
  return old.length
    ? [
        `warning: baseline ${file}: ${old.join(', ')} ha${old.length > 1 ? 've' : 's'} no fingerprints, so any failure of ${old.length > 1 ? 'those checks' : 'that check'} counts as known; run "conformance baseline" again to record what exactly fails`,
      ]
    : [];
}

/**
 * One check record marked by the baseline: a new record, its outcome derived by the one rule (checkRecord in
 * core/model/report.ts). The verdict is never decided here: judge (core/model/report.ts) derives it from the marked records, so
 * a known MUST failure is NOT CONFORMANT — NO NEW FAILURES, never CONFORMANT. Skipped, incomplete and errored checks
 * are left unmarked: nothing is known about them.
 */
export function markRecord(
  rec: CheckRecord,
  entries: ReadonlyMap<string, BaselineEntry>,
  today = todayUtc(),
): CheckRecord {
  return checkRecord(rec, rec, baselineMark(rec, entries.get(rec.id), today));
}

/** What a baseline entry says of a check's record, or undefined (not listed, or nothing known of it). */
function baselineMark(rec: CheckRecord, e: BaselineEntry | undefined, today: string): BaselineMark | undefined {
  if (!e) return undefined;
  const extra = e.expires ? { expires: e.expires } : {};
  if (rec.status === 'passed') return { state: 'stale', reason: e.reason, ...extra };
  if (rec.status !== 'failed') return undefined;
  const listed = e.fingerprints ? new Set(e.fingerprints) : undefined;
  const fresh = listed ? (rec.fingerprints ?? [rec.id]).filter((f) => !listed.has(f)) : [];
  if (e.expires && e.expires < today) return { state: 'expired', reason: e.reason, ...extra };
  if (fresh.length) return { state: 'new', reason: e.reason, ...extra, new_fingerprints: fresh };
  return { state: 'known', reason: e.reason, ...extra };
}

/** The entries by check id, for marking records and for keeping reasons when the baseline is written again. */
export const entryMap = (entries: BaselineEntry[]): Map<string, BaselineEntry> =>
  new Map(entries.map((e) => [e.id, e]));

/** The report with every check marked and its verdict, exit code and counts judged again (coverage stays). */
export function applyBaseline(report: Report, entries: BaselineEntry[], today = todayUtc()): Report {
  const map = entryMap(entries);
  const checks = report.checks.map((c) => markRecord(c, map, today));
  return judge({ ...report, checks }, { coverage: report.coverage });
}

/**
 * A baseline from a report: every failed MUST check (SHOULD failures never gate, so listing them would only make
 * stale entries). Reasons and expiry dates of an existing baseline are kept for checks that still fail.
 */
export function baselineFromReport(report: Report, previous: BaselineEntry[] = []): BaselineEntry[] {
  const before = entryMap(previous);
  const day = report.started_at.slice(0, 10);
  return report.checks
    .filter((c) => c.level === 'MUST' && c.status === 'failed')
    .map((c) => {
      const old = before.get(c.id);
      const fingerprints = c.fingerprints ?? [c.id];
      // Reason and expiry of an existing entry stay (extending an expired one is a decision for a person); what
      // fails is recorded as it is now: regenerating a baseline accepts the current failures.
      if (old) return { ...old, fingerprints };
      return {
        id: c.id,
        reason: `fails since ${day}: ${c.message.length > 200 ? `${c.message.slice(0, 200)}…` : c.message}`,
        fingerprints,
      };
    });
}

/** The YAML `conformance baseline` writes: a header naming the report it came from, then the entries. */
export function baselineYaml(entries: BaselineEntry[], source: string): string {
  const head = [
    `# Known failures for conformance --baseline (written by "conformance baseline" from ${untrustedLine(source)}).`,
    '# Listed checks that fail do not fail the run; a listed check that passes is stale and fails the run until removed.',
    '# Edit each reason; add "expires: YYYY-MM-DD" to make a failure gate again after that day.',
  ].join('\n');
  return `${head}\n${entries.length ? yaml().stringify(entries, { lineWidth: 0 }) : '[]\n'}`;
}

/** Reads an existing baseline if the file is there (to keep its reasons), else none. */
export function previousBaseline(file: string): BaselineEntry[] {
  return existsSync(file) ? readBaseline(file) : [];
}

/** `conformance baseline --help`. */
export const BASELINE_USAGE = `Usage: conformance baseline [report.json | report dir] [--out known-failures.yaml | -]
Writes the failed MUST checks of a report (default conformance-report/report.json) as a baseline for --baseline;
reasons of an existing file are kept.
  --out, -o <file>      The baseline file (default known-failures.yaml; - prints it)
  --help, -h            This help
`;

/**
 * `conformance baseline [report.json] [--out known-failures.yaml]`: writes a baseline from a report (default
 * conformance-report/report.json); `--out -` prints it. Returns the exit code.
 */
export function baselineCommand(argv: string[], out: (s: string) => void): number {
  const parsed = commandArgs(
    { args: argv, options: { out: { type: 'string', short: 'o' } }, allowPositionals: true },
    (m) => `baseline: ${m} (see baseline --help)`,
    BASELINE_USAGE,
  );
  if (parsed.positionals.length > 1)
    throw new ConfigError('baseline: give one report.json or report directory (see baseline --help)');
  const source = parsed.positionals[0] ?? 'conformance-report/report.json';
  const target = parsed.values.out ?? 'known-failures.yaml';
  const report = readReport(source);
  const entries = baselineFromReport(report, target === '-' ? [] : previousBaseline(target));
  const text = baselineYaml(entries, source);
  if (target === '-') out(text);
  else {
    writeOutputFile(target, text);
    out(
      `Wrote ${counted(entries.length, 'known failure')} to ${untrustedLine(target)}: give it to runs with --baseline ${untrustedLine(target)}, and edit the reasons.\n`,
    );
  }
  return 0;
}
