import type { Config } from '../core/config.js';
import type { CheckResult, Level, Area } from '../core/check.js';
import type { RunInfo } from '../core/declare-checks.js';

declare module 'vitest' {
  export interface ProvidedContext {
    conformanceConfig: Config;
    /** The ids of the checks to run (the CLI resolved --only and --skip). */
    conformanceOnly: string[];
    /** Epoch ms at which the run's deadline passes: the HTTP client stops every request then. */
    conformanceDeadlineAt: number;
    /** Where the worker keeps its count of requests sent and planned (core/progress.ts) for the CLI's progress line. */
    conformanceProgressFile?: string;
    /** Where the CLI says whether the checks may start (core/start-gate.ts): its preflight runs meanwhile. */
    conformanceStartGate?: string;
    /** --record-har: where the worker writes the run's exchanges as HAR 1.2, secrets replaced by placeholders. */
    conformanceRecordHar?: string;
  }
}

declare module '@vitest/runner' {
  interface TaskMeta {
    check?: { id: string; title: string; level: Level; spec: string; area: Area };
    result?: CheckResult;
    /** Library mode: the run's target, fuzz seed and redacted config, for a reporter in the main process. */
    run?: RunInfo;
    /** Library mode: the conformanceSuite call the test belongs to (its name, and its place in its file). */
    suite?: { name: string; call: number };
  }
}
