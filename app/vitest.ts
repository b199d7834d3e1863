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
import { ConfigError, resolveConfig, redactedConfig, type Config } from '../core/config/config.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import { runChecks } from '../core/engine/engine.js';
import { redactorFor } from '../core/redact/redact.js';
import { declareChecks, type RunInfo } from '../suites/declare-checks.js';
import { CheckRecords } from '../suites/check-records.js';
import { selectChecks } from './selection.js';
import { ALL_CHECKS } from '../suites/index.js';
import { assertSupportedVitest } from './vitest-version.js';

// Before anything of Vitest's is used: another major fails here with the supported range, not deep inside.
assertSupportedVitest();

/** The run's settings as in the YAML config file (schemas/config.schema.json): base_url and app are required. */
export type ConformanceConfig = Record<string, unknown> & { base_url: string; app: { secret: string; key: string } };

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
 * Declares the conformance checks as tests of the calling file. The config may be a function, called in a beforeAll
 * of the suite, so it can name a server the test file starts in its own beforeAll. It is validated as the CLI
 * validates a config file (a bad key fails the suite's beforeAll). Secrets never reach a test name, message or meta.
 */
export function conformanceSuite(
  config: ConformanceConfig | (() => ConformanceConfig | Promise<ConformanceConfig>),
  options: SuiteOptions = {},
): void {
  let selected;
  try {
    selected = selectChecks(ALL_CHECKS, options.only ?? [], []);
  } catch (e) {
    // A pattern that names no check is a mistake in the test file: said when it is collected, as the CLI says it.
    if (e instanceof ConfigError) throw new Error(untrustedLine(`conformanceSuite: ${e.message}`));
    throw e;
  }
  let resolved: Config | undefined;
  let info: RunInfo | undefined;
  // The engine starts when the first check's test runs, on the checks whose tests Vitest runs (filters, shards).
  const records = new CheckRecords(selected, (checks, opts) => {
    if (!resolved) throw new Error('conformanceSuite: the run was not created (its beforeAll failed)');
    return runChecks(resolved, checks, undefined, { ...opts, deadlineAt: Date.now() + resolved.deadline_ms });
  });
  // Which call of the file this is: the reporter gives each call its own report (one run, one target).
  const suite = { name: options.name ?? 'conformance', call: calls++ };
  describe(suite.name, { meta: { suite } }, () => {
    beforeAll(async () => {
      const tree = typeof config === 'function' ? await config() : config;
      try {
        resolved = resolveConfig({ file: tree, env: {}, flags: {} });
      } catch (e) {
        // Vitest prints the error into the CI log: a config mistake quotes config values (a file name, a URL).
        if (e instanceof ConfigError) throw new Error(untrustedLine(`conformanceSuite: ${e.message}`));
        throw e;
      }
      info = {
        base_url: redactorFor(resolved).redact(resolved.base_url),
        fuzz: { seed: resolved.fuzz.seed, runs: resolved.fuzz.runs },
        config: redactedConfig(resolved),
        strict: resolved.strict,
      };
    });
    afterAll(() => records.ended());
    declareChecks(selected, records, { info: () => info! });
  });
}

export { ALL_CHECKS };
