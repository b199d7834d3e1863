import { resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import { ResultCollector } from '../reporters/collect.js';
import { writeReports } from '../reporters/index.js';
import { buildReport, VERDICT_WORD } from '../core/report.js';
import { Redactor } from '../core/redact.js';
import type { ReportFormat } from '../core/config.js';
import { ALL_CHECKS } from '../suites/index.js';

export interface ConformanceReporterOptions {
  /** Directory of report.json (always), junit.xml and report.html (default ./conformance-report). */
  dir?: string;
  formats?: ReportFormat[];
}

/**
 * Library mode's reporter: the CLI's report files from the checks a project declared with conformanceSuite. Reads
 * each check's result from the test's meta, as the CLI does, so it also works on `vitest --merge-reports` of shards.
 * The results were redacted where they were made (the worker knew the secrets); this process does not know them.
 */
export class ConformanceReporter implements Reporter {
  private readonly collector = new ResultCollector(new Redactor());
  private readonly started = new Date();
  /** The report's file paths once written, and its verdict's exit code (0, 1 or 3). */
  written: { files: string[]; exitCode: number } | undefined;

  constructor(private readonly options: ConformanceReporterOptions = {}) {}

  onTestCaseResult(test: TestCase): void {
    this.collector.onTestCaseResult(test);
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): Promise<void> {
    this.collector.onTestRunEnd(modules, unhandled);
    if (!this.collector.records.length) return;
    const info = modules
      .flatMap((m) => [...m.children.allTests()])
      .map((t) => t.meta().run)
      .find((r) => r !== undefined);
    const report = buildReport({
      checks: this.collector.records,
      baseUrl: info?.base_url ?? '(unknown)',
      startedAt: this.started,
      durationMs: Date.now() - this.started.getTime(),
      // As in the CLI: coverage counts every MUST check of the suite, so a run of some checks is PARTIAL.
      catalogue: ALL_CHECKS,
      strict: info?.strict ?? false,
      fuzz: info?.fuzz ?? { seed: 0, runs: 0 },
      config: { ...(info?.config ?? {}), mode: 'library (vitest)' },
      errors: this.collector.errors,
    });
    const dir = resolve(this.options.dir ?? 'conformance-report');
    mkdirSync(dir, { recursive: true });
    const files = await writeReports(report, dir, this.options.formats ?? ['json', 'junit', 'html']);
    this.written = { files, exitCode: report.exit_code };
    process.stdout.write(
      `\nConformance: ${VERDICT_WORD[report.verdict]}: ${report.verdict_reason}; report: ${files[0]}\n`,
    );
  }
}
