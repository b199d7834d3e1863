/**
 * The checks' process: a worker of our own Vitest pool (app/suite-runner.ts, Vitest's documented custom-pool API),
 * started by the CLI as soon as it knows it will run checks (app/early-worker.ts), before Vitest is even loaded. It
 * speaks Vitest's worker protocol through the public `vitest/worker` entry, as any custom pool's worker does, and
 * loads the checks' modules while the CLI loads Vitest and runs its preflight: the test file
 * (suites/conformance.test.ts) then finds them loaded.
 */
import { init, runBaseTests, setupEnvironment } from 'vitest/worker';

/** The message the pool sends first: the environment Vitest gives its workers (PoolOptions.env). */
export interface WorkerEnvMessage {
  conformanceWorkerEnv: Record<string, string | undefined>;
}

const send = process.send?.bind(process);
if (!send) throw new Error('the checks worker runs in a child process started by the CLI');

// Registered before Vitest's handler, so the environment is set before Vitest's first message is handled.
process.on('message', (m: Partial<WorkerEnvMessage>) => {
  if (m?.conformanceWorkerEnv) Object.assign(process.env, m.conformanceWorkerEnv);
});
init({
  post: (v) => send(v),
  on: (cb) => process.on('message', cb),
  off: (cb) => process.off('message', cb),
  teardown: () => process.removeAllListeners('message'),
  runTests: (state, traces) => runBaseTests('run', state, traces),
  collectTests: (state, traces) => runBaseTests('collect', state, traces),
  setup: setupEnvironment,
});

// The checks' modules and the API's precompiled validators, loaded while nothing waits for this process.
const [{ isValid }] = await Promise.all([
  import('../core/spec/schemas.js'),
  import('./index.js'),
  import('../core/engine/engine.js'),
  import('../core/session/recorded-source.js'),
  import('../core/session/har.js'),
]);
isValid('envelope.success', {});
