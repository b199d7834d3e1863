/**
 * The one place a run's records become its report: the CLI, check-har, the programmatic API (app/api.ts) and its
 * adapters (Vitest's reporter, node:test) all build it here, from the run's facts (runFacts) and its records.
 */
import { redactedConfig, type Config } from '../config/config.js';
import type { Redactor } from '../redact/redact.js';
import { buildReport, type CatalogueEntry, type CheckRecord, type Report, type RunMatrix } from '../model/report.js';

/**
 * What a report says of its run besides the records: the target (redacted), the fuzz seed, the config (redacted),
 * strict. Plain data: a reporter in another process (Vitest's) gets it through the tests' meta.
 */
export interface RunFacts {
  base_url: string;
  fuzz: { seed: number; runs: number };
  config: Record<string, unknown>;
  strict: boolean;
}

/** The facts of a run of this config, secrets redacted. */
export function runFacts(config: Config, redactor: Redactor): RunFacts {
  return {
    base_url: redactor.redact(config.base_url),
    fuzz: { seed: config.fuzz.seed, runs: config.fuzz.runs },
    config: redactedConfig(config),
    strict: config.strict,
  };
}

/** The report of a run: its records judged against the catalogue (coverage counts the MUST checks not run). */
export function runReport(
  facts: RunFacts,
  run: { records: CheckRecord[]; errors: string[] },
  opts: {
    catalogue: CatalogueEntry[];
    startedAt: Date;
    durationMs?: number;
    /** Said in report.config beside the run's config (library mode's suite, check-har's recording). */
    config?: Record<string, unknown>;
    /** The one line of a setup stop (no check ran): NOTHING JUDGED and why. */
    setupStop?: string;
    /** Why no check ran when that was no setup problem (an interruption during the preflight). */
    stopCause?: string;
    /** The rule matrix (suites/rules' runMatrix): cells the run left unprobed make it PARTIAL (#35). */
    matrix?: RunMatrix;
  },
): Report {
  return buildReport({
    checks: run.records,
    baseUrl: facts.base_url,
    startedAt: opts.startedAt,
    durationMs: opts.durationMs ?? Date.now() - opts.startedAt.getTime(),
    strict: facts.strict,
    catalogue: opts.catalogue,
    fuzz: facts.fuzz,
    config: { ...facts.config, ...opts.config },
    errors: run.errors,
    ...(opts.setupStop !== undefined ? { setupStop: opts.setupStop } : {}),
    ...(opts.stopCause !== undefined ? { stopCause: opts.stopCause } : {}),
    ...(opts.matrix ? { matrix: opts.matrix } : {}),
  });
}
