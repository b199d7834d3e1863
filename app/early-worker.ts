/**
 * The checks' process (suites/checks-worker.ts), forked by the CLI as soon as it knows it will run checks: it loads
 * the engine and the checks while the CLI runs its preflight, and starts the run when the CLI sends its order
 * (startRun), before Vitest is even loaded. Vitest takes it through our pool (app/suite-runner.ts) and reports the
 * checks; a run that never starts Vitest (a usage error, the preflight stopped it) stops it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { WORKER_READY, type RunOrder, type RunOrderMessage } from '../suites/worker-messages.js';

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
/** The run's order, once sent: a process forked after it (the early one died) is sent it too. */
let order: RunOrderMessage | undefined;

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
  const ready = new Promise<void>((resolve, reject) => {
    const onMessage = (m: unknown): void => {
      if (m !== WORKER_READY) return;
      child.off('message', onMessage);
      resolve();
    };
    child.on('message', onMessage);
    child.once('exit', (code, signal) =>
      reject(new Error(`the checks' process exited (${signal ?? `code ${code}`}) before Vitest's worker started`)),
    );
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

const alive = (c: ChildProcess | undefined): boolean =>
  c !== undefined && c.exitCode === null && c.signalCode === null && c.connected;

/**
 * Starts the run's checks in the checks' process (suites/cli-run.ts), forking it if need be: the CLI calls this once
 * its preflight passed, so the engine's requests need not wait for Vitest's start.
 */
export function startRun(run: RunOrder): void {
  order = { conformanceRun: run };
  if (early && !alive(early)) {
    early.kill();
    early = undefined;
  }
  forkEarlyWorker().send(order);
}

/**
 * The checks' process for Vitest's pool: the early one if it is still alive, else a new one, sent the run's order if
 * there is one. Taken once.
 */
export function takeEarlyWorker(): ChildProcess {
  const e = early && alive(early) ? early : undefined;
  if (early && !e) early.kill();
  early = undefined;
  const child = e ?? forkEarlyWorker();
  if (!e && order) child.send(order);
  early = undefined;
  child.ref();
  child.channel?.ref();
  return child;
}

/** Stops the early process if Vitest never took it (the run ended before the checks started). */
export function dropEarlyWorker(): void {
  early?.kill();
  early = undefined;
  order = undefined;
}
