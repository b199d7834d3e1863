import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { runCli, type CliRun } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';
import { CREDENTIALS } from '../reference/fixtures.js';

/**
 * --max-details N (issue 6, big merchants): each detail check asks for a seeded sample of N ids per resource, says
 * so (on the terminal and as a note with the seed on each check that used it), and the same seed gives the same
 * sample, so a finding replays.
 */
describe('--max-details', () => {
  let srv: RunningServer;
  const seen: Array<{ method: string; url: string; token: string }> = [];
  beforeAll(async () => {
    // A merchant bigger than the sample: 60 dishes and 20 seats.
    srv = await startReferenceServer({
      https: true,
      size: { dishes: 60, seats: 20, orders: 12, dishesPerOrder: 2 },
      variants: [
        {
          name: 'count',
          description: 'records each request',
          raw: (req) => {
            seen.push({ method: req.method ?? '', url: req.url ?? '', token: tokenOfRequest(req.headers) ?? '' });
            return false;
          },
        },
      ],
    });
  });
  afterAll(() => srv.close());

  const detailUrls = (run: CliRun, id: string): string[] => {
    const check = run.report?.checks.find((c) => c.id === id);
    return [
      ...new Set((check?.evidence ?? []).map((e) => e.request.url).filter((u) => /\/(dishes|seats)\/\d+$/.test(u))),
    ].sort();
  };

  test('checks a seeded sample of N details per resource, reported as sampled with the seed, the same for the same seed', async () => {
    seen.length = 0;
    const first = await runCli(targetArgs(srv, ['--max-details', '5']), { env: targetEnv });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain(
      'Details: a seeded sample of at most 5 records per resource (max_details; seed 12345)',
    );

    const dish = first.report!.checks.find((c) => c.id === 'DISH-02')!;
    const seat = first.report!.checks.find((c) => c.id === 'SEAT-02')!;
    expect(dish.status).toBe('passed');
    expect(dish.notes).toContain('checked a seeded sample of 5 of 60 dishes (seed 12345)');
    expect(seat.notes).toContain('checked a seeded sample of 5 of 20 seats (seed 12345)');
    // app's 5 of each, and merchant B's 2 dishes and 1 seat (#35: other_app's details are judged too; under the cap).
    expect(detailUrls(first, 'DISH-02')).toHaveLength(5 + 2);
    expect(detailUrls(first, 'SEAT-02')).toHaveLength(5 + 1);
    // Far fewer dish details reached the server than the 60 an unsampled run asks for (fuzzing adds its own few).
    const dishDetails = new Set(seen.map((r) => r.url).filter((u) => /\/open\/dishes\/1\d{5}$/.test(u)));
    expect(dishDetails.size).toBeLessThan(30);

    const again = await runCli(targetArgs(srv, ['--max-details', '5']), { env: targetEnv });
    expect(detailUrls(again, 'DISH-02')).toEqual(detailUrls(first, 'DISH-02'));
    expect(detailUrls(again, 'SEAT-02')).toEqual(detailUrls(first, 'SEAT-02'));
  });

  test('each detail is requested once per token, however many checks read it (and not kept after the last)', async () => {
    seen.length = 0;
    const run = await runCli(targetArgs(srv, ['--fuzz-runs', '0']), { env: targetEnv });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const times = new Map<string, number>();
    // With a token /auth issued in this run (the refusal checks send made-up and altered ones).
    const issued = (t: string): boolean =>
      t.startsWith('tok_') && !t.endsWith('~') && t !== CREDENTIALS.disabled_app.token;
    for (const r of seen) {
      if (r.method !== 'GET' || !issued(r.token) || !/\/open\/(dishes|seats)\/\d+$/.test(r.url)) continue;
      times.set(`${r.token} ${r.url}`, (times.get(`${r.token} ${r.url}`) ?? 0) + 1);
    }
    // 60 dishes and 20 seats of one merchant, 2 + 1 of the other, each with its own token and the other's (ISO).
    expect(times.size).toBeGreaterThanOrEqual(2 * (60 + 20));
    // Only the read-only probes ask again, each application's one dish and one seat (#35: other_app's too): the shared
    // GET (and the detail sweep's, let go once read), RO-02's second, and one after each round of unsafe methods
    // (without a token, then with the applications' tokens).
    const repeated = [...times].filter(([, n]) => n > 1);
    expect(repeated.length, JSON.stringify(repeated)).toBeLessThanOrEqual(4);
    for (const [, n] of repeated) expect(n).toBeLessThanOrEqual(5);
  });

  test('without it every listed id is checked and nothing says "sample"', async () => {
    const run = await runCli(targetArgs(srv, ['--only', 'DISH-02']), { env: targetEnv });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('seeded sample');
    const dish = run.report!.checks.find((c) => c.id === 'DISH-02')!;
    expect(dish.notes.join(' ')).not.toContain('sample');
    // The evidence keeps the first 50 exchanges and says how many it left out.
    expect(dish.notes.join(' ')).toMatch(/evidence: 50 of 6\d exchanges kept/);
  });
});
