#!/usr/bin/env node
import { existsSync } from 'node:fs';
import module from 'node:module';
import { spawnSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath } from 'node:url';

// Node 22.1 and later: V8's compiled code of every module loaded from here on is kept on disk (os.tmpdir(), or
// NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off) and reused by the next run, as TypeScript and npm do.
// A run loads about 200 modules in each of its two processes; Node 20 has no such cache (the call is absent there).
// The checks' process inherits the directory through the environment, as Node's documentation says to.
const cache = module.enableCompileCache?.();
if (cache?.directory && process.env.NODE_COMPILE_CACHE === undefined) process.env.NODE_COMPILE_CACHE = cache.directory;

// A clone after `npm ci` has the sources and no dist/ (no install script builds it: installs stay quiet). Its first
// run builds dist/ as `npm run build` does, and says so. An installed package ships dist/ and no tsconfig: never here.
const root = new URL('../', import.meta.url);
if (!existsSync(new URL('dist/app/cli.js', root)) && existsSync(new URL('tsconfig.build.json', root))) {
  process.stderr.write('conformance: a clone without dist/: building it first (npm run build)\n');
  const npm = process.env.npm_execpath;
  const built = spawnSync(npm ? process.execPath : 'npm', [...(npm ? [npm] : []), 'run', '--silent', 'build'], {
    cwd: fileURLToPath(root),
    stdio: ['ignore', 2, 2],
  });
  if (built.status !== 0) {
    process.stderr.write('conformance: the build of dist/ failed (its errors are above)\n');
    process.exit(2);
  }
}

const { ChecksProcess, startsChecks, TIER_UP_FLAGS } = await import('../dist/app/run-host.js');
// The CLI's own code optimized later, as the checks' process's is (see TIER_UP_FLAGS): V8 reads the flag as each
// function first runs, and the CLI's modules load below.
for (const flag of TIER_UP_FLAGS) setFlagsFromString(flag);
const argv = process.argv.slice(2);
// A run's checks load in a process of their own (app/checks-process.ts): forked before the CLI's modules load.
const early = startsChecks(argv) ? ChecksProcess.fork() : undefined;
const { main } = await import('../dist/app/cli.js');
const code = await main(argv, early);
early?.kill();
// Exit explicitly: a run stopped at its deadline or by a signal may leave requests in flight, and its report is
// already written. Writes to pipes and files are synchronous on Linux, so nothing printed is lost.
process.exit(code);
