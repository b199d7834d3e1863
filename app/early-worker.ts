/**
 * The checks' process, started as soon as the CLI knows it will run checks: before Vitest is even loaded. Loading
 * Vitest's worker modules takes that process some 200 ms, which Vitest would only begin once it has loaded and
 * created itself (another 300 ms in the CLI's process); started early, the two load side by side. Vitest adopts the
 * process through a pool of its own (`EarlyForksPoolWorker` in suite-runner.ts) only when it would have started
 * exactly this one: the same entry file, flags and environment. Otherwise the early process is stopped and Vitest
 * starts its own, as it always did, so a guess that no longer holds (another Vitest, NODE_ENV=production) costs time,
 * never correctness.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isatty } from 'node:tty';
import { isDeepStrictEqual } from 'node:util';

/**
 * Node flags of the checks' process. Old-space growth is slowed (1.6× per step, not V8's several times what is
 * live), so a large merchant's run collects more often and stays under 400 MiB RSS instead of growing past 500;
 * it is no limit (none of these is). The checks run in a child process (Vitest's forks pool): if a hostile body ever exhausts its
 * memory, the child dies, not the CLI, and the report of what finished is still written (exit 3).
 */
export const WORKER_FLAGS = [
  '--heap-growing-percent=60',
  // Started at the size loading Vitest and the checks takes, not grown to it by a dozen collections on the way:
  // fixture run 610 → 582 ms, large 5.7 → 5.4 s, the same peak RSS (alternating runs).
  '--min-semi-space-size=8',
  '--initial-old-space-size=64',
  // The checks' modules, loaded while the process waits for Vitest (suites/preload.ts).
  '--import',
  new URL('../suites/preload.js', import.meta.url).href,
];

interface Early {
  child: ChildProcess;
  entry: string;
  execArgv: string[];
  env: NodeJS.ProcessEnv;
}

let early: Early | undefined;
let starting!: () => void;
const started = new Promise<void>((r) => (starting = r));

/**
 * Resolves when Vitest starts the checks' process (the early one or its own): what the CLI does in its own process
 * until then delays that start.
 */
export const workerStarting = (): Promise<void> => started;

/**
 * Starts the process Vitest's forks pool would start for this run, as Vitest 4 would: its worker entry file, the
 * flags it passes (its own, the profiler's, the module conditions of Vite's SSR environment, WORKER_FLAGS) and the
 * environment it sets. Adopted later by adoptEarlyWorker, or stopped by dropEarlyWorker.
 */
export function forkEarlyWorker(): ChildProcess {
  if (early) return early.child;
  const vitest = dirname(createRequire(import.meta.url).resolve('vitest/package.json'));
  const nodeEnv = process.env.NODE_ENV || 'development';
  const entry = join(vitest, 'dist', 'workers', 'forks.js');
  const execArgv = [
    ...process.execArgv.filter(
      (a) => a.startsWith('--cpu-prof') || a.startsWith('--heap-prof') || a.startsWith('--diagnostic-dir'),
    ),
    '--experimental-import-meta-resolve',
    '--require',
    join(vitest, 'suppress-warnings.cjs'),
    '--conditions',
    'node',
    '--conditions',
    nodeEnv === 'production' ? 'production' : 'development',
    ...WORKER_FLAGS,
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BASE_URL: '/',
    DEV: nodeEnv === 'production' ? '' : '1',
    FORCE_TTY: isatty(1) ? 'true' : '',
    MODE: 'test',
    NODE_ENV: nodeEnv,
    PROD: nodeEnv === 'production' ? '1' : '',
    TEST: 'true',
    VITEST: 'true',
    VITEST_MODE: 'RUN',
  };
  const child = fork(entry, [], { env, execArgv, stdio: 'pipe', serialization: 'advanced' });
  // Never adopted (a usage error, the preflight stopped the run): it must not outlive the CLI.
  child.unref();
  child.channel?.unref();
  early = { child, entry, execArgv, env };
  return child;
}

/**
 * The early process, when it is the one Vitest is about to start (entry, flags and environment equal) and still
 * alive; otherwise it is stopped and undefined is returned (Vitest then starts its own).
 */
export function adoptEarlyWorker(entry: string, execArgv: string[], env: NodeJS.ProcessEnv): ChildProcess | undefined {
  starting();
  const e = early;
  early = undefined;
  if (!e) return undefined;
  const same =
    e.entry === entry &&
    isDeepStrictEqual(e.execArgv, execArgv) &&
    isDeepStrictEqual(e.env, env) &&
    e.child.exitCode === null &&
    e.child.signalCode === null &&
    e.child.connected;
  if (!same) {
    e.child.kill();
    return undefined;
  }
  e.child.ref();
  e.child.channel?.ref();
  return e.child;
}

/** Stops the early process if nobody adopted it (the run ended before the checks started). */
export function dropEarlyWorker(): void {
  early?.child.kill();
  early = undefined;
}
