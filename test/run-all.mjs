#!/usr/bin/env node
// `npm test`: the typecheck (tsc --noEmit) and the format check (prettier --check) run beside the build and Vitest
// instead of before them: they read the sources only, and a clean clone on two cores waited about 16 s for them
// before the first test file started. Vitest's output streams as it comes; the other two are shown when they end,
// and the command fails when any of the four fails. Arguments go to Vitest (`npm test -- test/x.test.ts`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** A file of an installed package, by its path in the package (its exports map may not list it). */
const bin = (pkg, path) => join(dirname(require.resolve(`${pkg}/package.json`)), path);

/** Runs a command; `buffered`: its output is kept and returned, else it goes straight to this terminal. */
function run(name, file, args, buffered) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    if (buffered) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.on('error', (e) => resolve({ name, code: 1, out: `${out}${e.message}\n`, s: 0 }));
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), out, s: (Date.now() - started) / 1000 }),
    );
  });
}

const node = process.execPath;
const typecheck = run('tsc --noEmit', node, [bin('typescript', 'bin/tsc'), '--noEmit'], true);
const format = run(
  'prettier --check .',
  node,
  [bin('prettier', 'bin/prettier.cjs'), '--check', '--log-level', 'warn', '.'],
  true,
);
// npm run build, through the npm that runs this script (npm_execpath) when there is one.
const npm = process.env.npm_execpath;
const build = await run(
  'npm run build',
  npm ? node : 'npm',
  [...(npm ? [npm] : []), 'run', '--silent', 'build'],
  false,
);
const vitest =
  build.code === 0
    ? await run('vitest run', node, [bin('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], false)
    : { name: 'vitest run', code: 1, out: '', s: 0, skipped: true };
const results = [build, await typecheck, await format, vitest];
for (const r of results) {
  if (r.out) process.stdout.write(`\n${r.name}:\n${r.out}`);
  const said = r.skipped ? 'not run (the build failed)' : r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`;
  console.log(`npm test: ${r.name} ${said}${r.s ? ` in ${r.s.toFixed(1)} s` : ''}`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
