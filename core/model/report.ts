import { naturalOrder } from '../base/natural-order.js';
import type { Area, CheckResult, Level, Status } from './check.js';
import { AREAS, REQUIREMENT_WORDS } from './check.js';
import { tool } from '../base/paths.js';
import { counted } from '../base/counted.js';

/**
 * The one outcome model. Every output (terminal, report.json, JUnit, HTML, GitHub annotations, job summary, diff,
 * merge) renders what is computed here and nowhere else: each check's outcome, whether it is a finding, whether it
 * gates, and the run's verdict, coverage and exit code.
 */

/**
 * How a check ended, after its level and the baseline are applied:
 * - passed; failed (a MUST rule broken: gates); warned (a SHOULD rule broken: does not gate);
 * - known (a failure the baseline lists, with no fingerprint beyond the entry's: does not gate);
 * - stale (the baseline lists it, it passes now: gates until the entry is removed); expired (a listed failure past
 *   the entry's expiry day: gates);
 * - skipped (not configured, not applicable, or blocked by another check's finding);
 * - incomplete (could not finish: no usable response, the deadline, an interruption; never the server's fault);
 * - error (the suite itself broke).
 */
export type Outcome =
  'passed' | 'failed' | 'warned' | 'known' | 'stale' | 'expired' | 'skipped' | 'incomplete' | 'error';

/** What each outcome means for the run. A Record, so the compiler proves every outcome is described. */
export const OUTCOMES: Record<
  Outcome,
  {
    /** The word every output shows. */
    word: string;
    /** A finding: something about the server a reader must act on (listed first, shown with evidence). */
    finding: boolean;
    /** Fails the run (NOT CONFORMANT, exit 1). */
    gates: boolean;
    /** Most severe first, for ordering findings. */
    severity: number;
  }
> = {
  failed: { word: 'FAIL', finding: true, gates: true, severity: 0 },
  expired: { word: 'EXPIRED', finding: true, gates: true, severity: 1 },
  stale: { word: 'STALE', finding: true, gates: true, severity: 2 },
  error: { word: 'ERROR', finding: false, gates: false, severity: 3 },
  incomplete: { word: 'INCOMPLETE', finding: false, gates: false, severity: 4 },
  warned: { word: 'WARN', finding: true, gates: false, severity: 5 },
  known: { word: 'KNOWN', finding: true, gates: false, severity: 6 },
  skipped: { word: 'SKIP', finding: false, gates: false, severity: 7 },
  passed: { word: 'PASS', finding: false, gates: false, severity: 8 },
};

/** The outcomes from the most severe to the least: the order every renderer lists them in. */
export const OUTCOME_ORDER = (Object.keys(OUTCOMES) as Outcome[]).sort(
  (a, b) => OUTCOMES[a].severity - OUTCOMES[b].severity,
);

/** What a baseline said about a check (app/baseline.ts). */
export interface BaselineMark {
  state: 'known' | 'stale' | 'expired' | 'new';
  reason: string;
  expires?: string;
  /** state 'new': what fails now that the entry does not list (the run fails on these). */
  new_fingerprints?: string[];
}

/** A check as the report holds it: its result, its declaration, its outcome and its baseline mark. */
export interface CheckRecord extends CheckResult {
  id: string;
  title: string;
  level: Level;
  spec: string;
  area: Area;
  /** Derived by outcomeOf: never set by hand. */
  outcome: Outcome;
  baseline?: BaselineMark;
}

/**
 * The run's verdict, each claiming no more than the run observed:
 * - conformant: every MUST check of the catalogue ran and passed, and no baseline entry was used;
 * - partial: nothing gates, but some MUST checks did not run (or ran on a sample), or the baseline excused a finding
 *   of a SHOULD or INFO check;
 * - known failures: a MUST check failed and the baseline lists it, nothing new gates (the CI gate is green, the
 *   server is not conformant);
 * - not conformant: a gating finding;
 * - incomplete: the run could not judge (a MUST check did not finish, the suite broke);
 * - nothing judged: no MUST check was judged at all (a setup stop, a recording that holds nothing to judge).
 */
export type Verdict = 'conformant' | 'partial' | 'known failures' | 'not conformant' | 'incomplete' | 'nothing judged';
/** The exit code of a run: 0 conformant, partial or known failures; 1 not conformant; 3 incomplete, nothing judged
 * (or partial under --strict). */
