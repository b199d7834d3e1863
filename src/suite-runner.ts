import { mkdir } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { join, relative, resolve } from 'node:path';
import { createVitest } from 'vitest/node';
import type { Config } from './config.js';
import { redactedConfig } from './config.js';
import { packageRoot } from './paths.js';
import { buildReport, type CheckRecord, type Report } from './report.js';
import type { Redactor } from './redact.js';
import { ResultCollector } from '../reporters/collect.js';
import { writeReports } from '../reporters/index.js';

/** The compiled Vitest entry of a run (the CLI always runs from dist/). */
const ENTRY = join(packageRoot, 'dist', 'suites', 'conformance.test.js');

export interface SuiteOptions {
  only: string[];
  onRecord?: (r: CheckRecord) => void;
  redactor: Redactor;
}

/**
 * V8 lets a heap grow to several times what is live before a full collection. A large merchant's run keeps about
 * 150 MB live (its lists, parsed) while tens of thousands of exchanges come and go, so the default growth put the
 * peak over 500 MB. A growth of 1.6× per step holds it near 400 MB at no measurable cost in time (npm run bench).
 * The flag is read at each collection, so it holds for the worker thread Vitest starts next; it is no limit.
 */
const HEAP_GROWING_PERCENT = 60;

/** Runs every selected check through Vitest (one worker, no per-file isolation) and builds the report. */
export async function runSuite(config: Config, opts: SuiteOptions): Promise<Report> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const started = new Date();
  const t0 = performance.now();
  const collector = new ResultCollector(opts.redactor, opts.onRecord);
  const vitest = await createVitest('test', {
    config: false,
    root: packageRoot,
    dir: packageRoot,
    include: [relative(packageRoot, ENTRY)],
    exclude: [],
    watch: false,
    reporters: [collector],
    pool: 'threads',
    // The suite's own modules are compiled JavaScript: loaded natively, not through Vite's transform (the fixed
    // cost of a run). Only the entry file goes through Vitest's runner.
    server: { deps: { external: [/\/dist\/(src|reporters|reference)\//, /\/dist\/suites\/(?!conformance\.test\.js$)/] } },
    maxWorkers: 1,
    isolate: false,
    fileParallelism: false,
    maxConcurrency: 1000,
    testTimeout: config.deadline_ms + 10_000,
    hookTimeout: 30_000,
    passWithNoTests: false,
    provide: { conformanceConfig: config, conformanceOnly: opts.only },
  }, { logLevel: 'silent', clearScreen: false });
  try {
    await vitest.start();
  } catch (e) {
    // The runner itself stopped (a worker died, out of memory): a harness error, so the run exits 3, never 0 or 1.
    collector.errors.push(opts.redactor.redact(`the test runner stopped: ${(e as Error).message?.split('\n')[0] ?? String(e)}`));
  } finally {
    await vitest.close().catch(() => undefined);
  }
  return buildReport({
    checks: collector.records,
    baseUrl: opts.redactor.redact(config.base_url),
    startedAt: started,
    durationMs: performance.now() - t0,
    fuzz: { seed: config.fuzz.seed, runs: config.fuzz.runs },
    config: redactedConfig(config),
    errors: collector.errors,
  });
}

export async function writeReportDir(report: Report, config: Config): Promise<string[]> {
  const dir = resolve(config.report.dir);
  await mkdir(dir, { recursive: true });
  return writeReports(report, dir, config.report.formats);
}
