/**
 * The checks' process (suites/checks-worker.ts), forked by the CLI as soon as it knows it will run checks: it loads
 * Vitest's worker modules and the checks while the CLI loads and creates Vitest and runs its preflight, side by side
 * (about half a second of a small run's fixed cost). Vitest takes it through our pool (app/suite-runner.ts); a run
 * that never starts Vitest (a usage error, the preflight stopped it) stops it.
 */
import { fork, type ChildProcess } from 'node:child_process';

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
  early = fork(ENTRY, [], {
    execArgv: [...profiling, ...WORKER_FLAGS],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  // Until Vitest takes it, it must not keep the CLI alive.
  early.unref();
  early.channel?.unref();
  return early;
}

/** The checks' process for Vitest's pool: the early one if it is still alive, else a new one. Taken once. */
export function takeEarlyWorker(): ChildProcess {
  const e = early && early.exitCode === null && early.signalCode === null && early.connected ? early : undefined;
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
}
