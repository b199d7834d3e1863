import { describe, test, type RunnerTestFile, type RunnerTestSuite } from 'vitest';
import type { Check } from '../core/model/check.js';
import { phasesOf } from '../core/engine/engine.js';
import type { CheckRecords } from './check-records.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';

/** What the report needs to know of a run, carried on each test's meta so a reporter in another process has it. */
export interface RunInfo {
  base_url: string;
  fuzz: { seed: number; runs: number };
  config: Record<string, unknown>;
  strict: boolean;
}

/** The check ids of the tests of a file that Vitest will run (of one conformanceSuite call in library mode). */
function testsToRun(file: Readonly<RunnerTestFile>, call: number | undefined): Set<string> {
  const ids = new Set<string>();
  const walk = (s: Readonly<RunnerTestSuite | RunnerTestFile>): void => {
    for (const t of s.tasks) {
      if (t.type === 'suite') walk(t);
      else if (t.meta.check && t.meta.suite?.call === call && t.mode !== 'skip' && t.mode !== 'todo')
        ids.add(t.meta.check.id);
    }
  };
  walk(file);
  return ids;
}

/**
 * Declares one Vitest test per check, grouped by phase and area (core/engine/engine.ts phasesOf): the CLI's entry
 * (suites/conformance.test.ts) and library mode (app/vitest.ts) both declare through here. The engine runs the
 * checks in its own order; each test waits for its check's record. A test's outcome follows the check's level: a
 * MUST failure, a check that could not finish (incomplete) or an error of the suite fails the test; a SHOULD failure
 * is a warning annotation on a passing test (it never gates); a skip carries its reason. The whole result travels
 * in task.meta for the reporters.
 * @param stopOnCancel a cancelled Vitest run (the CLI's deadline or a signal) stops the engine; library mode leaves
 *   it alone (a test's own timeout must not end the others' checks)
 */
export function declareChecks(
  selected: Check[],
  records: CheckRecords,
  opts: { info?: () => RunInfo; stopOnCancel?: boolean } = {},
): void {
  for (const phase of phasesOf(selected)) {
    const groups =
      phase.name === 'areas'
        ? [...new Set(phase.checks.map((c) => c.area))].map((a) => ({
            name: a,
            checks: phase.checks.filter((c) => c.area === a),
          }))
        : [{ name: phase.name, checks: phase.checks }];
    for (const group of groups) {
      // As the engine runs them: a test of a one-by-one phase starts when the one before ended, and waits for its
      // own check only (library mode's testTimeout is per check, as it always was).
      describe(group.name, { concurrent: phase.concurrent }, () => {
        for (const check of group.checks) {
          const meta = {
            check: { id: check.id, title: check.title, level: check.level, spec: check.spec, area: check.area },
          };
          test(
            `${check.id} ${check.title}`,
            { meta, concurrent: phase.concurrent },
            async ({ task, skip, annotate, signal }) => {
              if (opts.stopOnCancel)
                signal.addEventListener('abort', () => records.stop(signal.reason), { once: true });
              const result = await records.record(check.id, () => testsToRun(task.file, task.meta.suite?.call));
              task.meta.result = result;
              if (opts.info) task.meta.run = opts.info();
              // Vitest prints these into the terminal and the CI log (and as annotations under GITHUB_ACTIONS): they
              // quote the server, so they carry the escaped line. The meta keeps the message for the reporters.
              const message = untrustedLine(result.message);
              if (result.status === 'skipped') skip(message);
              // Incomplete (no usable response) is no pass either: nothing was judged.
              if (
                result.status === 'error' ||
                result.status === 'incomplete' ||
                (result.status === 'failed' && check.level === 'MUST')
              )
                throw new Error(message);
              if (result.status === 'failed')
                await annotate(`${check.level} not met (warning, does not gate): ${message}`, 'warning');
            },
          );
        }
      });
    }
  }
}
