import type { Config } from '../core/config/config.js';
import type { CheckResult, Level, Area } from '../core/model/check.js';
import type { RunInfo } from '../suites/declare-checks.js';

/**
 * Everything that crosses the process boundary of a run, in one place. The CLI (app/suite-runner.ts) starts Vitest,
 * whose forks pool runs the checks in a process of its own; to it go the ProvidedContext values below (Vitest's
 * provide/inject); from it come the tests' meta (TaskMeta below: each check's record, read by app/result-collector.ts)
 * and, through the file conformanceProgressFile names, the count of requests for the progress line
 * (core/session/progress.ts). Nothing else passes between the two.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    conformanceConfig: Config;
    /** The ids of the checks to run (the CLI resolved --only and --skip). */
    conformanceOnly: string[];
    /** Epoch ms at which the run's deadline passes: the HTTP client stops every request then. */
    conformanceDeadlineAt: number;
    /** Where the worker keeps its count of requests sent and planned (core/session/progress.ts) for the CLI's progress line. */
    conformanceProgressFile?: string;
    /** --record-har: where the worker writes the run's exchanges as HAR 1.2, secrets replaced by placeholders. */
    conformanceRecordHar?: string;
  }
}

declare module '@vitest/runner' {
  interface TaskMeta {
    check?: { id: string; title: string; level: Level; spec: string; area: Area };
    /** The check's record as the engine made it (core/engine/engine.ts). */
    result?: CheckResult;
    /** Library mode: the run's target, fuzz seed and redacted config, for a reporter in the main process. */
    run?: RunInfo;
    /** Library mode: the conformanceSuite call the test belongs to (its name, and its place in its file). */
    suite?: { name: string; call: number };
  }
}
