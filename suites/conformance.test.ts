/**
 * The Vitest entry of a conformance run: one test per check, grouped by area. The CLI starts Vitest on this file
 * alone and provides the run's config; the checks themselves are declared as data in the area modules.
 */
import { afterAll, inject } from 'vitest';
import { clientFor, createRun, type SourceOf } from '../core/run.js';
import { Recorder } from '../core/recorded-source.js';
import { HarWriter } from '../core/har.js';
import { declareChecks } from '../core/declare-checks.js';
import { passStartGate } from '../core/start-gate.js';
import { ALL_CHECKS } from './index.js';

const only = new Set(inject('conformanceOnly'));
const selected = ALL_CHECKS.filter((c) => only.has(c.id));

const config = inject('conformanceConfig');
const deadlineAt = inject('conformanceDeadlineAt');
const gate = inject('conformanceStartGate');
// Loaded while the CLI's preflight ran; no check starts before its verdict.
if (gate && !(await passStartGate(gate, deadlineAt))) throw new Error('the preflight stopped the run: no check ran');
const harFile = inject('conformanceRecordHar');
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
const run = createRun(config, selected, deadlineAt, inject('conformanceProgressFile'), recording);
afterAll(async () => {
  await run.close();
  har?.close();
});

declareChecks(selected, () => run);
