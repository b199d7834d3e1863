/**
 * A CLI run inside the checks' process. The CLI sends its order (RunOrder) as soon as its preflight passed, and the
 * engine starts at once, before the CLI has loaded Vitest; Vitest's entry file (suites/conformance.test.ts) then
 * declares one test per check and each test waits for its check's record (suites/check-records.ts). So the requests
 * of a run never wait for Vitest's start, and Vitest still reports every check.
 */
import type { Check } from '../core/model/check.js';
import { clientFor, type SourceOf } from '../core/engine/run.js';
import { runChecks } from '../core/engine/engine.js';
import { Recorder } from '../core/session/recorded-source.js';
import { HarWriter } from '../core/session/har.js';
import { CheckRecords } from './check-records.js';
import { ALL_CHECKS } from './index.js';
import type { RunOrder } from './worker-messages.js';

/** A run started in this process: its checks, and their records as they arrive. */
export interface CliRun {
  selected: Check[];
  records: CheckRecords;
  /** Resolves once the engine has ended and the HAR, if any, is closed. */
  ended(): Promise<void>;
}

let current: CliRun | undefined;

/** Starts the engine on an order (once per process: a second order is ignored). */
export function startCliRun(order: RunOrder): CliRun {
  if (current) return current;
  const { config, deadlineAt, progressFile, recordHar } = order;
  const only = new Set(order.only);
  const selected = ALL_CHECKS.filter((c) => only.has(c.id));
  // --record-har: the run's own client, each exchange it answers written to the HAR as it happens (the CLI checked the
  // path before the first request). A recording problem (a full disk, a path gone) never changes the verdict: the
  // writer stops and empties the file, and the CLI says nothing was written.
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
        return new Recorder(clientFor(config, r, { deadlineAt }), (x) => har!.add(x));
      }
    : undefined;
  const records = new CheckRecords(selected, (checks, opts) =>
    runChecks(config, checks, recording, { ...opts, deadlineAt, ...(progressFile ? { progressFile } : {}) }),
  );
  records.begin(only);
  current = {
    selected,
    records,
    ended: async () => {
      await records.ended();
      har?.close();
    },
  };
  return current;
}

/** Stops the run started in this process, if any: its unfinished checks end incomplete, with this reason. */
export function stopCliRun(reason: string): void {
  current?.records.stop(reason);
}

/** The run the CLI started in this process (for Vitest's entry file). */
export function cliRun(): CliRun {
  // Only a process started after the one that ran the checks stopped (app/early-worker.ts) was given no run.
  if (!current) throw new Error('no run in this process: the checks ran in one that stopped before Vitest took it');
  return current;
}
