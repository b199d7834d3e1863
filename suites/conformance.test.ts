/**
 * The Vitest entry of a conformance run: one test per check (suites/declare-checks.ts), over one run of the engine
 * (core/engine/engine.ts). The CLI starts Vitest on this file alone once its preflight passed; what it hands over comes
 * through Vitest's provide (app/vitest-context.d.ts names all that crosses).
 */
import { afterAll, inject } from 'vitest';
import { clientFor, type SourceOf } from '../core/engine/run.js';
import { runChecks } from '../core/engine/engine.js';
import { Recorder } from '../core/session/recorded-source.js';
import { HarWriter } from '../core/session/har.js';
import { CheckRecords, declareChecks } from './declare-checks.js';
import { ALL_CHECKS } from './index.js';

const only = new Set(inject('conformanceOnly'));
const selected = ALL_CHECKS.filter((c) => only.has(c.id));

const config = inject('conformanceConfig');
const deadlineAt = inject('conformanceDeadlineAt');
const harFile = inject('conformanceRecordHar');
const progressFile = inject('conformanceProgressFile');
// --record-har: the run's own client, each exchange it answers written to the HAR as it happens (the CLI checked the
// path before the first request). A recording problem (a full disk, a path gone) never changes the verdict: the
// writer stops and empties the file, and the CLI says nothing was written.
let har: HarWriter | undefined;
const recording: SourceOf | undefined = harFile
  ? (r) => {
      const { app, other_app, disabled_app, fuzz } = config;
      har = new HarWriter(harFile, r, {
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
afterAll(async () => {
  await records.ended();
  har?.close();
});

declareChecks(selected, records, { stopOnCancel: true });
