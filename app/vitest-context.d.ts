import type { CheckResult, Level, Area } from '../core/model/check.js';
import type { RunInfo } from '../suites/declare-checks.js';

/**
 * Library mode on Vitest: what each test's meta carries to the reporter (TaskMeta below: each check's record, read by
 * app/result-collector.ts), which may run in another process or read merged blobs.
 */
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
