#!/usr/bin/env node
import { main } from '../dist/app/cli.js';

// Exit explicitly: a run stopped at its deadline or by a signal may leave the checking worker busy, and its report
// is already written. Writes to pipes and files are synchronous on Linux, so nothing printed is lost.
process.exit(await main(process.argv.slice(2)));
