#!/usr/bin/env node
import { ChecksProcess, startsChecks } from '../dist/app/run-host.js';

const argv = process.argv.slice(2);
// A run's checks load in a process of their own (app/checks-process.ts): forked before the CLI's modules load.
const early = startsChecks(argv) ? ChecksProcess.fork() : undefined;
const { main } = await import('../dist/app/cli.js');
const code = await main(argv, early);
early?.kill();
// Exit explicitly: a run stopped at its deadline or by a signal may leave requests in flight, and its report is
// already written. Writes to pipes and files are synchronous on Linux, so nothing printed is lost.
process.exit(code);
