/**
 * The Vitest entry of a conformance run: one test per check (suites/declare-checks.ts), over the run of the engine
 * the CLI started in this process once its preflight passed (suites/cli-run.ts). The CLI starts Vitest on this file
 * alone; each test waits for its check's record.
 */
import { afterAll } from 'vitest';
import { cliRun } from './cli-run.js';
import { declareChecks } from './declare-checks.js';

const run = cliRun();
afterAll(() => run.ended());

declareChecks(run.selected, run.records, { stopOnCancel: true });
