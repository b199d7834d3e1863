/**
 * The CLI's side of its checks' process (app/checks-process.ts): forks it, sends it the run's order, hears each
 * record, the count of requests and the end, and ends it. These messages are the only thing the two say to each other.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Config } from '../core/config/config.js';
import type { RequestProgress } from '../core/session/progress.js';
import type { CheckHead, CheckRecord } from '../core/model/report.js';

/** CLI → checks' process. */
export type ToChecks =
  | {
      /** Run these checks (the CLI resolved --only and --skip) until deadlineAt (epoch ms). */
      type: 'run';
      config: Config;
      only: string[];
      deadlineAt: number;
      /** --record-har: where the run's exchanges are written as HAR 1.2, secrets replaced by placeholders. */
      recordHar?: string;
      /** Whether to send the count of requests (the progress line). */
      progress: boolean;
    }
  /** Stop (a signal): what has not finished is incomplete, with this reason. */
  | { type: 'stop'; reason: string };

/** Checks' process → CLI. */
export type FromChecks =
  /** Sent once its modules are loaded: the catalogue (the CLI selects, lists and reports from it). */
  | { type: 'catalogue'; heads: CheckHead[] }
  | { type: 'record'; record: CheckRecord }
  | { type: 'progress'; progress: RequestProgress }
  /** The engine ended: every record was sent; errors are the run's own (it was stopped: how many did not finish). */
  | { type: 'ended'; errors: string[] }
  /** The run could not start or broke outside any check. */
  | { type: 'failed'; message: string };

/**
 * V8 flags of both processes of a run: how much a function runs before V8 optimizes it, about 3 times V8 11's default
 * (132 KiB of bytecode budget). A run is short and each process starts cold, so the default optimized much code that
 * ran only briefly, on the second core that the server and the other process need. On Node 20 (V8 11): bench, fixture,
 * 7 runs each, 634 → 562 ms (2.20 → 1.96 × the floor); the large merchant, 3 runs each, about 5 % slower (6.3 → 6.6 s,
 * 1.02 → 1.11 × the floor, within the 1.2 × target); `npm test`'s CPU 475 → 455 s (2026-11-28). V8 12 and later
 * (Node 22 on) tier up by invocation counts, with Maglev between, and have no such flag: none is given there (an
 * unknown flag is an error in execArgv and a line on stderr from v8.setFlagsFromString).
 */
export const TIER_UP_FLAGS: readonly string[] =
  Number(process.versions.v8.split('.')[0]) <= 11 ? ['--interrupt-budget=400000'] : [];

/**
 * Node flags of the checks' process. Old-space growth is slowed (1.6× per step, not V8's several times what is live),
 * so a large merchant's run collects more often and stays under 400 MiB RSS; it is no limit (none of these is).
 */
export const CHECKS_FLAGS = [
  '--heap-growing-percent=60',
  '--min-semi-space-size=8',
  '--initial-old-space-size=64',
  ...TIER_UP_FLAGS,
];

/** Time the checks' process gets to end after it was told to stop, or after the run's deadline, before it is killed. */
const KILL_AFTER_MS = 1_000;

const ENTRY = new URL('./checks-process.js', import.meta.url);

/**
 * Whether a command line asks for a run of the checks (no command word such as `serve`, no --help, --version or
 * --list): bin/conformance.js forks the checks' process for it before the CLI's own modules load.
 */
export function startsChecks(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-')) return false;
  return !argv.some((a) => /^(-h|--help|-V|--version|--list)(=|$)/.test(a));
}

/** The checks' process of one run. */
export class ChecksProcess {
  private catalogue: Promise<CheckHead[] | undefined> | undefined;

  private constructor(private readonly child: ChildProcess) {}

