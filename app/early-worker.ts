/**
 * The checks' process (suites/checks-worker.ts), forked by the CLI as soon as it knows it will run checks: it loads
 * the engine and the checks while the CLI runs its preflight, and starts the run when the CLI sends its order
 * (startRun), before Vitest is even loaded. Vitest takes it through our pool (app/suite-runner.ts) and reports the
 * checks; a run that never starts Vitest (a usage error, the preflight stopped it) stops it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import {
  RUN_ENDED,
  WORKER_READY,
  type RunOrder,
  type RunOrderMessage,
  type StopMessage,
} from '../suites/worker-messages.js';

/**
 * Node flags of the checks' process. Old-space growth is slowed (1.6× per step, not V8's several times what is
 * live), so a large merchant's run collects more often and stays under 400 MiB RSS instead of growing past 500;
 * it is no limit (none of these is). The checks run in a child process: if a hostile body ever exhausts its memory,
 * the child dies, not the CLI, and the report of what finished is still written (exit 3).
 */
export const WORKER_FLAGS = [
  '--heap-growing-percent=60',
  // Started at the size loading Vitest and the checks takes, not grown to it by a dozen collections on the way:
  // fixture run 610 → 582 ms, large 5.7 → 5.4 s, the same peak RSS (alternating runs).
  '--min-semi-space-size=8',
  '--initial-old-space-size=64',
];

/** The worker's entry file (compiled: the CLI always runs from dist/). */
const ENTRY = new URL('../suites/checks-worker.js', import.meta.url);

let early: ChildProcess | undefined;
const readiness = new WeakMap<ChildProcess, Promise<void>>();
/** The process that was sent the run's order. */
let running: ChildProcess | undefined;
/** Resolves when that process says its engine has ended, or exits. */
let ended: Promise<void> | undefined;
/** How the process that ran the checks ended, when it ended before its engine did (killed, out of memory). */
let lost: string | undefined;

/**
 * Whether a command line asks for a run of the checks (no command word such as `serve`, no --help, --version or
 * --list): bin/conformance.js forks the checks' process for it before the CLI's own modules load. A usage error
 * found later stops that process (dropEarlyWorker).
 */
export function startsChecks(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-')) return false;
  return !argv.some((a) => /^(-h|--help|-V|--version|--list)(=|$)/.test(a));
}

/** Forks the checks' process now (once), with the profiler's flags of the CLI if any and WORKER_FLAGS. */
export function forkEarlyWorker(): ChildProcess {
  if (early) return early;
  const profiling = process.execArgv.filter(
    (a) => a.startsWith('--cpu-prof') || a.startsWith('--heap-prof') || a.startsWith('--diagnostic-dir'),
  );
  const child = fork(ENTRY, [], {
    execArgv: [...profiling, ...WORKER_FLAGS],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  const ready = heard(child, WORKER_READY).then((exit) => {
    if (exit) throw new Error(`the checks' process exited (${exit}) before Vitest's worker started`);
  });
  ready.catch(() => undefined);
  readiness.set(child, ready);
  // Until Vitest takes it, it must not keep the CLI alive.
  child.unref();
  child.channel?.unref();
  return (early = child);
}

/** Resolves once the process's Vitest worker listens (suites/checks-worker.ts sends WORKER_READY). */
export function workerReady(child: ChildProcess): Promise<void> {
  return readiness.get(child) ?? Promise.reject(new Error('not a checks process of this CLI'));
}

const alive = (c: ChildProcess): boolean => c.exitCode === null && c.signalCode === null && c.connected;

/**
 * Resolves when the process sends `message` (with undefined) or exits first (with how it ended: a signal, or
 * "code N").
 */
function heard(child: ChildProcess, message: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      if (m !== message) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(undefined);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      child.off('message', onMessage);
      resolve(signal ?? `code ${code}`);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Starts the run's checks in the checks' process (suites/cli-run.ts), forking it if need be: the CLI calls this once
 * its preflight passed, so the engine's requests need not wait for Vitest's start.
 */
export function startRun(run: RunOrder): void {
  if (early && !alive(early)) {
    early.kill();
    early = undefined;
  }
  const child = forkEarlyWorker();
  running = child;
  ended = heard(child, RUN_ENDED).then((exit) => {
    // Stopped by this CLI (Vitest's pool at the end, a run cut short) is no loss; anything else is.
    if (exit && !child.killed) lost = `the checks' process stopped (${exit}) before every check had ended`;
  });
  const order: RunOrderMessage = { conformanceRun: run };
  child.send(order);
}

/**
 * How the checks' process ended when it ended before its checks did (killed, out of memory): a harness error, the
 * report's reason for every check it did not report. A process Vitest starts in its place runs no checks.
 */
export function checksLost(): string | undefined {
  return lost;
}

/**
 * Stops the run's checks (a signal): the engine ends every unfinished check as incomplete, with this reason, and
 * Vitest reports them all as it would at the deadline.
 */
export function stopRun(reason: string): void {
  const stop: StopMessage = { conformanceStop: reason };
  if (running?.connected) running.send(stop);
}

/** Resolves once the checks of the run have ended (their process said so, or is gone); at once if none started. */
export function checksEnded(): Promise<void> {
  return ended ?? Promise.resolve();
}

/**
 * The checks' process for Vitest's pool: the early one if it is still alive, else a new one (which runs no checks:
 * a run is never started twice). Taken once.
 */
export function takeEarlyWorker(): ChildProcess {
  const e = early && alive(early) ? early : undefined;
  if (early && !e) early.kill();
  early = undefined;
  const child = e ?? forkEarlyWorker();
  early = undefined;
  child.ref();
  child.channel?.ref();
  return child;
}

/** Stops the early process if Vitest never took it (the run ended before the checks started). */
export function dropEarlyWorker(): void {
  early?.kill();
  early = undefined;
  ended = undefined;
  running = undefined;
  lost = undefined;
}
