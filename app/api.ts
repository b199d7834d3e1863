/**
 * The package's programmatic API, for any test runner or none:
 *
 *   import { conformanceChecks, runConformance } from 'restaurant-open-platform-conformance';
 *   const report = await runConformance({ base_url, app: { secret, key } });   // the CLI's report, as a value
 *   for (const check of conformanceChecks(config)) test(check.id, async () => { const record = await check.run(); … });
 *
 * `conformanceChecks` returns the checks as plain values over one shared session (one run of the engine, as the CLI
 * runs them: one token, each list and detail read once, the phases in order). The Vitest adapter (app/vitest.ts) and
 * the node:test one (app/node-test.ts) are written on it.
 */
import { ConfigError, resolveConfig, type Config, type ReportFormat } from '../core/config/config.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import { redactorFor } from '../core/redact/redact.js';
import { runChecks } from '../core/engine/engine.js';
import { runFacts, runReport, type RunFacts } from '../core/engine/run-report.js';
import type { Area, Check, Level } from '../core/model/check.js';
import type { CheckRecord, Report } from '../core/model/report.js';
import { CheckRecords } from '../suites/check-records.js';
import { ALL_CHECKS } from '../suites/index.js';
import { runMatrix } from '../suites/rules/index.js';
import { selectChecks } from './selection.js';
import { writeReportDir } from './report-dir.js';

export type { CheckRecord, Report } from '../core/model/report.js';

/** The run's settings as in the YAML config file (schemas/config.schema.json): base_url and app are required. */
export type ConformanceConfig = Record<string, unknown> & { base_url: string; app: { secret: string; key: string } };

/** A config, or a function that gives it when the run starts (a server the tests start first). */
export type ConfigSource = ConformanceConfig | (() => ConformanceConfig | Promise<ConformanceConfig>);

/** Which checks: ids, or prefixes ending in * (ISO-*), as the CLI's --only and --skip. */
export interface Selection {
  only?: string[];
  skip?: string[];
}

/** One check of a session, as a plain value. */
export interface ConformanceCheck {
  id: string;
  title: string;
  level: Level;
  /** The spec's sections, e.g. "§5.4, §7". */
  section: string;
  area: Area;
  /**
   * Runs the check and resolves with its record (status, message, evidence, outcome). The checks of a session share
   * one run of the engine: the first `run()` starts it on every check of the session, and each resolves with its own
   * record as soon as it is final. Rejects only if the config is invalid.
   */
  run(): Promise<CheckRecord>;
}

/** A config mistake as one line (it may quote config values: a file name, a URL). */
const configError = (where: string, e: unknown): unknown =>
  e instanceof ConfigError ? new Error(untrustedLine(`${where}: ${e.message}`)) : e;

/** The checks a selection names, or one line naming the mistake. */
function selected(where: string, selection: Selection): Check[] {
  try {
    const heads = selectChecks(ALL_CHECKS, selection.only ?? [], selection.skip ?? []);
    const ids = new Set(heads.map((c) => c.id));
    return ALL_CHECKS.filter((c) => ids.has(c.id));
  } catch (e) {
    throw configError(where, e);
  }
}

/**
 * One shared run of the checks: the config (resolved once, as the CLI resolves a config file), the engine's run and
 * its records. The adapters' common ground; `conformanceChecks` and `runConformance` are its public faces.
 */
export class ConformanceSession {
  readonly selected: Check[];
  readonly checks: ConformanceCheck[];
  private resolved: Promise<{ config: Config; facts: RunFacts }> | undefined;
  private readonly records: CheckRecords;
  private startedAt = new Date();

  constructor(
    private readonly source: ConfigSource,
    selection: Selection = {},
    private readonly where = 'conformance',
  ) {
    this.selected = selected(where, selection);
    this.records = new CheckRecords(this.selected, (checks, opts) =>
      this.config().then(({ config }) => {
        this.startedAt = new Date();
        return runChecks(config, checks, undefined, { ...opts, deadlineAt: Date.now() + config.deadline_ms });
      }),
    );
    const all = new Set(this.selected.map((c) => c.id));
    this.checks = this.selected.map((c) => ({
      id: c.id,
      title: c.title,
      level: c.level,
      section: c.spec,
      area: c.area,
      run: () => this.record(c.id, () => all),
    }));
  }

  /** The resolved config and the report's facts of the run (secrets redacted); the config is read once. */
  config(): Promise<{ config: Config; facts: RunFacts }> {
    this.resolved ??= (async () => {
      const tree = typeof this.source === 'function' ? await this.source() : this.source;
      let config: Config;
      try {
        config = resolveConfig({ file: tree, env: {}, flags: {} });
      } catch (e) {
        throw configError(this.where, e);
      }
      return { config, facts: runFacts(config, redactorFor(config)) };
    })();
    return this.resolved;
  }

  /** A check's record; the run starts, if it has not, on the checks `runs` names (those whose tests will run). */
  record(id: string, runs: () => ReadonlySet<string>): Promise<CheckRecord> {
    return this.records.record(id, runs);
  }

  /** Stops the run: what has not finished is incomplete, with this reason. */
  stop(reason: string): void {
    this.records.stop(reason);
  }

  /** Resolves once the run has ended (started or not). */
  ended(): Promise<void> {
    return this.records.ended();
  }

  /**
   * The report of the run, as the CLI builds it (its verdict, coverage against the whole catalogue), once the run has
   * ended; `extra` is said in report.config (library mode's runner and suite).
   */
  async report(extra: Record<string, unknown> = {}): Promise<Report> {
    const { facts, config } = await this.config();
    const result = await this.records.result();
    return runReport(facts, result ?? { records: [], errors: [] }, {
      catalogue: ALL_CHECKS,
      startedAt: this.startedAt,
      config: extra,
      // As in the CLI: cells of the rule matrix this run did not probe make it PARTIAL (#35).
      matrix: runMatrix(config),
    });
  }
}

/**
 * The checks as plain values over one shared session (graphql-http's `serverAudits` shape): id, title, level,
 * section, area and `run()`, which runs the check and resolves with its record. Put each in a test of any runner.
 */
export function conformanceChecks(config: ConfigSource, selection: Selection = {}): ConformanceCheck[] {
  return new ConformanceSession(config, selection, 'conformanceChecks').checks;
}

/** What runConformance takes beside the config. */
export interface RunOptions extends Selection {
  /** Stops the run early: what has not finished is incomplete, and the report says why (exit code 3). */
  signal?: AbortSignal;
  /** Also writes the CLI's report files there (report.json, junit.xml, report.html unless `formats` says). */
  report?: { dir: string; formats?: ReportFormat[] };
}

/**
 * Runs every selected check against the configured server and resolves with the report the CLI would write: its
 * `verdict`, `exit_code`, `checks` (one record per check), `coverage` and `summary`. No test runner is involved.
 */
export async function runConformance(config: ConfigSource, options: RunOptions = {}): Promise<Report> {
  const session = new ConformanceSession(config, options, 'runConformance');
  await session.config();
  const stop = (): void => session.stop(reasonOf(options.signal?.reason));
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await Promise.all(session.checks.map((c) => c.run()));
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  const report = await session.report({ mode: 'library (runConformance)' });
  if (options.report)
    await writeReportDir(report, {
      report: { dir: options.report.dir, formats: options.report.formats ?? ['json', 'junit', 'html'] },
    });
  return report;
}

const reasonOf = (reason: unknown): string =>
  typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : 'the run was interrupted';
