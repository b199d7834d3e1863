import type { Reporter, TestCase, TestModule, SerializedError } from 'vitest/node';
import { checkRecord, unfinishedRecord, type CheckRecord } from '../core/model/report.js';
import type { Redactor } from '../core/redact/redact.js';

/**
 * Library mode's reporter (app/vitest-reporter.ts), one per conformanceSuite call: reads each check's result from
 * Vitest's public test objects (meta written by the check's test) as it finishes, and keeps the results as report
 * records. A test that ended without a result (the module failed, the worker died) becomes an error record.
 */
export class ResultCollector implements Reporter {
  readonly records: CheckRecord[] = [];
  readonly errors: string[] = [];
  private readonly seen = new Set<string>();
  /** @param accepts which tests are this collector's (those of one conformanceSuite call) */
  constructor(
    private readonly redactor: Redactor,
    private readonly accepts: (t: TestCase) => boolean,
  ) {}

  /** Keeps a record once per check id (a late duplicate from a cancelled run is dropped). */
  add(rec: CheckRecord): void {
    if (this.seen.has(rec.id)) return;
    this.seen.add(rec.id);
    this.records.push(rec);
  }

  has(id: string): boolean {
    return this.seen.has(id);
  }

  onTestCaseResult(test: TestCase): void {
    if (!this.accepts(test)) return;
    const rec = toRecord(test, this.redactor);
    if (rec) this.add(rec);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    for (const m of modules) {
      const mine = [...m.children.allTests()].filter(this.accepts);
      if (!mine.length && m.children.size) continue;
      for (const e of m.errors()) this.errors.push(this.redactor.redact(`${m.moduleId}: ${e.message}`));
      // Tests that ended without reporting (the module failed before they ran) still belong in the report.
      for (const t of mine) {
        const id = t.meta().check?.id;
        if (!id || this.has(id) || t.result().state === 'pending') continue;
        const rec = toRecord(t, this.redactor);
        if (rec) this.add(rec);
      }
    }
    for (const e of unhandled) this.errors.push(this.redactor.redact(`unhandled error: ${e.message}`));
  }
}

function toRecord(test: TestCase, redactor: Redactor): CheckRecord | undefined {
  const meta = test.meta();
  if (!meta.check) return undefined;
  if (meta.result) return checkRecord(meta.check, meta.result);
  const r = test.result();
  // Our test skips itself only after writing its result: a test skipped without one was never run (the run was
  // cancelled at its deadline or by a signal), so it did not finish; a test that failed without one broke.
  if (r.state === 'skipped' || r.state === 'pending') {
    const why = r.state === 'skipped' && r.note ? r.note : 'the run was stopped before this check ran';
    return unfinishedRecord(meta.check, redactor.redact(`not finished: ${why}`));
  }
  const why = r.state === 'failed' ? r.errors?.map((e) => e.message).join('; ') : 'did not run';
  return unfinishedRecord(
    meta.check,
    redactor.redact(`the check did not complete: ${why ?? 'unknown reason'}`),
    'error',
    Math.round(test.diagnostic()?.duration ?? 0),
  );
}
