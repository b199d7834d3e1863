/**
 * The Vitest entry of a conformance run: one test per check, grouped by area. The CLI starts Vitest on this file
 * alone and provides the run's config; the checks themselves are declared as data in the area modules.
 */
import { afterAll, inject } from 'vitest';
import { truncateSync } from 'node:fs';
import { clientFor, createRun, type SourceOf } from '../core/run.js';
import { Recorder } from '../core/recorded-source.js';
import { writeHarFile } from '../core/har.js';
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
// --record-har: the run's own client, with every exchange it answers kept whole for the HAR.
let recorder: Recorder | undefined;
const recording: SourceOf | undefined = harFile
  ? (r) => (recorder = new Recorder(clientFor(config, r, { deadlineAt })))
  : undefined;
const run = createRun(config, selected, deadlineAt, inject('conformanceProgressFile'), recording);
afterAll(async () => {
  await run.close();
  if (harFile && recorder) {
    const { app, other_app, disabled_app, fuzz } = config;
    // A recording problem (a full disk, a path gone) never changes the verdict: the CLI finds the file empty and
    // says so.
    try {
      writeHarFile(harFile, recorder.exchanges, run.redactor, {
        app,
        ...(other_app ? { other_app } : {}),
        ...(disabled_app ? { disabled_app } : {}),
        fuzz,
      });
    } catch {
      try {
        truncateSync(harFile, 0);
      } catch {
        /* gone: the CLI says nothing was written */
      }
    }
  }
});

declareChecks(selected, () => run);