export type ExitCode = 0 | 1 | 3;

/** Words of the verdict, as every output shows them (terminal, report, HTML badge, JUnit, job summary, merge). */
export const VERDICT_WORD: Record<Verdict, string> = {
  conformant: 'CONFORMANT',
  partial: 'PASSED, PARTIAL',
  'known failures': 'NOT CONFORMANT — NO NEW FAILURES',
  'not conformant': 'NOT CONFORMANT',
  incomplete: 'INCOMPLETE',
  'nothing judged': 'NOTHING JUDGED',
};

/**
 * When each verdict is given and the exit code it gives, as the help, the README and the reports explain it (a
 * Record, so a new verdict must be explained).
 */
export const VERDICT_MEANING: Record<Verdict, { exit: ExitCode; when: string }> = {
  conformant: { exit: 0, when: 'every MUST check of the catalogue ran and passed, and no baseline entry was used' },
  partial: {
    exit: 0,
    when: 'no MUST check failed, but some did not run or ran on a sample, or the baseline excused a SHOULD or INFO finding (exit 3 with --strict)',
  },
  'known failures': {
    exit: 0,
    when: 'a MUST check failed and the baseline lists it, and nothing new fails: the gate is green, the server is not conformant (exit 3 with --strict when MUST checks did not run)',
  },
  'not conformant': {
    exit: 1,
    when: 'a MUST check failed outside the baseline, or a baseline entry is stale or expired',
  },
  incomplete: {
    exit: 3,
    when: 'a MUST check did not finish (a timeout, the deadline, an interruption), or the suite broke',
  },
  'nothing judged': {
    exit: 3,
    when: 'no MUST check was judged: the setup stopped the run, or the selection or recording holds no MUST check to judge',
  },
};

/** The verdicts from the worst to the best: a merge of several runs takes the first that any run has. */
export const VERDICT_ORDER: Verdict[] = [
  'incomplete',
  'nothing judged',
  'not conformant',
  'known failures',
  'partial',
  'conformant',
];

/** How many checks ended in each outcome. */
export type Counts = Record<Outcome, number>;

/** An INFO check that ran: an observation of what the server does, never judged; every output calls it INFO. */
export const isObservation = (c: Pick<CheckRecord, 'level' | 'outcome'>): boolean =>
  c.level === 'INFO' && c.outcome === 'passed';

/**
 * The outcomes of some checks with the observations (INFO checks that ran) counted apart: `passed` counts judged
 * checks only (an area's header must not call an observation a pass).
 */
export function judgedCounts(checks: ReadonlyArray<Pick<CheckRecord, 'level' | 'outcome'>>): {
  counts: Counts;
  observed: number;
} {
  const counts = zero();
  let observed = 0;
  for (const c of checks) {
    if (isObservation(c)) observed++;
    else counts[c.outcome]++;
  }
  return { counts, observed };
}

/** How much of the catalogue's MUST checks the run judged: CONFORMANT needs all of them. */
export interface Coverage {
  complete: boolean;
  must_total: number;
  must_judged: number;
  /** MUST checks that did not run, or ran on a sample only, each with why. */
  not_run: Array<{ id: string; why: string }>;
  /** One line: "6 MUST checks not run (4 need other_app, 2 not selected)". Empty when complete. */
  text: string;
  /** The rule matrix's applicable cells (docs/rules.md: every cell but those a quoted sentence makes not applicable). */
  cellsApplicable?: number;
  /** The applicable cells this run probed: a check that probes the cell ran to its end, for a configured application. */
  cellsProbed?: number;
  /**
   * The applicable cells no run of the suite probes yet (docs/rules.md, "not probed"): counted among those this run
   * did not probe, so that a matrix with any makes every run PARTIAL.
   */
  cellsGaps?: number;
  /** The cells per rule of the matrix, by its id in docs/rules.md. */
  rules?: Array<{ rule: string; applicable: number; probed: number }>;
}

/** One cell of the rule matrix as the verdict reads it: suites/rules/ makes them (the core imports no suite). */
export interface MatrixCell {
  rule: string;
  /** probed: by any of `checks`, for `app`; gap: no run of the suite probes it; not applicable: by a quoted sentence. */
  kind: 'probed' | 'gap' | 'not applicable';
  checks: readonly string[];
  app: string;
}

