import { tool } from '../core/base/paths.js';
import { runMatrix } from '../suites/rules/index.js';
import {
  coverageOf,
  outcomeOf,
  verdictOf,
  VERDICT_MEANING,
  type CatalogueEntry,
  type CheckRecord,
  type Coverage,
  type ExitCode,
  type Report,
  type Verdict,
} from '../core/model/report.js';

/** A report's verdict as its checks give it (rejudged). */
export interface Rejudged {
  verdict: Verdict;
  exit_code: ExitCode;
  coverage: Coverage;
  /** The checks with their outcomes derived from status, level and baseline mark. */
  checks: CheckRecord[];
}

/**
 * The catalogue a report was judged against, as far as the report shows it: its own checks and the MUST checks its
 * coverage says were not judged. A report that claims coverage without the checks to back it gains nothing: a
 * MUST check it neither holds nor lists is not in this catalogue, and one it lists as not run is not judged.
 */
function catalogueOf(report: Report): CatalogueEntry[] {
  const entries: CatalogueEntry[] = report.checks.map((c) => ({ id: c.id, level: c.level }));
  const held = new Set(entries.map((e) => e.id));
  for (const n of report.coverage.not_run) if (!held.has(n.id)) entries.push({ id: n.id, level: 'MUST' });
  return entries;
}

/**
 * A report's verdict, exit code and coverage recomputed from its checks by this suite's rule (verdictOf), never
 * taken from its `verdict`, `exit_code` or `coverage` fields: what `merge`, `diff` and `verify` go by. `heads` is
 * this version's catalogue, used for a report of this very version; any other report is judged against the
 * catalogue it shows (catalogueOf). A report with no judged MUST check is NOTHING JUDGED.
 */
export function rejudge(report: Report, heads?: readonly CatalogueEntry[]): Rejudged {
  const checks = report.checks.map((c) => ({ ...c, outcome: outcomeOf(c) }));
  const ours = heads !== undefined && report.tool.name === tool.name && report.tool.version === tool.version;
  // This version's rule matrix, for the applications the report's run had configured: cells it left unprobed make
  // a run PARTIAL (#35) as they did when it was built. A report of another version is judged by its checks alone.
  const coverage = ours
    ? coverageOf(checks, [...heads], undefined, runMatrix({ ...report.config, fuzz: report.fuzz }))
    : coverageOf(checks, catalogueOf(report));
  const v = verdictOf(checks, report.errors, coverage, report.strict);
  // A run stopped before any check (a setup mistake, an interruption) is NOTHING JUDGED whatever else (buildReport).
  if (report.verdict === 'nothing judged' && coverage.must_judged === 0)
    return { verdict: 'nothing judged', exit_code: VERDICT_MEANING['nothing judged'].exit, coverage, checks };
  return { verdict: v.verdict, exit_code: v.exit_code, coverage, checks };
}
