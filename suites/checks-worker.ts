/**
 * The checks' process: a worker of our own Vitest pool (app/suite-runner.ts, Vitest's documented custom-pool API),
 * started by the CLI as soon as it knows it will run checks (app/early-worker.ts), before Vitest is even loaded. The
 * CLI's order (suites/cli-run.ts) starts the engine as soon as the preflight passed, without waiting for Vitest; so
 * the engine and the checks load first, then Vitest's public worker entry (`vitest/worker`), which speaks Vitest's
 * protocol as any custom pool's worker does. Vitest's entry file (suites/conformance.test.ts) then reports the
 * checks. The pool waits for WORKER_READY before Vitest talks to this process.
 */
import {
  RUN_ENDED,
  WORKER_READY,
  type RunOrderMessage,
  type StopMessage,
  type WorkerEnvMessage,
} from './worker-messages.js';

const send = process.send?.bind(process);
if (!send) throw new Error('the checks worker runs in a child process started by the CLI');

// Nothing is sent once the CLI is gone: a send on a closed channel is an error, which Vitest's worker reports by
// sending it, which fails again, with no end (the process spun at full CPU, never reaching the exit below).
const post = (v: unknown): void => {
  if (process.connected) send(v);
};

const cliRun = import('./cli-run.js');
// Registered before Vitest's handler, so the environment is set before Vitest's first message is handled.
process.on('message', (m: Partial<WorkerEnvMessage & RunOrderMessage & StopMessage>) => {
  if (m?.conformanceWorkerEnv) Object.assign(process.env, m.conformanceWorkerEnv);
  const order = m?.conformanceRun;
  if (order)
    void cliRun.then(({ startCliRun }) =>
      startCliRun(order)
        .ended()
        .then(() => post(RUN_ENDED)),
    );
  const stop = m?.conformanceStop;
  if (stop !== undefined) void cliRun.then(({ stopCliRun }) => stopCliRun(stop));
});
// The CLI is gone (it exited, or was killed): no request of its run may go out after it. Node's own exit, taken
// before Vitest's worker replaces process.exit with one that reports a test calling it (and exits no process).
const exit = process.exit.bind(process);
process.on('disconnect', () => exit(3));

await cliRun;
// The API's precompiled validators, loaded before the run's first answer needs them.
(await import('../core/spec/schemas.js')).isValid('envelope.success', {});
const { init, runBaseTests, setupEnvironment } = await import('vitest/worker');
init({
  post,
  on: (cb) => process.on('message', cb),
  off: (cb) => process.off('message', cb),
  teardown: () => process.removeAllListeners('message'),
  runTests: (state, traces) => runBaseTests('run', state, traces),
  collectTests: (state, traces) => runBaseTests('collect', state, traces),
  setup: setupEnvironment,
});
post(WORKER_READY);
