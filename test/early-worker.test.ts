import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { once } from 'node:events';
import { adoptEarlyWorker, forkEarlyWorker } from '../app/early-worker.js';

test('the CLI starts the checks’ process once, early, and Vitest runs the checks in that very process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'early-worker-'));
  const log = join(dir, 'forks.log');
  const probe = join(dir, 'probe.cjs');
  // Counts the processes the CLI forks (not its children's): the early one, and any Vitest would fork itself.
  writeFileSync(
    probe,
    `const cp = require('node:child_process');
if (/conformance\\.js$/.test(process.argv[1] ?? '')) {
  const fork = cp.fork;
  cp.fork = function (path, ...rest) {
    require('node:fs').appendFileSync(${JSON.stringify(log)}, String(path) + '\\n');
    return fork.call(this, path, ...rest);
  };
  require('node:module').syncBuiltinESMExports();
}
`,
  );
  writeFileSync(log, '');
  await withServer([], async (srv) => {
    const r = await runCli(targetArgs(srv, ['--only', 'AUTH-01', '--only', 'MER-01']), {
      env: { ...targetEnv, NODE_OPTIONS: `--require ${probe}` },
    });
    expect(r.code).toBe(0);
    expect(r.report?.checks.filter((c) => c.status === 'passed').map((c) => c.id)).toEqual(['AUTH-01', 'MER-01']);
  });
  const forks = readFileSync(log, 'utf8').trim().split('\n');
  expect(forks).toHaveLength(1);
  expect(forks[0]).toMatch(/vitest\/dist\/workers\/forks\.js$/);
}, 60_000);

test('an early process Vitest would not have started (other flags) is stopped, and Vitest starts its own', async () => {
  const early = forkEarlyWorker();
  const exited = once(early, 'exit');
  expect(adoptEarlyWorker('/nowhere/forks.js', ['--other-flag'], process.env)).toBeUndefined();
  await exited;
  expect(early.exitCode !== null || early.signalCode !== null).toBe(true);
  // Nothing is left to adopt afterwards.
  expect(adoptEarlyWorker('/nowhere/forks.js', [], process.env)).toBeUndefined();
});
