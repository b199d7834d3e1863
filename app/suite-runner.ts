import { runMatrix } from '../suites/rules/index.js';
import { mkdir, rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { join, relative, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createVitest, type PoolOptions, type PoolWorker, type Vitest } from 'vitest/node';
import { checksLost, takeEarlyWorker, workerReady } from './early-worker.js';
import type { WorkerEnvMessage } from '../suites/worker-messages.js';
import type { Config } from '../core/config/config.js';
import { redactedConfig } from '../core/config/config.js';
import { packageRoot } from '../core/base/paths.js';
import { deadlineWords } from '../core/engine/run.js';
import {
  buildReport,
  unfinishedOf,
  unfinishedRecord,
  type CatalogueEntry,
  type CheckRecord,
  type Report,
} from '../core/model/report.js';
import type { Redactor } from '../core/redact/redact.js';
import type { CheckHead } from './check-heads.js';
import { ResultCollector } from './result-collector.js';
import { REPORT_FILES, writeReports } from '../reporters/index.js';
import { ATTESTATION_FILE, BADGE_FILE } from '../core/model/attestation.js';

/** The compiled Vitest entry of a run (the CLI always runs from dist/). */
const ENTRY = join(packageRoot, 'dist', 'suites', 'conformance.test.js');

/** How the CLI runs its selected checks through Vitest (openSuite). */
export interface RunnerOptions {
  /** The checks to run (the CLI has resolved --only and --skip against the catalogue). */
  selected: CheckHead[];
  /** Every check of the suite: coverage counts the MUST checks that did not run. */
  catalogue: CatalogueEntry[];
  strict: boolean;
  /** Epoch ms at which the whole run must end (deadline_ms from the start of the CLI). */
  deadlineAt: number;
  /** When the checks started (the CLI sent their order): the report's start and duration count from here. */
  startedAt: Date;
  /** Resolves with a reason when the run must stop early (SIGINT, SIGTERM). */
  interrupted: Promise<string>;
  /** Each check's record as it arrives (the progress line). */
  onRecord?: (r: CheckRecord) => void;
  /** Marks each record before the report is built (--baseline: app/baseline.ts markRecord). */
  mark?: (r: CheckRecord) => CheckRecord;
  redactor: Redactor;
}

/** Our pool: Vitest's documented custom-pool API, over the checks' process the CLI started early. */
const CHECKS_POOL = 'conformance-checks';
/** Time a stopped checks' process gets to exit before it is killed. */
const KILL_AFTER_MS = 1_000;

/**
 * The worker of our pool (Vitest's PoolWorker interface): the checks' process of app/early-worker.ts, which speaks
 * Vitest's worker protocol through `vitest/worker` (suites/checks-worker.ts). Its flags are ours (WORKER_FLAGS);
 * the environment Vitest gives its workers is sent to it before Vitest's first message.
 */
class ChecksPoolWorker implements PoolWorker {
  readonly name = CHECKS_POOL;
  private child: ChildProcess | undefined;

  constructor(private readonly options: PoolOptions) {}

  private get process(): ChildProcess {
    if (!this.child) throw new Error('the checks process is not running');
    return this.child;
  }

  on(event: string, callback: (arg: unknown) => void): void {
    this.process.on(event, callback);
  }

  off(event: string, callback: (arg: unknown) => void): void {
    this.process.off(event, callback);
  }

  send(message: Parameters<PoolWorker['send']>[0]): void {
    this.process.send(message);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async start(): Promise<void> {
    this.child ??= takeEarlyWorker();
    // Vitest's first message must find its worker listening: the checks' process loads the engine first.
    await workerReady(this.child);
    const env: WorkerEnvMessage = { conformanceWorkerEnv: this.options.env };
    this.child.send(env);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.kill();
    await exited;
    clearTimeout(kill);
  }
}

/**
 * After the deadline: time given to checks to end on their own (their requests are stopped at the deadline, and the
 * engine calls what is left incomplete 200 ms later), then to the runner to cancel and to close. Together under a
 * second, whatever the checks are doing.
 */
const GRACE_MS = 400;
const CANCEL_MS = 300;
const CLOSE_MS = 200;

/** A timer that never keeps the CLI alive on its own. */
const sleep = (ms: number): Promise<void> => delay(ms, undefined, { ref: false });

/** Vitest created for a run, not started yet: `run` starts it and builds the report. */
export interface OpenSuite {
  /**
   * Runs the checks: the report as soon as they ended, and Vitest's closing (its process stopped, its files removed),
   * which goes on meanwhile and is awaited before the CLI exits.
   */
  run(): Promise<{ report: Report; closed: Promise<void> }>;
}

/**
 * Creates Vitest for a run (one worker, no per-file isolation) without starting it. The CLI calls it once the checks
 * have started in their own process (app/early-worker.ts startRun), so loading and creating Vitest, most of a small
 * run's fixed cost, happens while their first requests wait for the server; `run` then starts Vitest on the entry
 * file, whose tests report the checks.
 */
export async function openSuite(config: Config, opts: RunnerOptions): Promise<OpenSuite> {
  const collector = new ResultCollector(opts.redactor, opts.onRecord);
  // Vitest's logger exits the process on SIGINT and SIGTERM; the CLI handles them itself, to stop the run and still
  // write the report of what finished. The checks are running already, so its handlers are removed as soon as they
  // are added (a signal is handled between two turns of the event loop, never in the same one).
  const signalsBefore = new Set([...process.listeners('SIGINT'), ...process.listeners('SIGTERM')]);
  const dropVitestHandlers = (): void => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      for (const l of process.listeners(signal)) if (!signalsBefore.has(l)) process.off(signal, l);
  };
  const onListener = (event: string | symbol): void => {
    if (event === 'SIGINT' || event === 'SIGTERM') queueMicrotask(dropVitestHandlers);
  };
  process.on('newListener', onListener);
  const vitest = await createVitest(
    'test',
    {
      config: false,
      root: packageRoot,
      dir: packageRoot,
      include: [relative(packageRoot, ENTRY)],
      exclude: [],
      watch: false,
      reporters: [collector],
      // The checks' process is ours (its flags: WORKER_FLAGS in app/early-worker.ts).
      pool: { name: CHECKS_POOL, createPoolWorker: (o) => new ChecksPoolWorker(o) },
      // The suite's own modules are compiled JavaScript: loaded natively, not through Vite's transform (the fixed
      // cost of a run). Only the entry file goes through Vitest's runner.
      server: {
        deps: { external: [/\/dist\/(core|app|reporters|reference)\//, /\/dist\/suites\/(?!conformance\.test\.js$)/] },
      },
      maxWorkers: 1,
      isolate: false,
      fileParallelism: false,
      maxConcurrency: 1000,
      testTimeout: Math.max(1000, opts.deadlineAt - Date.now()) + 10_000,
      hookTimeout: 30_000,
      passWithNoTests: false,
      // No results cache (durations to order files by: a run has one file): Vitest would write it under the package's
      // own install (node_modules/.vite/vitest/<hash>/results.json), which may be read-only and is not ours to fill.
      cache: false,
    },
    { logLevel: 'silent', clearScreen: false },
  ).finally(() => process.off('newListener', onListener));
  dropVitestHandlers();

  return { run: () => runSuite(config, opts, vitest, collector) };
}

/**
 * Runs the selected checks and builds the report. The run ends at the deadline or an interruption within about a
 * second, whatever the checks are doing: what finished is reported, what did not is incomplete, and the report says
 * why.
 */
async function runSuite(
  config: Config,
  opts: RunnerOptions,
  vitest: Vitest,
  collector: ResultCollector,
): Promise<{ report: Report; closed: Promise<void> }> {
  const started = opts.startedAt;
  let stopped: string | undefined;
  const deadline = new Promise<string>((r) => {
    setTimeout(() => r(deadlineWords(config)), Math.max(0, opts.deadlineAt - Date.now()) + GRACE_MS).unref();
  });
  const run = vitest.start().then(
    () => undefined,
    (e: unknown) => {
      // The runner itself stopped (a worker died, out of memory): a harness error, so the run exits 3, never 0 or 1.
      collector.errors.push(
        opts.redactor.redact(`the test runner stopped: ${(e as Error).message?.split('\n')[0] ?? String(e)}`),
      );
    },
  );
  // The worker asks for the entry file once it has booted (~125 ms of loading Vitest's modules): transformed
  // meanwhile, it is served from vite's cache instead of after a transform on the run's critical path.
  void vitest.projects[0]?.vite.environments.ssr?.warmupRequest(ENTRY).catch(() => undefined);
  // An interruption stops the engine itself (the CLI forwards it: app/early-worker.ts stopRun), which ends every
  // unfinished check as incomplete; the runner then has the deadline's grace to report them before it is cancelled.
  let interrupted: string | undefined;
  const interruption = opts.interrupted.then(async (why) => {
    interrupted = why;
    await sleep(GRACE_MS);
    return why;
  });
  const reason = await Promise.race([run.then(() => undefined), deadline, interruption]);
  if (reason !== undefined) {
    stopped = reason;
    const cancel = vitest
      .cancelCurrentRun(reason as Parameters<typeof vitest.cancelCurrentRun>[0])
      .catch(() => undefined);
    await Promise.race([Promise.all([cancel, run]), sleep(CANCEL_MS)]);
  }
  const closed = Promise.race([vitest.close().catch(() => undefined), sleep(stopped ? CLOSE_MS : 30_000)]);
  // A run that ended on its own has reported every result: the report is built while Vitest closes. A stopped one
  // may still hear from checks that end while it closes.
  if (stopped) await closed;

  // The engine ended on its own at an interruption or at the deadline (before the runner's grace ran out): its checks
  // say so.
  stopped ??= interrupted ?? deadlineStop(config, collector.records, opts.deadlineAt);
  // The checks' process died before its checks ended (killed, out of memory): a harness error, whatever Vitest said.
  const lost = checksLost();
  if (lost !== undefined) collector.errors.unshift(opts.redactor.redact(lost));
  // Every selected check is in the report: one that never reported did not finish, and the report says why.
  const why = stopped ?? collector.errors[0] ?? 'the test runner ended before this check reported';
  for (const c of opts.selected.filter((s) => !collector.has(s.id)))
    collector.add(unfinishedRecord(c, `not finished: ${why}`));
  // The one count of unfinished checks (the report model's): those that never reported and those that reported
  // that they could not finish alike, as the verdict's reason and the summary's list count them.
  if (stopped)
    collector.errors.push(
      `${stopped}: ${unfinishedOf({ checks: collector.records }).length} of ${opts.selected.length} checks did not finish`,
    );
  const checks = opts.mark ? collector.records.map(opts.mark) : collector.records;

  const report = buildReport({
    checks,
    baseUrl: opts.redactor.redact(config.base_url),
    startedAt: started,
    durationMs: Date.now() - started.getTime(),
    strict: opts.strict,
    catalogue: opts.catalogue,
    fuzz: { seed: config.fuzz.seed, runs: config.fuzz.runs },
    config: redactedConfig(config),
    errors: collector.errors,
    // The rule matrix: a run that left a cell the suite probes unprobed is PARTIAL, and says how many (#35).
    matrix: runMatrix(config),
  });
  return { report, closed };
}

/** The deadline's words when the run ended past it with checks it cut short (the engine stopped on its own). */
function deadlineStop(config: Config, records: readonly CheckRecord[], deadlineAt: number): string | undefined {
  return Date.now() >= deadlineAt && records.some((r) => r.status === 'incomplete') ? deadlineWords(config) : undefined;
}

/**
 * Writes the run's reports; the directory holds one run: a report file of ours that this run does not write (a
 * format not chosen this time) is removed, and so are an earlier run's attestation and badge at their default names
 * (they vouch for a report that is gone); no other file is touched.
 */
export async function writeReportDir(report: Report, config: Config): Promise<string[]> {
  const dir = resolve(config.report.dir);
  await mkdir(dir, { recursive: true });
  const files = await writeReports(report, dir, config.report.formats);
  for (const name of Object.values(REPORT_FILES))
    if (!files.includes(join(dir, name))) await rm(join(dir, name), { force: true });
  for (const name of [ATTESTATION_FILE, BADGE_FILE]) await rm(join(dir, name), { force: true });
  return files;
}
