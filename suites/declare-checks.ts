import { describe, test, type RunnerTestFile, type RunnerTestSuite } from 'vitest';
import type { Check } from '../core/model/check.js';
import { testGroupsOf } from '../core/engine/engine.js';
import type { CheckRecord } from '../core/model/report.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';

/** What the report needs to know of a run, carried on each test's meta so a reporter in another process has it. */
export type { RunFacts as RunInfo } from '../core/engine/run-report.js';
import type { RunFacts as RunInfo } from '../core/engine/run-report.js';

/** Where a test gets its check's record: one shared run (app/api.ts ConformanceSession). */
export interface RecordSource {
  /** The record of a check; the run starts, if it has not, on the checks `runs` names. */
  record(id: string, runs: () => ReadonlySet<string>): Promise<CheckRecord>;
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
 * Declares one Vitest test per check, grouped by phase and area (core/engine/engine.ts phasesOf): library mode's
 * adapter (app/vitest.ts) declares through here. The engine runs the
 * checks in its own order; each test waits for its check's record. A test's outcome follows the check's level: a
 * MUST failure, a check that could not finish (incomplete) or an error of the suite fails the test; a SHOULD failure
 * is a warning annotation on a passing test (it never gates); a skip carries its reason. The whole result travels
 * in task.meta for the reporters.
 */
export function declareChecks(selected: Check[], records: RecordSource, opts: { info?: () => RunInfo } = {}): void {
  for (const group of testGroupsOf(selected)) {
    // As the engine runs them: a test of a one-by-one phase starts when the one before ended, and waits for its
    // own check only (library mode's testTimeout is per check, as it always was).
    describe(group.name, { concurrent: group.concurrent }, () => {
      for (const check of group.checks) {
        const meta = {
          check: { id: check.id, title: check.title, level: check.level, spec: check.spec, area: check.area },
        };
        test(`${check.id} ${check.title}`, { meta, concurrent: group.concurrent }, async ({ task, skip, annotate }) => {
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
        });
      }
    });
  }
}
