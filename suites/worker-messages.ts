/**
 * Everything the CLI and the checks' process say to each other beside Vitest's own protocol, in one place (the CLI:
 * app/early-worker.ts and app/suite-runner.ts; the checks' process: suites/checks-worker.ts). From the checks' process
 * come, besides, the tests' meta (app/vitest-context.d.ts: each check's record, read by app/result-collector.ts) and,
 * through the file RunOrder.progressFile names, the count of requests for the progress line (core/session/progress.ts).
 * Types and one constant only: the CLI imports this module without loading any check.
 */
import type { Config } from '../core/config/config.js';

/** What the CLI hands the checks' process for a run (suites/cli-run.ts starts the engine on it). */
export interface RunOrder {
  config: Config;
  /** The ids of the checks to run (the CLI resolved --only and --skip). */
  only: string[];
  /** Epoch ms at which the run's deadline passes: the HTTP client stops every request then. */
  deadlineAt: number;
  /** Where the engine keeps its count of requests sent and planned (core/session/progress.ts) for the progress line. */
  progressFile?: string;
  /** --record-har: where the run's exchanges are written as HAR 1.2, secrets replaced by placeholders. */
  recordHar?: string;
}

/** CLI → checks' process, once its preflight passed: start the run. */
export interface RunOrderMessage {
  conformanceRun: RunOrder;
}

/** CLI → checks' process: stop the run (a signal); what has not finished is incomplete, with this reason. */
export interface StopMessage {
  conformanceStop: string;
}

/** CLI (our pool) → checks' process, before Vitest's first message: the environment Vitest gives its workers. */
export interface WorkerEnvMessage {
  conformanceWorkerEnv: Record<string, string | undefined>;
}

/** Checks' process → CLI, once Vitest's worker listens: from then on the pool may start Vitest's protocol. */
export const WORKER_READY = 'conformanceWorkerReady';

/** Checks' process → CLI, once the engine has ended (every record is made): Vitest is needed now, if not before. */
export const RUN_ENDED = 'conformanceRunEnded';
