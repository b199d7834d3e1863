#!/usr/bin/env node
import { dropEarlyWorker, forkEarlyWorker, startsChecks } from '../dist/app/early-worker.js';

const argv = process.argv.slice(2);
// A run's checks load in a process of their own: started before the CLI's modules load (a tenth of a second
// earlier), since loading them is the longest part of a small run's fixed cost (app/early-worker.ts).
if (startsChecks(argv)) forkEarlyWorker();
const { main } = await import('../dist/app/cli.js');
const code = await main(argv);
// A run that never started Vitest (a usage error, the preflight stopped it) stops the process it did not use.
dropEarlyWorker();
// Exit explicitly: a run stopped at its deadline or by a signal may leave the checking worker busy, and its report
// is already written. Writes to pipes and files are synchronous on Linux, so nothing printed is lost.
process.exit(code);
