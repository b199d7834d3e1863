import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';

/**
 * Issue 14 item 1: a run against a slow server says where it is. In CI (no terminal) a plain line at most every
 * 10 s with checks done, requests done of planned, the rate and the time left; and, once the run is expected to
 * take more than two minutes, one line on how to get a faster verdict. The server here answers every request 80 ms
 * late and the run sends one at a time, so its 1,600 or so detail requests alone take over two minutes: the test
 * reads the first progress line and the hint, then interrupts the run (SIGINT: the report of what finished, exit 3).
 */
describe('progress against a slow server', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startReferenceServer({
      https: true,
      size: { dishes: 1500, seats: 100, orders: 20, dishesPerOrder: 2 },
      variants: [{ name: 'slow', description: 'answers every request 80 ms late', delayMs: () => 80 }],
    });
  });
  afterAll(() => srv.close());

  test('prints requests done of planned, the rate and an estimate, and the hint once the estimate passes two minutes', async () => {
    let stdout = '';
    let pid: number | undefined;
    let interrupted = false;
    const progressLine =
      /^progress: checks \d+\/\d+ done · requests (\d+)\/(\d+) · ([\d.]+) req\/s · about (.+) left · (.+) elapsed$/m;
    const run = await runCli(targetArgs(srv, ['--concurrency', '1', '--max-details', 'all']), {
      env: targetEnv,
      timeoutMs: 120_000,
      onSpawn: (p) => {
        pid = p;
      },
      onStdout: (chunk) => {
        stdout += chunk;
        if (!interrupted && progressLine.test(stdout) && /^This run is expected to take about/m.test(stdout)) {
          interrupted = true;
          process.kill(pid!, 'SIGINT');
        }
      },
    });
    expect(interrupted, run.stdout + run.stderr).toBe(true);
    const [, done, planned] = progressLine.exec(run.stdout)!;
    // Planned: at least every detail of the 1,500 dishes and 100 seats, and more than were done by then.
    expect(Number(planned)).toBeGreaterThan(1600);
    expect(Number(done)).toBeLessThan(Number(planned));
    const hint = run.stdout.split('\n').find((l) => l.startsWith('This run is expected to take about'))!;
    expect(hint).toContain('--max-details N');
    expect(hint).toContain('--concurrency N');
    // Said once only.
    expect(run.stdout.split('\n').filter((l) => l.startsWith('This run ')).length).toBe(1);
    // Stopped by the signal: the report of what finished, incomplete.
    expect(run.code).toBe(3);
    expect(run.report?.verdict).toBe('incomplete');
  }, 150_000);
});