/** The matrix a report's coverage counts cells of, and the applications the run had configured. */
export interface RunMatrix {
  cells: readonly MatrixCell[];
  apps: readonly string[];
}

/**
 * The cells of the rule matrix this run probed (#35): a cell the suite probes counts when one of its checks ran to
 * its end (passed or failed, not skipped, unfinished or sampled) and the cell's application was configured.
 */
export function cellCoverageOf(
  matrix: RunMatrix,
  checks: readonly CheckRecord[],
): Required<Pick<Coverage, 'cellsApplicable' | 'cellsProbed' | 'cellsGaps' | 'rules'>> {
  const ran = new Set(
    checks.filter((c) => (c.status === 'passed' || c.status === 'failed') && !c.sampled).map((c) => c.id),
  );
  const apps = new Set(matrix.apps);
  const rules = new Map<string, { rule: string; applicable: number; probed: number }>();
  let gaps = 0;
  for (const cell of matrix.cells) {
    if (cell.kind === 'not applicable') continue;
    const r = rules.get(cell.rule) ?? { rule: cell.rule, applicable: 0, probed: 0 };
    rules.set(cell.rule, r);
    r.applicable++;
    if (cell.kind === 'gap') gaps++;
    else if (apps.has(cell.app) && cell.checks.some((id) => ran.has(id))) r.probed++;
  }
  const all = [...rules.values()];
  return {
    cellsApplicable: all.reduce((n, r) => n + r.applicable, 0),
    cellsProbed: all.reduce((n, r) => n + r.probed, 0),
    cellsGaps: gaps,
    rules: all,
  };
}

/** The whole result of a run, as report.json holds it and every renderer reads it. */
export interface Report {
  tool: { name: string; version: string };
  target: { base_url: string };
  started_at: string;
  duration_ms: number;
  verdict: Verdict;
  exit_code: ExitCode;
  /** Why the verdict is what it is, in one line (what failed, what was not finished, what was not run). */
  verdict_reason: string;
  /** --strict: a PARTIAL run exits 3. */
  strict: boolean;
  coverage: Coverage;
  summary: Counts & { by_level: Record<Level, Counts>; by_area: Partial<Record<Area, Counts>> };
  checks: CheckRecord[];
  fuzz: { seed: number; runs: number };
  config: Record<string, unknown>;
  /** Problems of the harness outside any single check (a worker crash, an interruption, an unhandled error). */
  errors: string[];
  /** Where the judged exchanges came from: a recording (check-har: no request sent), or, absent, a live run. */
  source?: 'live' | 'recording';
}

/** The catalogue as the report model needs it (the CLI passes the suites' declarations; the core imports none). */
export interface CatalogueEntry {
  id: string;
  level: Level;
}

/** Counts with every outcome at zero. */
export const zero = (): Counts => Object.fromEntries(OUTCOME_ORDER.map((o) => [o, 0])) as Counts;

/** A check's outcome from its status, its level and what the baseline said of it. */
export function outcomeOf(c: { status: Status; level: Level; baseline?: BaselineMark | undefined }): Outcome {
  const b = c.baseline?.state;
  if (b === 'stale') return 'stale';
  if (c.status !== 'failed') return c.status;
  if (b === 'known') return 'known';
  if (b === 'expired') return 'expired';
  return c.level === 'MUST' ? 'failed' : c.level === 'SHOULD' ? 'warned' : 'passed';
}

/** A record with its outcome derived (the only way records get one). */
export function withOutcome<T extends Omit<CheckRecord, 'outcome'>>(c: T): T & { outcome: Outcome } {
  return { ...c, outcome: outcomeOf(c) };
}

/** What a report says of a check besides its result: its declaration. */
export type CheckHead = Pick<CheckRecord, 'id' | 'title' | 'level' | 'spec' | 'area'>;

/**
 * A check's record: its declaration, its result and (a baseline) its mark, with the outcome derived. Every record of
 * every run path (the engine, the CLI's runner, the reporters, check-har, the baseline) is made here.
 */
