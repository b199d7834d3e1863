import { runMatrix } from '../suites/rules/index.js';
import { join, relative, resolve } from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import type { Reporter, SerializedError, TestCase, TestModule, Vitest } from 'vitest/node';
import { ResultCollector } from './result-collector.js';
import { REPORT_FILES, writeReports } from '../reporters/index.js';
import { VERDICT_WORD } from '../core/model/report.js';
import { runReport } from '../core/engine/run-report.js';
import { Redactor } from '../core/redact/redact.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import { assertSupportedVitest } from './vitest-version.js';
import type { ReportFormat } from '../core/config/config.js';
import { ALL_CHECKS } from '../suites/index.js';

/** Where the library reporter writes and which formats. */
export interface ConformanceReporterOptions {
  /**
   * Directory of report.json (always), junit.xml and report.html (default ./conformance-report). A project with
   * several conformanceSuite calls gets one report per call, each in its own subdirectory (see targetDirs).
   */
  dir?: string;
  formats?: ReportFormat[];
}

/** One report the reporter wrote: a conformanceSuite call, its target, its files and its verdict's exit code. */
export interface WrittenReport {
  /** The suite's name (conformanceSuite's `name`), made distinct from the others' when they share it. */
  name: string;
  base_url: string;
  dir: string;
  files: string[];
  exitCode: number;
}

/** The checks of one conformanceSuite call: one run, against one target, in one test file. */
interface SuiteCall {
  name: string;
  file: string;
  call: number;
  collector: ResultCollector;
}

/** A name usable as one directory name: what is not a letter, digit, dot, dash or underscore becomes a dash. */
const slug = (s: string): string =>
  s
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 80) || 'conformance';

/**
 * The subdirectory of each call when there are several: its name, else (names shared) its test file and name, else
 * also its place in the file; made distinct after slugging too.
 */
export function targetDirs(calls: ReadonlyArray<{ name: string; file: string; call: number }>): string[] {
  const count = (labels: string[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const l of labels) m.set(l, (m.get(l) ?? 0) + 1);
    return m;
  };
  const byName = count(calls.map((c) => c.name));
  const withFile = calls.map((c) => (byName.get(c.name)! > 1 ? `${c.file} ${c.name}` : c.name));
  const byFile = count(withFile);
  const labels = withFile.map((l, i) => slug(byFile.get(l)! > 1 ? `${l} ${calls[i]!.call + 1}` : l));
  const seen = new Map<string, number>();
  return labels.map((l) => {
    const n = (seen.get(l) ?? 0) + 1;
    seen.set(l, n);
    return n > 1 ? `${l}-${n}` : l;
  });
}

/**
 * Library mode's reporter: the CLI's report files from the checks a project declared with conformanceSuite. Reads
 * each check's result from the test's meta, as the CLI does, so it also works on `vitest --merge-reports` of shards.
 * The results were redacted where they were made (the worker knew the secrets); this process does not know them.
 *
 * Each conformanceSuite call is one run against one target, and gets its own report: one call writes into `dir`;
 * several write into `dir/<name>/` each, so no report ever names one target with results measured on another.
 */
export class ConformanceReporter implements Reporter {
  private readonly calls = new Map<string, SuiteCall>();
  private started = new Date();
  private root = process.cwd();
  /** The reports once written, one per conformanceSuite call that ran. */
  written: WrittenReport[] | undefined;

  constructor(private readonly options: ConformanceReporterOptions = {}) {
    assertSupportedVitest();
  }

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  /** Each run (watch mode reruns) reports its own results only. */
  onTestRunStart(): void {
    this.calls.clear();
    this.started = new Date();
  }

  /** The call a test belongs to (a test of no conformanceSuite call: undefined). */
  private callOf(test: TestCase): SuiteCall | undefined {
    const meta = test.meta();
    if (!meta.check) return undefined;
    const file = relative(this.root, test.module.moduleId) || test.module.moduleId;
    const call = meta.suite?.call ?? 0;
    const key = JSON.stringify([test.module.moduleId, call]);
    let found = this.calls.get(key);
    if (!found) {
      const accepts = (t: TestCase): boolean =>
        t.module.moduleId === test.module.moduleId && (t.meta().suite?.call ?? 0) === call;
      found = {
        name: meta.suite?.name ?? 'conformance',
        file,
        call,
        collector: new ResultCollector(new Redactor(), accepts),
      };
      this.calls.set(key, found);
    }
    return found;
  }

  onTestCaseResult(test: TestCase): void {
    this.callOf(test)?.collector.onTestCaseResult(test);
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): Promise<void> {
    for (const m of modules) for (const t of m.children.allTests()) this.callOf(t);
    const calls = [...this.calls.values()]
      .map((c) => {
        c.collector.onTestRunEnd(modules, unhandled);
        return c;
      })
      .filter((c) => c.collector.records.length)
      .sort((a, b) => (a.file === b.file ? a.call - b.call : a.file < b.file ? -1 : 1));
    if (!calls.length) return;
    const dir = resolve(this.options.dir ?? 'conformance-report');
    const subdirs = calls.length > 1 ? targetDirs(calls) : undefined;
    mkdirSync(dir, { recursive: true });
    // Several targets: report files left in the top directory by a run of one target would pass for this run's.
    if (subdirs) for (const name of Object.values(REPORT_FILES)) rmSync(join(dir, name), { force: true });
    this.written = [];
    for (const [i, c] of calls.entries()) {
      const tests = modules.flatMap((m) => [...m.children.allTests()]).filter((t) => this.callOf(t) === c);
      const info = tests.map((t) => t.meta().run).find((r) => r !== undefined);
      const facts = info ?? {
        base_url: '(unknown: the suite stopped before it read its config)',
        fuzz: { seed: 0, runs: 0 },
        config: {},
        strict: false,
      };
      // As in the CLI: coverage counts every MUST check of the suite, so a run of some checks is PARTIAL.
      const report = runReport(
        facts,
        { records: c.collector.records, errors: c.collector.errors },
        {
          catalogue: ALL_CHECKS,
          startedAt: this.started,
          config: { mode: 'library (vitest)', suite: c.name, test_file: c.file },
          // The rule matrix, as in the CLI: cells this call's run did not probe make it PARTIAL (#35).
          ...(info ? { matrix: runMatrix({ ...info.config, fuzz: info.fuzz }) } : {}),
        },
      );
      const target = subdirs ? join(dir, subdirs[i]!) : dir;
      mkdirSync(target, { recursive: true });
      const files = await writeReports(report, target, this.options.formats ?? ['json', 'junit', 'html']);
      this.written.push({
        name: c.name,
        base_url: report.target.base_url,
        dir: target,
        files,
        exitCode: report.exit_code,
      });
      // Quotes the server (the reason, the target) and a vendor's file names: one inert line.
      const which = subdirs ? ` [${c.name}, ${c.file}] ${report.target.base_url}` : '';
      process.stdout.write(
        `${i === 0 ? '\n' : ''}${untrustedLine(`Conformance${which}: ${VERDICT_WORD[report.verdict]}: ${report.verdict_reason}; report: ${files[0]}`)}\n`,
      );
    }
  }
}