  /**
   * The catalogue's heads as the process loaded them (so the CLI does not load the checks a second time), or
   * undefined if it ended before it said.
   */
  heads(): Promise<CheckHead[] | undefined> {
    const child = this.child;
    this.catalogue ??= new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null || !child.connected) return resolve(undefined);
      // Waited for: the channel keeps the CLI alive until it is heard.
      child.channel?.ref();
      const done = (heads: CheckHead[] | undefined): void => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.channel?.unref();
        resolve(heads);
      };
      const onMessage = (m: FromChecks): void => {
        if (m.type === 'catalogue') done(m.heads);
      };
      const onExit = (): void => done(undefined);
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
    return this.catalogue;
  }

  /**
   * Forks it now: it loads the engine and the checks while the CLI runs its preflight. It keeps the CLI alive only
   * once it runs.
   */
  static fork(): ChecksProcess {
    const profiling = process.execArgv.filter(
      (a) => a.startsWith('--cpu-prof') || a.startsWith('--heap-prof') || a.startsWith('--diagnostic-dir'),
    );
    const child = fork(ENTRY, [], {
      execArgv: [...profiling, ...CHECKS_FLAGS],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    child.on('error', () => undefined);
    child.unref();
    child.channel?.unref();
    return new ChecksProcess(child);
  }

  /** Ends the process (a run that never started, or is over). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  /**
   * Runs the order and resolves with every selected check's record, in the order given, and the run's errors. A
   * stop (interrupted) is passed on; a process that has not ended KILL_AFTER_MS after a stop or after the deadline, or
   * that dies, is killed or lost: what it did not report did not finish, and the errors say why.
   */
  async run(
    order: Extract<ToChecks, { type: 'run' }>,
    hooks: {
      selected: CheckHead[];
      interrupted: Promise<string>;
      deadlineWords: string;
      onRecord?: (r: CheckRecord) => void;
      onProgress?: (p: RequestProgress) => void;
    },
  ): Promise<{ records: CheckRecord[]; errors: string[] }> {
    // Imported here, not with this module: bin/conformance.js loads this module to fork the checks' process, and the
    // report model (23 ms to load) would delay that fork; by now the CLI has loaded it.
    const { unfinishedRecord } = await import('../core/model/report.js');
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null || !child.connected)
      return {
        records: hooks.selected.map((c) => unfinishedRecord(c, "not finished: the checks' process had stopped")),
        errors: [`the checks' process stopped (${child.signalCode ?? `code ${child.exitCode}`}) before the run began`],
      };
    child.ref();
    child.channel?.ref();
    const records = new Map<string, CheckRecord>();
    return new Promise((resolve) => {
      let stopped: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      const end = (errors: string[], why?: string): void => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        clearTimeout(timer);
        clearTimeout(deadline);
        // Every selected check is in the report: one that never reported did not finish, and the report says why.
        const left = hooks.selected.filter((c) => !records.has(c.id));
        for (const c of left) records.set(c.id, unfinishedRecord(c, `not finished: ${why ?? 'the run ended'}`));
        if (left.length && why !== undefined) {
          const unfinished = [...records.values()].filter((r) => r.status === 'incomplete').length;
          errors.push(`${why}: ${unfinished} of ${hooks.selected.length} checks did not finish`);
        }
        this.kill();
        resolve({ records: hooks.selected.map((c) => records.get(c.id)!), errors });
      };
      const onMessage = (m: FromChecks): void => {
        if (m.type === 'record') {
          if (records.has(m.record.id)) return;
          records.set(m.record.id, m.record);
          hooks.onRecord?.(m.record);
        } else if (m.type === 'progress') hooks.onProgress?.(m.progress);
        else if (m.type === 'ended') end(m.errors);
        else if (m.type === 'failed') end([`the checks' process failed: ${m.message}`], `the checks' process failed`);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
        end(
          stopped ? [] : [`the checks' process stopped (${signal ?? `code ${code}`}) before every check had ended`],
          stopped ?? `the checks' process stopped (${signal ?? `code ${code}`})`,
        );
      const killAfter = (why: string): void => {
        stopped ??= why;
        timer ??= setTimeout(() => end([], stopped), KILL_AFTER_MS);
      };
      // The engine ends the run at its deadline itself (core/engine/engine.ts); a process still busy a second later
      // is ended here.
      const deadline = setTimeout(() => killAfter(hooks.deadlineWords), Math.max(0, order.deadlineAt - Date.now()));
      child.on('message', onMessage);
      child.once('exit', onExit);
      void hooks.interrupted.then((reason) => {
        if (child.connected) child.send({ type: 'stop', reason } satisfies ToChecks);
        killAfter(reason);
      });
      child.send(order satisfies ToChecks);
    });
  }
}
