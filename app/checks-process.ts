/**
 * The checks' process of a CLI run (forked by app/run-host.ts): it loads the engine and the checks while the CLI runs
 * its preflight, runs `runChecks` on the CLI's order, and sends back each record, the count of requests and the
 * end, as the typed messages of app/run-host.ts. It is a process of its own for its memory (a hostile body that
 * exhausts it ends this process, not the CLI, which still reports what finished) and so that the CLI can end it
 * outright.
 */
import nodeModule from 'node:module';
import type { FromChecks, ToChecks } from './run-host.js';
import type { SourceOf } from '../core/engine/run.js';
import type { HarWriter } from '../core/session/har.js';

const send = process.send?.bind(process);
if (!send) throw new Error("the checks' process runs in a child process started by the CLI");
// Nothing is sent once the CLI is gone (a send on a closed channel is an error).
const post = (m: FromChecks): void => {
  if (process.connected) send(m);
};

// The CLI decides what a signal means (a Ctrl-C reaches the whole process group): it says stop, and this process
// ends its checks as incomplete, so the report still holds what finished.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
// The CLI is gone (it exited, or was killed): no request of its run may go out after it.
process.on('disconnect', () => process.exit(3));

// Loaded after the handlers are in place: an order sent while they load is heard all the same.
const loaded = Promise.all([
  import('../core/engine/run.js'),
  import('../core/engine/engine.js'),
  import('../core/session/recorded-source.js'),
  import('../core/session/har.js'),
  import('../suites/index.js'),
]);
const controller = new AbortController();
let started = false;

process.on('message', (m: ToChecks) => {
  if (m.type === 'stop') controller.abort(m.reason);
  else if (m.type === 'run' && !started) {
    started = true;
    void run(m).then(
      (ended) => post(ended),
      (e: unknown) => post({ type: 'failed', message: (e as Error)?.message ?? String(e) }),
    );
  }
});

async function run(order: Extract<ToChecks, { type: 'run' }>): Promise<FromChecks> {
  const [{ clientFor }, { runChecks }, { Recorder }, { HarWriter }, { ALL_CHECKS }] = await loaded;
  const { config, deadlineAt, recordHar } = order;
  const only = new Set(order.only);
  // --record-har: the run's own client, each exchange it answers written to the HAR as it happens (the CLI checked the
  // path before the first request). A recording problem never changes the verdict: the writer stops and empties
  // the file, and the CLI says nothing was written.
  let har: HarWriter | undefined;
  const recording: SourceOf | undefined = recordHar
    ? (r) => {
        const { app, other_app, disabled_app, fuzz } = config;
        har = new HarWriter(recordHar, r, {
          app,
          ...(other_app ? { other_app } : {}),
          ...(disabled_app ? { disabled_app } : {}),
          fuzz,
        });
        // keepBodies: each body's bytes as they came go to the HAR a slice at a time, never rendered as text.
        return new Recorder(clientFor(config, r, { deadlineAt, keepBodies: true }), (x) => har!.add(x));
      }
    : undefined;
  const result = await runChecks(
    config,
    ALL_CHECKS.filter((c) => only.has(c.id)),
    recording,
    {
      deadlineAt,
      signal: controller.signal,
      onRecord: (record) => post({ type: 'record', record }),
      ...(order.progress ? { onProgress: (progress) => post({ type: 'progress', progress }) } : {}),
    },
  );
  har?.close();
  return { type: 'ended', errors: result.errors };
}

const { ALL_CHECKS } = (await loaded)[4];
post({
  type: 'catalogue',
  heads: ALL_CHECKS.map(({ id, title, level, spec, area }) => ({ id, title, level, spec, area })),
});
// The API's precompiled validators, loaded before the run's first answer needs them.
(await import('../core/spec/schemas.js')).isValid('envelope.success', {});
// The compile cache (Node 22.1 on, see bin/conformance.js) is written now: the CLI ends this process with SIGKILL,
// which would leave it unwritten. (Looked up on the module object: Node 20 has no such export.)
(nodeModule as { flushCompileCache?: () => void }).flushCompileCache?.();
