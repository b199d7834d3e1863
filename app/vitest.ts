/**
 * Library mode: the conformance checks declared inside a vendor's own Vitest project.
 *
 *   import { conformanceSuite } from 'restaurant-open-platform-conformance/vitest';
 *   conformanceSuite(() => ({ base_url: server.baseUrl, app: { secret, key } }));
 *
 * One test per check, with the CLI's outcomes and levels (suites/declare-checks.ts); add ConformanceReporter
 * (restaurant-open-platform-conformance/reporter) to the project's reporters for the CLI's report files. Vitest's own
 * --shard, --merge-reports, filters and watch mode apply as to any test.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { declareChecks } from '../suites/declare-checks.js';
import type { RunFacts } from '../core/engine/run-report.js';
import { ConformanceSession, type ConformanceConfig } from './api.js';
import { ALL_CHECKS } from '../suites/index.js';
import { assertSupportedVitest } from './vitest-version.js';

// Before anything of Vitest's is used: another major fails here with the supported range, not deep inside.
assertSupportedVitest();

export type { ConformanceConfig };

/** What `conformanceSuite` takes beside the config: which checks to declare and how to name the run. */
export interface SuiteOptions {
  /** Check ids, or prefixes ending in *, to declare; all when absent. */
  only?: string[];
  /**
   * Name of the enclosing describe block (default "conformance"). With several calls in a project (several targets),
   * each call's report is written to a subdirectory of the reporter's dir named after it.
   */
  name?: string;
}

/** conformanceSuite calls declared so far in this module instance (a test file, when Vitest isolates files). */
let calls = 0;

/**
 * Declares the conformance checks as tests of the calling file, over one session of the programmatic API (app/api.ts).
 * The config may be a function, called in a beforeAll of the suite, so it can name a server the test file starts in
 * its own beforeAll. It is validated as the CLI validates a config file (a bad key fails the suite's beforeAll).
 * Secrets never reach a test name, message or meta.
 */
export function conformanceSuite(
  config: ConformanceConfig | (() => ConformanceConfig | Promise<ConformanceConfig>),
  options: SuiteOptions = {},
): void {
  // A pattern that names no check is a mistake in the test file: said when it is collected, as the CLI says it.
  const session = new ConformanceSession(config, { only: options.only ?? [] }, 'conformanceSuite');
  let facts: RunFacts | undefined;
  // Which call of the file this is: the reporter gives each call its own report (one run, one target).
  const suite = { name: options.name ?? 'conformance', call: calls++ };
  describe(suite.name, { meta: { suite } }, () => {
    beforeAll(async () => {
      facts = (await session.config()).facts;
    });
    afterAll(() => session.ended());
    // The engine starts when the first check's test runs, on the checks whose tests Vitest runs (filters, shards).
    declareChecks(session.selected, session, { info: () => facts! });
  });
}

export { ALL_CHECKS };
