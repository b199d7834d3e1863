import type { Reporter, TestCase, TestModule, SerializedError } from 'vitest/node';
import type { CheckRecord } from '../src/report.js';
import type { Redactor } from '../src/redact.js';

/**
 * Reads each check's result from Vitest's public test objects (meta written by the check's test) and keeps the
 * results as report records. A test that ended without a result (crash, timeout) becomes an error record.
 */
export class ResultCollector implements Reporter {
  readonly records: CheckRecord[] = [];
  readonly errors: string[] = [];
  constructor(private readonly redactor: Redactor, private readonly onRecord?: (r: CheckRecord) => void) {}

  onTestCaseResult(test: TestCase): void {
    const rec = toRecord(test, this.redactor);
    if (!rec) return;
    this.records.push(rec);
    this.onRecord?.(rec);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    for (const m of modules) {
      for (const e of m.errors()) this.errors.push(this.redactor.redact(`${m.moduleId}: ${e.message}`));
      // Tests that never reported (the module failed before they ran) still belong in the report.
      for (const t of m.children.allTests()) {
        const id = t.meta().check?.id;
        if (id && !this.records.some((r) => r.id === id)) {
          const rec = toRecord(t, this.redactor);
          if (rec) { this.records.push(rec); this.onRecord?.(rec); }
        }
      }
    }
    for (const e of unhandled) this.errors.push(this.redactor.redact(`unhandled error: ${e.message}`));
  }
}

function toRecord(test: TestCase, redactor: Redactor): CheckRecord | undefined {
  const meta = test.meta();
  if (!meta.check) return undefined;
  if (meta.result) return { ...meta.check, ...meta.result };
  const r = test.result();
  const why = r.state === 'failed' ? r.errors?.map((e) => e.message).join('; ') : r.state === 'skipped' ? r.note : 'did not run';
  return {
    ...meta.check,
    status: 'error',
    message: redactor.redact(`the check did not complete: ${why ?? 'unknown reason'}`),
    evidence: [],
    notes: [],
    duration_ms: Math.round(test.diagnostic()?.duration ?? 0),
  };
}
