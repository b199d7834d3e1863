import { describe, expect, test } from 'vitest';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { loadMeter, peakRate, rateLimited, unavailable } from '../reference/hostile.js';
import { startReferenceServer } from '../reference/server.js';
import { HttpClient } from '../core/transport/http.js';
import { retryAfterMs } from '../core/transport/pacing.js';
import { Redactor } from '../core/redact/redact.js';
import { validate } from '../core/spec/schemas.js';

/**
 * The load the suite puts on a server, measured by the server: most requests in flight at once and the most
 * requests started in any one second, over a whole run (every suite, fuzzing included). And politeness: a 429 is
 * retried after its Retry-After, a 503 is not retried.
 */

describe.sequential('concurrency and rate_limit are honoured by the whole run', () => {
  test('--concurrency 2 --rate-limit 50: never more than 2 in flight, never more than 50 started in a second', async () => {
    const meter = loadMeter(15);
    await withServer([meter], async (srv) => {
      // Three checks (about 170 requests, 3.5 s at 50/s) rather than the whole run (17 s): enough seconds of pacing
      // to see any window over 50, with a fuzz check among them.
      const only = ['--only', 'FUZZ-01', '--only', 'ERR-04', '--only', 'DISH-*'];
      const run = await runCli(targetArgs(srv, ['--concurrency', '2', '--rate-limit', '50', ...only]), {
        env: targetEnv,
      });
      expect(run.code, run.stdout.slice(-2000)).toBe(0);
      expect(run.stderr).toBe('');
      const { maxInFlight, arrivals } = meter.stats;
      expect(arrivals.length).toBeGreaterThan(100);
      expect(run.report!.checks.some((c) => c.area === 'fuzz' && c.status === 'passed')).toBe(true);
      expect(maxInFlight).toBeLessThanOrEqual(2);
      expect(maxInFlight, 'the limit was actually reached (the test exercises it)').toBe(2);
      // One extra start may share a window edge with the preflight request of the CLI.
      expect(peakRate(arrivals)).toBeLessThanOrEqual(51);
      // And the run was really paced: N requests at 50/s take at least (N-1)/50 s.
      const span = Math.max(...arrivals) - Math.min(...arrivals);
      expect(span).toBeGreaterThanOrEqual(((arrivals.length - 2) / 50) * 1000 * 0.95);
    });
  });

  test('by default (concurrency 4, no rate limit): never more than 4 in flight', async () => {
    const meter = loadMeter(15);
    await withServer([meter], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(meter.stats.maxInFlight).toBeLessThanOrEqual(4);
      expect(meter.stats.maxInFlight).toBe(4);
    });
  });

  test('--concurrency 16: never more than 16 in flight, and no runtime warning on the terminal', async () => {
    const meter = loadMeter(15);
    await withServer([meter], async (srv) => {
      const run = await runCli(targetArgs(srv, ['--concurrency', '16']), { env: targetEnv });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(meter.stats.maxInFlight).toBeLessThanOrEqual(16);
      expect(meter.stats.maxInFlight).toBeGreaterThan(10);
    });
  });
});

describe('politeness', () => {
  test('a 429 with Retry-After: 1 is retried after a second, the run passes, and the retry is reported as INFO', async () => {
    const limiter = rateLimited(1, '1');
    await withServer([limiter], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.code, run.stdout.slice(-2000)).toBe(0);
      expect(limiter.hits()).toBeGreaterThanOrEqual(2);
      const notes = run.report!.checks.flatMap((c) => c.notes.map((n) => `${c.id}: ${n}`));
      const retried = notes.filter((n) =>
        /rate limited: GET \S+\/seats(\?\S+)? got 429 Too Many Requests 1 time; retried 1 time after Retry-After \(waited 1\.0 s\); final answer HTTP (200|401)/.test(
          n,
        ),
      );
      expect(retried.length, notes.join('\n')).toBeGreaterThan(0);
      const ex = run.report!.checks.flatMap((c) => c.evidence).find((e) => e.retries?.length);
      expect(ex?.retries).toEqual([{ status: 429, retry_after: '1', waited_ms: 1000 }]);
      expect([200, 401]).toContain(ex?.response?.status);
      expect(validate('report', run.report)).toEqual([]);
    });
  });

  test('a 429 that stays a 429 once the retries are spent is no finding (§8 leaves rate limits to the server): the checks that needed the answer did not finish, and none fails', async () => {
    const limiter = rateLimited(Number.POSITIVE_INFINITY, '0');
    await withServer(
      [limiter],
      async (srv) => {
        const run = await runCli(targetArgs(srv, ['--only', 'SEAT-*', '--only', 'AUTH-05']), { env: targetEnv });
        const r = run.report!;
        expect(r.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual([]);
        expect([run.code, r.verdict]).toEqual([3, 'incomplete']);
        const seat = r.checks.find((c) => c.id === 'SEAT-01')!;
        expect(seat.status).toBe('incomplete');
        expect(seat.message).toMatch(
          /^could not finish: GET \S+\/seats: HTTP 429 Too Many Requests after retrying 3 times: rate limited, no answer to judge/,
        );
        // The client still tried as it should: the first request and its three retries.
        expect(seat.evidence.find((e) => /\/seats$/.test(e.request.url))?.retries).toHaveLength(3);
      },
      { https: false },
    );
  });

  const client = (baseUrl: string, retry?: { max: number; capMs: number }): HttpClient =>
    new HttpClient({
      baseUrl,
      timeoutMs: 5000,
      deadlineMs: 60_000,
      concurrency: 4,
      maxBodyBytes: 1 << 20,
      tls: { insecure: true },
      redactor: new Redactor(),
      ...(retry ? { retry } : {}),
    });

  test('a 503 is answered as it came: sent once, not retried', async () => {
    const down = unavailable();
    const srv = await startReferenceServer({ variants: [down] });
    const c = client(srv.baseUrl);
    try {
      const r = await c.send({ path: '/seats' });
      expect(r.status).toBe(503);
      expect(down.hits()).toBe(1);
      expect(r.exchange.retries).toBeUndefined();
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test('429s are retried at most 3 times, each wait capped, and an HTTP-date Retry-After is understood', async () => {
    // Retry-After an hour from now, as an HTTP-date; the cap (shortened for the test) bounds each wait.
    const limiter = rateLimited(10, new Date(Date.now() + 3_600_000).toUTCString());
    const srv = await startReferenceServer({ variants: [limiter] });
    const c = client(srv.baseUrl, { max: 3, capMs: 200 });
    try {
      const t0 = performance.now();
      const r = await c.send({ path: '/seats' });
      expect(r.status).toBe(429);
      expect(limiter.hits()).toBe(4);
      expect(r.exchange.retries?.map((x) => x.waited_ms)).toEqual([200, 200, 200]);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(590);
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test('Retry-After as delta-seconds or HTTP-date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
