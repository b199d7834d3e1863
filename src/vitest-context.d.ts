import type { Config } from './config.js';
import type { CheckResult, Level, Area } from './check.js';

declare module 'vitest' {
  export interface ProvidedContext {
    conformanceConfig: Config;
    /** Check ids (or prefixes ending in *) to run; empty runs all. */
    conformanceOnly: string[];
  }
}

declare module '@vitest/runner' {
  interface TaskMeta {
    check?: { id: string; title: string; level: Level; spec: string; area: Area };
    result?: CheckResult;
  }
}