export function checkRecord(head: CheckHead, result: CheckResult, baseline?: BaselineMark): CheckRecord {
  // A record passed as the result (the baseline marks a record again) brings its old mark and outcome: dropped.
  const { baseline: _old, outcome: _o, ...rest } = result as CheckResult & { baseline?: unknown; outcome?: unknown };
  const record = { id: head.id, title: head.title, level: head.level, spec: head.spec, area: head.area, ...rest };
  return { ...record, outcome: outcomeOf({ ...record, baseline }), ...(baseline ? { baseline } : {}) };
}

/** The record of a check that never gave a result: incomplete (it did not finish) or error (its test broke). */
export function unfinishedRecord(
  head: CheckHead,
  message: string,
  status: 'incomplete' | 'error' = 'incomplete',
  durationMs = 0,
  startMs?: number,
): CheckRecord {
  return checkRecord(head, {
    status,
    message,
    evidence: [],
    notes: [],
    duration_ms: Math.round(durationMs),
    ...(startMs !== undefined ? { start_ms: Math.round(startMs) } : {}),
  });
}

/** A check of the run that stops a verdict: the suite broke on it, or a MUST check could not finish. */
export const blocksVerdict = (c: Pick<CheckRecord, 'outcome' | 'level'>): boolean =>
  c.outcome === 'error' || (c.outcome === 'incomplete' && c.level === 'MUST');

/** Why a MUST check did not count towards full coverage, or undefined when it did. */
function notJudged(c: CheckRecord): string | undefined {
  if (c.outcome === 'skipped')
    return c.unmet
      ? `needs ${REQUIREMENT_WORDS[c.unmet] ?? c.unmet}`
      : c.message.startsWith('blocked')
        ? 'blocked'
        : 'skipped';
  if (c.sampled)
    // A recording judged in part (check-har: the details or the /auth it holds) has no flag that would judge more.
    return c.sampled.includes('in the recording')
      ? 'judged in part (what the recording holds)'
      : 'sampled (max_details; --max-details all checks every record)';
  return undefined;
}

/** How many of the catalogue's MUST checks the run judged, and why the others were not. */
export function coverageOf(
  checks: CheckRecord[],
  catalogue: CatalogueEntry[],
  /** Why a MUST check with no record did not run: not selected, unless the run stopped before any check. */
  absent = 'not selected',
  /** The rule matrix: its cells this run left unprobed make the run PARTIAL too (#35). */
  matrix?: RunMatrix,
): Coverage {
  const ran = new Map(checks.map((c) => [c.id, c]));
  const must = catalogue.filter((c) => c.level === 'MUST');
  const not_run: Coverage['not_run'] = [];
  for (const m of must) {
    const c = ran.get(m.id);
    const why = c ? notJudged(c) : absent;
    if (why) not_run.push({ id: m.id, why });
  }
  const groups = new Map<string, number>();
  for (const n of not_run) groups.set(n.why, (groups.get(n.why) ?? 0) + 1);
  const cells = matrix ? cellCoverageOf(matrix, checks) : undefined;
  // Applicable cells this run did not probe: a selection, a configuration without an application, a deadline, and a
  // cell no check of the suite probes (a gap of the matrix): CONFORMANT is a claim about every applicable cell.
  const unprobed = cells ? cells.cellsApplicable - cells.cellsProbed : 0;
  const text = [
    ...(not_run.length
      ? [
          `${not_run.length} MUST check${not_run.length > 1 ? 's' : ''} not run or not run in full (${[...groups].map(([why, n]) => `${n} ${n > 1 ? why.replace(/^needs /, 'need ') : why}`).join(', ')})`,
        ]
      : []),
    ...(unprobed > 0
      ? [
          `${unprobed} of the rule matrix's ${cells!.cellsApplicable} applicable cells not probed${cells!.cellsGaps ? ` (${cells!.cellsGaps} of them by no check of the suite, docs/rules.md)` : ''}`,
        ]
      : []),
  ].join('; ');
  return {
    complete: not_run.length === 0 && unprobed <= 0,
    must_total: must.length,
    must_judged: must.length - not_run.length,
    not_run,
    text,
    ...(cells ?? {}),
  };
}

