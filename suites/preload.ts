/**
 * The modules of the checks, loaded by the checks' process before Vitest hands it the entry file
 * (suites/conformance.test.ts imports the same files, and finds them loaded): the CLI starts that process early
 * (app/early-worker.ts), and it would otherwise wait idle for Vitest, then load these on the run's critical path.
 * Nothing here imports Vitest, whose worker is not set up yet when this runs.
 */
import { isValid } from '../core/schemas.js';
import './index.js';
import '../core/run.js';
import '../core/recorded-source.js';
import '../core/har.js';
import '../core/start-gate.js';

// The API's precompiled validators are loaded with the first validation: done here, while nothing waits.
isValid('envelope.success', {});
