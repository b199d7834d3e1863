/**
 * The Vitest entry of a conformance run: one test per check, grouped by area. The CLI starts Vitest on this file
 * alone and provides the run's config; the checks themselves are declared as data in the area modules.
 */
import { afterAll, inject } from 'vitest';
import { createRun } from '../src/run.js';
import { declareChecks, selectChecks } from '../src/declare-checks.js';
import { ALL_CHECKS } from './index.js';

const selected = selectChecks(ALL_CHECKS, inject('conformanceOnly'));
const run = createRun(inject('conformanceConfig'), selected);
afterAll(() => run.close());

declareChecks(selected, () => run);