/**
 * The verdict rule, in this order: a gating outcome (a MUST failure outside the baseline, a stale or expired entry)
 * is NOT CONFORMANT, exit 1, whatever else happened: that evidence stands. Else a harness error, an error of the
 * suite or a MUST check that could not finish is INCOMPLETE, exit 3. Else a run that judged no MUST check at all is
 * NOTHING JUDGED, exit 3. Else a MUST failure the baseline lists is NOT CONFORMANT — NO NEW FAILURES, exit 0 (the
 * gate is green, the word is not; 3 with --strict when MUST checks did not run, as PARTIAL). Else MUST checks that did
 * not run (or ran on a sample), applicable cells of the rule matrix this run did not probe (#35; a cell no check of
 * the suite probes counts among them), or a
 * baseline entry used for a SHOULD or INFO check, make it PARTIAL, exit 0 (3 with --strict). Else CONFORMANT, exit 0.
 * SHOULD failures never gate.
 */
export function verdictOf(
  checks: CheckRecord[],
  harnessErrors: string[],
  coverage: Coverage,
  strict: boolean,
): { verdict: Verdict; exit_code: ExitCode; reason: string } {
  const ids = (list: CheckRecord[]): string =>
    `${list
      .slice(0, 6)
      .map((c) => c.id)
      .join(', ')}${list.length > 6 ? ', …' : ''}`;
  const gating = checks.filter((c) => OUTCOMES[c.outcome].gates);
  if (gating.length)
    return {
      verdict: 'not conformant',
      exit_code: 1,
      reason: `${counted(gating.length, 'gating finding')}: ${ids(gating)}`,
    };
  const blocking = checks.filter(blocksVerdict);
  if (harnessErrors.length || blocking.length) {
    const unfinished = unfinishedOf({ checks });
    const first = harnessErrors[0];
    // A stop says how many checks it left unfinished ("…: 36 of 62 checks did not finish"): the ids follow it, not
    // the same count again.
    const said =
      first !== undefined && new RegExp(`: ${unfinished.length} of \\d+ checks? did not finish$`).test(first);
    const parts = [
      ...(first !== undefined ? [said && blocking.length ? `${first} (${ids(unfinished)})` : first] : []),
      // Counted as every output counts them (unfinishedOf); the MUST ones among them are what block the verdict.
      ...(blocking.length
        ? [
            `${said ? '' : `${counted(unfinished.length, 'check')} did not finish (${ids(unfinished)}); `}the first: ${blocking[0]!.message}`,
          ]
        : []),
    ];
    return { verdict: 'incomplete', exit_code: 3, reason: parts.join('; ') };
  }
  if (coverage.must_judged === 0)
    return {
      verdict: 'nothing judged',
      exit_code: 3,
      reason: `no MUST check was judged${coverage.text ? `: ${coverage.text}` : ''}`,
    };
  const known = checks.filter((c) => c.outcome === 'known');
  const knownMust = known.filter((c) => c.level === 'MUST');
  if (knownMust.length)
    return {
      verdict: 'known failures',
      // --strict asks for every MUST check: a baseline does not excuse the ones that did not run.
      exit_code: strict && !coverage.complete ? 3 : 0,
      reason: `${counted(knownMust.length, 'known MUST failure')} (${ids(knownMust)}), listed in the baseline; nothing new fails${coverage.complete ? '' : `; ${coverage.text}${strict ? '; --strict: a partial run does not pass' : ''}`}`,
    };
  if (!coverage.complete || known.length)
    return {
      verdict: 'partial',
      exit_code: strict ? 3 : 0,
      reason: `${[
        ...(coverage.complete ? [] : [coverage.text]),
        ...(known.length ? [`the baseline excuses ${counted(known.length, 'finding')} (${ids(known)})`] : []),
      ].join('; ')}${strict ? '; --strict: a partial run does not pass' : ''}`,
    };
  return {
    verdict: 'conformant',
    exit_code: 0,
    reason: `every MUST check of the catalogue ran and passed (${coverage.must_total})${
      coverage.cellsApplicable !== undefined
        ? `, and probed every applicable cell of the rule matrix (${coverage.cellsProbed} of ${coverage.cellsApplicable}, docs/rules.md)`
        : ''
    }`,
  };
}

/** The counts of outcomes: in all, by level and by area. */
export function summarize(checks: CheckRecord[]): Report['summary'] {
  const total = zero();
  const by_level: Record<Level, Counts> = { MUST: zero(), SHOULD: zero(), INFO: zero() };
  const by_area: Partial<Record<Area, Counts>> = {};
  for (const c of checks) {
    total[c.outcome]++;
    by_level[c.level][c.outcome]++;
    (by_area[c.area] ??= zero())[c.outcome]++;
  }
  return { ...total, by_level, by_area };
}

