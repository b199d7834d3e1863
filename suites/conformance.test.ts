/**
 * The Vitest entry of a conformance run: one test per check, grouped by area. The CLI starts Vitest on this file
 * alone and provides the run's config; the checks themselves are declared as data in the area modules.
 */
import { afterAll, inject } from 'vitest';
import { createRun } from '../core/run.js';
import { declareChecks } from '../core/declare-checks.js';
import { ALL_CHECKS } from './index.js';

const only = new Set(inject('conformanceOnly'));
const selected = ALL_CHECKS.filter((c) => only.has(c.id));

const run = createRun(inject('conformanceConfig'), selected, inject('conformanceDeadlineAt'), inject('conformanceProgressFile'));
afterAll(() => run.close());

declareChecks(selected, () => run);