/** Checks in a stable order: by area (the order a vendor fixes things), then by id; never by completion. */
export function sortChecks(checks: CheckRecord[]): CheckRecord[] {
  return [...checks].sort((a, b) => AREAS.indexOf(a.area) - AREAS.indexOf(b.area) || naturalOrder(a.id, b.id));
}

/**
 * How much harm a broken rule of each area does, most first: a tenant leak or a credential problem ahead of a format
 * slip. A Record, so a new area must be placed.
 */
const AREA_HARM: Record<Area, number> = {
  isolation: 0,
  auth: 1,
  readonly: 2,
  transport: 3,
  consistency: 4,
  fuzz: 5,
  errors: 6,
  envelope: 7,
  merchant: 8,
  dishes: 9,
  seats: 10,
  orders: 11,
};

/** Findings, most severe first: by outcome, then MUST before SHOULD, then by the harm of the area, then stable. */
export function findingsOf(report: Pick<Report, 'checks'>): CheckRecord[] {
  const level: Record<Level, number> = { MUST: 0, SHOULD: 1, INFO: 2 };
  return report.checks
    .filter((c) => OUTCOMES[c.outcome].finding)
    .sort(
      (a, b) =>
        OUTCOMES[a.outcome].severity - OUTCOMES[b.outcome].severity ||
        level[a.level] - level[b.level] ||
        AREA_HARM[a.area] - AREA_HARM[b.area],
    );
}

/** Checks of the run that did not finish or broke, for "what was not finished and why". */
export const unfinishedOf = (report: Pick<Report, 'checks'>): CheckRecord[] =>
  report.checks.filter((c) => c.outcome === 'incomplete' || c.outcome === 'error');

/**
 * Outcomes, verdict, exit code, coverage and counts of a report's records: at the end of a run (with the
 * catalogue), and again when a baseline is applied to a report (coverage stays what the run covered).
 */
export function judge(
  report: Omit<Report, 'verdict' | 'exit_code' | 'verdict_reason' | 'coverage' | 'summary'>,
  scope: { catalogue: CatalogueEntry[]; matrix?: RunMatrix } | { coverage: Coverage },
): Report {
  const checks = sortChecks(report.checks.map((c) => ({ ...c, outcome: outcomeOf(c) })));
  const coverage = 'coverage' in scope ? scope.coverage : coverageOf(checks, scope.catalogue, undefined, scope.matrix);
  const v = verdictOf(checks, report.errors, coverage, report.strict);
  return {
    ...report,
    checks,
    verdict: v.verdict,
    exit_code: v.exit_code,
    verdict_reason: v.reason,
    coverage,
    summary: summarize(checks),
  };
}

/** The report of a finished run: its checks with their outcomes, the coverage and the verdict. */
export function buildReport(args: {
  checks: CheckRecord[];
  baseUrl: string;
  startedAt: Date;
  durationMs: number;
  strict: boolean;
  catalogue: CatalogueEntry[];
  fuzz: { seed: number; runs: number };
  config: Record<string, unknown>;
  errors: string[];
  /** The one line of a setup stop (the run ended before any check): the report says NOTHING JUDGED and why. */
  setupStop?: string;
  /** Why no check ran, as coverage says it of each (a setup stop unless told otherwise: an interruption). */
  stopCause?: string;
  /** The rule matrix and the configured applications: the cells a run did not probe make it PARTIAL (#35). */
  matrix?: RunMatrix;
}): Report {
  const report = judge(
    {
      tool,
      target: { base_url: args.baseUrl },
      started_at: args.startedAt.toISOString(),
      duration_ms: Math.round(args.durationMs),
      strict: args.strict,
      checks: args.checks,
      fuzz: args.fuzz,
      config: args.config,
      errors: args.errors,
    },
    args.setupStop === undefined
      ? { catalogue: args.catalogue, ...(args.matrix ? { matrix: args.matrix } : {}) }
      : {
          coverage: coverageOf(args.checks, args.catalogue, args.stopCause ?? 'the setup stopped the run', args.matrix),
        },
  );
  return args.setupStop === undefined
    ? report
    : { ...report, verdict: 'nothing judged', exit_code: 3, verdict_reason: args.setupStop };
}
