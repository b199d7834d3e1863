import { tempDir } from './helpers/temp-dirs.js';
import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import { describe, expect, test } from 'vitest';
import { createServer, type IncomingMessage } from 'node:http';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runCli, type CliRun } from './helpers/cli.js';
import { peakRss } from './helpers/peak-rss.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import type { Variant } from '../reference/server.js';
import * as H from '../reference/hostile.js';
import { ALL_CHECKS } from '../suites/index.js';
import { validate } from '../core/spec/schemas.js';
import { HttpClient } from '../core/transport/http.js';
import { NetworkError } from '../core/transport/exchange.js';
import { Redactor } from '../core/redact/redact.js';
import { startReferenceServer } from '../reference/server.js';

/**
 * The suite against servers that misbehave at the transport level. Each case: the checks the misbehaviour touches
 * fail saying what happened (a wrong answer), or are incomplete saying why (no usable answer: a timeout, a broken
 * connection, a body past the cap — the spec sets no limit, so that is never the server's failure); every other
 * check still runs, the report is written, exit 1 (a failure) or 3 (only incomplete), nothing that looks like a
 * stack trace reaches the terminal, and the run ends within a small factor of timeout_ms.
 */

const TIMEOUT_MS = 1500;
/**
 * The run's own duration (report.duration_ms) may take this many timeouts: generous, since the machine running the
 * tests may be busy; what proves the per-request deadline is that no single exchange outlasts ~2 timeouts.
 */
const MAX_TIMEOUTS = 10;
const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

interface Expect {
  /** Checks that must fail, each with a message saying what happened. */
  failed?: Record<string, RegExp>;
  /** Checks that could not finish (no usable response), each with a message saying why. */
  incomplete?: Record<string, RegExp>;
  /** Checks that could not judge what they read, since another check owns the fault: skipped, saying so. */
  skipped?: Record<string, RegExp>;
  /** Checks the misbehaviour does not touch: they must pass. */
  passed: string[];
}

function expectSurvived(run: CliRun, wallMs: number, e: Expect, timeoutMs = TIMEOUT_MS): void {
  const r = run.report;
  expect(r, `report.json written (stderr: ${run.stderr})`).toBeDefined();
  const byId = new Map(r!.checks.map((c) => [c.id, c]));
  for (const [outcome, expected] of [
    ['failed', e.failed],
    ['incomplete', e.incomplete],
    ['skipped', e.skipped],
  ] as const) {
    for (const [id, message] of Object.entries(expected ?? {})) {
      expect(byId.get(id)?.outcome, `${id}: ${byId.get(id)?.message}`).toBe(outcome);
      expect(byId.get(id)!.message).toMatch(message);
    }
  }
  for (const id of e.passed) expect(byId.get(id)?.status, `${id}: ${byId.get(id)?.message}`).toBe('passed');
  // Every other check still ran to an ordinary result: nothing errored, nothing is missing.
  expect(r!.checks.filter((c) => c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  expect(r!.errors).toEqual([]);
  expect(validate('report', r)).toEqual([]);
  expect(r!.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
  // A wrong answer is NOT CONFORMANT (exit 1); no usable answer alone cannot be judged: INCOMPLETE (exit 3).
  const code = Object.keys(e.failed ?? {}).length ? 1 : 3;
  expect(run.code).toBe(code);
  expect(r!.exit_code).toBe(code);
  expect(run.stderr).toBe('');
  expect(run.stdout).not.toMatch(STACK);
  expect(run.stdout).toMatch(code === 1 ? /NOT CONFORMANT/ : /^INCOMPLETE: /m);
  expect(r!.duration_ms).toBeLessThan(MAX_TIMEOUTS * timeoutMs);
  expect(wallMs).toBeLessThan(MAX_TIMEOUTS * timeoutMs + 15_000);
  const slowest = Math.max(...r!.checks.flatMap((c) => c.evidence.map((x) => x.duration_ms)));
  expect(slowest, 'the slowest single exchange').toBeLessThan(2 * timeoutMs + 1000);
}

async function runAgainst(
  variants: Variant[],
  opts: { timeoutMs?: number; https?: boolean; onSpawn?: (pid: number) => void } = {},
): Promise<{ run: CliRun; wallMs: number }> {
  return withServer(
    variants,
    async (srv) => {
      const t0 = performance.now();
      const run = await runCli(targetArgs(srv, ['--timeout-ms', String(opts.timeoutMs ?? TIMEOUT_MS)]), {
        env: targetEnv,
        ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}),
      });
      return { run, wallMs: performance.now() - t0 };
    },
    { https: opts.https ?? true },
  );
}

// One hostile run at a time: each is a full CLI run, and timing is part of what is asserted.
describe.sequential('the suite survives a hostile server', () => {
  test('a detail endpoint that never answers: the detail checks time out, the rest run', async () => {
    const { run, wallMs } = await runAgainst([H.hangDetail]);
    expectSurvived(run, wallMs, {
      // Its own detail timed out, or was not sent because three others to the same endpoint had (the breaker):
      // which comes first depends on the order the run's details reach the gate.
      incomplete: {
        'DISH-02': new RegExp(
          `GET \\S+/dishes/\\d+: (?:not sent: the last \\d+ requests to GET /dishes/\\* got )?no complete response within ${TIMEOUT_MS} ms`,
        ),
      },
      passed: ['AUTH-01', 'DISH-01', 'SEAT-01', 'SEAT-02', 'MER-01'],
    });
  });

  test('a body sent one byte per second ends at the per-request deadline, not at the last byte', async () => {
    const { run, wallMs } = await runAgainst([H.slowBody]);
    // The 42-byte body would take 42 s: only a total deadline (not an idle timeout) stops it within a few timeouts.
    expectSurvived(run, wallMs, {
      incomplete: { 'SEAT-01': new RegExp(`GET \\S+/seats: no complete response within ${TIMEOUT_MS} ms`) },
      passed: ['AUTH-01', 'DISH-01', 'DISH-02', 'MER-01'],
    });
    const seat = run.report!.checks.find((c) => c.id === 'SEAT-01')!;
    const ex = seat.evidence.find((x) => x.request.url.endsWith('/seats'))!;
    expect(ex.duration_ms).toBeLessThan(3 * TIMEOUT_MS);
  });

  test.runIf(process.platform === 'linux')(
    'a 600 MB body is cut at the size cap, streamed, with peak memory under 300 MB',
    async () => {
      // Plain HTTP and a longer timeout, so the default 100 MB cap (not the clock) is what stops each flood.
      let meter: { stop(): number } | undefined;
      const { run, wallMs } = await runAgainst([H.hugeBody], {
        https: false,
        timeoutMs: 10_000,
        onSpawn: (pid) => {
          meter = peakRss(pid);
        },
      });
      const peakMb = meter!.stop() / 1024;
      expectSurvived(
        run,
        wallMs,
        {
          incomplete: { 'ORD-01': /GET \S+\/orders: response body exceeds the 104857600-byte cap \(max_body_bytes\)/ },
          passed: ['AUTH-01', 'DISH-01', 'DISH-02', 'SEAT-01', 'MER-01'],
        },
        10_000,
      );
      expect(peakMb, `peak RSS of the CLI: ${peakMb.toFixed(0)} MB`).toBeGreaterThan(0);
      expect(peakMb, `peak RSS of the CLI: ${peakMb.toFixed(0)} MB`).toBeLessThan(300);
    },
  );

  test('a declared 600 MB Content-Length is refused before reading', async () => {
    const { run, wallMs } = await runAgainst([H.hugeDeclared]);
    expectSurvived(run, wallMs, {
      incomplete: { 'ORD-01': /response body of 629145600 bytes \(Content-Length\) exceeds the 104857600-byte cap/ },
      passed: ['AUTH-01', 'DISH-01', 'SEAT-01'],
    });
  });

  // Not JSON is the envelope's fault (ENV-01); the check that reads the data says it could not judge it.
  test('truncated JSON fails the envelope check; the check that reads it is blocked, saying why', async () => {
    const { run, wallMs } = await runAgainst([H.truncatedJson]);
    expectSurvived(run, wallMs, {
      failed: { 'ENV-01': /GET \/merchant: HTTP 200 with a body that is not JSON/ },
      skipped: { 'MER-01': /GET \/merchant answered no envelope with data \(HTTP 200 with a body that is not JSON/ },
      passed: ['AUTH-01', 'DISH-01', 'SEAT-02'],
    });
  });

  test('a body that is not JSON at all fails the envelope check; the check that reads it is blocked', async () => {
    const { run, wallMs } = await runAgainst([H.invalidJson]);
    expectSurvived(run, wallMs, {
      failed: { 'ENV-01': /GET \/seats: HTTP 200 with a body that is not JSON \("<html>/ },
      skipped: { 'SEAT-01': /GET \/seats answered no envelope with data/ },
      passed: ['AUTH-01', 'DISH-01', 'MER-01'],
    });
  });

  test('a body cut short of its Content-Length', async () => {
    const { run, wallMs } = await runAgainst([H.cutBody]);
    expectSurvived(run, wallMs, {
      incomplete: { 'DISH-01': /GET \S+\/dishes: the server closed the connection/ },
      passed: ['AUTH-01', 'SEAT-01', 'MER-01'],
    });
  });

  test('a connection reset', async () => {
    const { run, wallMs } = await runAgainst([H.resetDetail]);
    expectSurvived(run, wallMs, {
      incomplete: {
        'SEAT-02': /GET \S+\/seats\/\d+: (connection reset by the server|the server closed the connection)/,
      },
      passed: ['AUTH-01', 'DISH-02', 'SEAT-01'],
    });
  });

  test('a redirect to another origin is not followed: the other host sees no request and no token', async () => {
    const seen: IncomingMessage[] = [];
    const other = createServer((req, res) => {
      seen.push(req);
      res.end('{}');
    });
    await new Promise<void>((resolve, reject) => {
      other.once('error', reject);
      other.listen(0, '127.0.0.2', resolve);
    });
    try {
      const origin = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
      const { run, wallMs } = await runAgainst([H.redirectAway(origin)]);
      const to = (path: string): RegExp =>
        new RegExp(`HTTP 302 \\(a redirect to ${origin.replace(/\./g, '\\.')}/open${path}, not followed\\)`);
      expectSurvived(run, wallMs, {
        failed: { 'ENV-01': to('/merchant') },
        skipped: { 'MER-01': to('/merchant'), 'DISH-01': to('/dishes') },
        passed: ['AUTH-01', 'AUTH-02'],
      });
      expect(seen.map((r) => `${r.method} ${r.url} token=${String(tokenOfRequest(r.headers))}`)).toEqual([]);
      const notes = run.report!.checks.find((c) => c.id === 'MER-01')!.notes;
      expect(notes.join('\n')).toMatch(
        new RegExp(`HTTP 302 redirect to ${origin.replace(/\./g, '\\.')}/open/merchant: not followed`),
      );
    } finally {
      await new Promise<void>((resolve) => {
        other.closeAllConnections();
        other.close(() => resolve());
      });
    }
  });
});

describe.concurrent('a target that cannot be reached at all: one line, exit 3, a report of nothing judged', () => {
  test('a host name that does not resolve', async () => {
    const run = await runCli(['--base-url', 'https://nonexistent.invalid/open', '--timeout-ms', String(TIMEOUT_MS)], {
      env: { CONFORMANCE_SECRET: 'pk_unused', CONFORMANCE_KEY: 'sk_unused' },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /^conformance: cannot reach https:\/\/nonexistent\.invalid\/open: host name does not resolve( \(temporary DNS failure\))?\n$/,
    );
    expect(run.stdout).toBe('');
    expect(run.report?.verdict).toBe('nothing judged');
  });

  test('a server that accepts connections and never answers (even /auth)', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const t0 = performance.now();
      const run = await runCli(
        [
          '--base-url',
          `http://127.0.0.1:${(silent.address() as AddressInfo).port}/open`,
          '--timeout-ms',
          String(TIMEOUT_MS),
        ],
        { env: { CONFORMANCE_SECRET: 'pk_unused', CONFORMANCE_KEY: 'sk_unused' } },
      );
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(
        new RegExp(
          `^conformance: cannot reach \\S+: no complete response within ${TIMEOUT_MS} ms \\(timeout_ms\\)\\n$`,
        ),
      );
      expect(performance.now() - t0).toBeLessThan(TIMEOUT_MS + 10_000);
    } finally {
      await new Promise<void>((resolve) => {
        silent.closeAllConnections();
        silent.close(() => resolve());
      });
    }
  });
});

describe.concurrent('bad input from the user: one line naming the problem, exit 2', () => {
  const dir = tempDir('conformance-badinput-');
  writeFileSync(join(dir, 'not-yaml.yaml'), 'base_url: "https://x.test/open\napp: [secret: a\n  key: b\n');
  writeFileSync(join(dir, 'list.yaml'), '- base_url\n- app\n');
  writeFileSync(join(dir, 'not-a-cert.pem'), 'hello, I am not a certificate\n');
  const creds = ['--base-url', 'https://x.test/open', '--secret', 'a', '--key', 'b'];

  test.each([
    [
      'a config file that is not YAML',
      ['--config', join(dir, 'not-yaml.yaml')],
      /^conformance: config file \S+not-yaml\.yaml is not valid YAML: /,
    ],
    [
      'a config file that is a list',
      ['--config', join(dir, 'list.yaml')],
      /^conformance: config file \S+list\.yaml must hold a YAML mapping of keys$/,
    ],
    [
      'a config file that does not exist',
      ['--config', join(dir, 'missing.yaml')],
      /^conformance: cannot read config file \S+missing\.yaml: no such file$/,
    ],
    [
      'a concurrency that is not a number',
      [...creds, '--concurrency', 'four'],
      /^conformance: --concurrency four: must be an integer from 1 to 256$/,
    ],
    [
      'a concurrency of 0',
      [...creds, '--concurrency', '0'],
      /^conformance: --concurrency 0: must be an integer from 1 to 256$/,
    ],
    [
      'a rate limit that is not a number',
      [...creds, '--rate-limit', 'fast'],
      /^conformance: --rate-limit fast: must be a number above 0$/,
    ],
    [
      'a timeout that is not a number',
      [...creds, '--timeout-ms', '10s'],
      /^conformance: --timeout-ms 10s: must be an integer of at least 1$/,
    ],
    [
      'a base URL that is not http(s)',
      ['--base-url', 'ftp://x.test/open', '--secret', 'a', '--key', 'b'],
      /^conformance: --base-url: base_url must start with https:\/\//,
    ],
    [
      'a base URL without a scheme',
      ['--base-url', 'x.test/open', '--secret', 'a', '--key', 'b'],
      /^conformance: --base-url: base_url "x\.test\/open" has no scheme: give the whole address, e\.g\. https:\/\/x\.test\/open$/,
    ],
    [
      'a base URL with a query string',
      ['--base-url', 'https://x.test/open?v=2', '--secret', 'a', '--key', 'b'],
      /^conformance: --base-url: base_url must not carry a query string or fragment \(\?v=2\): give the base address only, e\.g\. https:\/\/x\.test\/open$/,
    ],
    [
      'a base URL with user:password',
      ['--base-url', 'https://bob:hunter2@x.test/open', '--secret', 'a', '--key', 'b'],
      /^conformance: --base-url: base_url must not carry user:password \(it would be printed and written into every report\)/,
    ],
    [
      'a report format that does not exist',
      [...creds, '--reporter', 'json,xml'],
      /^conformance: --reporter json,xml: each item must be json, junit or html$/,
    ],
    [
      'a misspelt flag',
      [...creds, '--timout-ms', '5'],
      /^conformance: unknown option --timout-ms \(did you mean --timeout-ms\?\) \(see --help\)$/,
    ],
    [
      'a misspelt command',
      ['basline'],
      /^conformance: unexpected argument "basline" \(did you mean baseline\?\) \(see --help\)$/,
    ],
    [
      'a CA file that does not exist',
      [...creds, '--ca-file', join(dir, 'missing.pem')],
      /^conformance: cannot read tls\.ca_file \S+missing\.pem: no such file$/,
    ],
    [
      'a CA file that holds no certificate',
      [...creds, '--ca-file', join(dir, 'not-a-cert.pem')],
      /^conformance: tls\.ca_file \S+not-a-cert\.pem holds no PEM certificate/,
    ],
  ])('%s', async (_what, args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr.trim()).toMatch(message);
    expect(run.stdout).toBe('');
    expect(existsSync(join(run.dir, 'conformance-report'))).toBe(false);
  });
});

describe.concurrent('the HTTP client against a hostile server', () => {
  const client = (
    baseUrl: string,
    o: { timeoutMs?: number; deadlineMs?: number; concurrency?: number; maxBodyBytes?: number; caFile?: string } = {},
  ): HttpClient =>
    new HttpClient({
      baseUrl,
      timeoutMs: o.timeoutMs ?? 500,
      deadlineMs: o.deadlineMs ?? 60_000,
      concurrency: o.concurrency ?? 4,
      maxBodyBytes: o.maxBodyBytes ?? 1 << 20,
      tls: { insecure: false, ...(o.caFile ? { ca_file: o.caFile } : {}) },
      redactor: new Redactor(),
    });

  // Alone: the client forgives time its own event loop was busy (core/transport/timeouts.ts), and the big bodies parsed
  // by the test beside it would make this one's timeouts, whose duration is asserted, forgiven.
  test.sequential(
    'an endpoint that stopped answering is not sent more requests after 3 timeouts in a row',
    async () => {
      const srv = await startReferenceServer({ variants: [H.hangDetail] });
      const c = client(srv.baseUrl, { concurrency: 1 });
      try {
        const t0 = performance.now();
        const results = await Promise.all(
          [101, 102, 103, 104, 105, 106, 107, 108].map((id) =>
            c.send({ path: `/dishes/${id}` }).then(
              () => 'answered',
              (e: NetworkError) => e.message,
            ),
          ),
        );
        expect(results.slice(0, 3).every((m) => /no complete response within 500 ms/.test(m))).toBe(true);
        expect(
          results
            .slice(3)
            .every((m) =>
              /not sent: the last 3 requests to GET \/dishes\/\* got no complete response within 500 ms/.test(m),
            ),
        ).toBe(true);
        // The messages above prove the last five were never sent; the time only has to show they did not wait for a
        // timeout each (eight would take at least 8 × 500 ms), with room for a busy machine's event loop.
        expect(performance.now() - t0).toBeLessThan(8 * 500);
        // Other endpoints are unaffected.
        expect((await c.send({ path: '/dishes' })).status).toBe(401);
      } finally {
        await c.close();
        await srv.close();
      }
    },
  );

  test('big bodies past the in-memory budget go to disk one at a time and arrive whole and parsed', async () => {
    // Three 12 MB lists at once over TLS: together past the 8 MiB budget, so they spill, pause their sockets while
    // the lane is taken and resume (on resuming, undici hands an empty chunk, which must not pause them again).
    const records = Array.from({ length: 150_000 }, (_, i) => ({
      id: i + 1,
      name: `菜 ${i} "quoted, [bracketed]" \\ dish`,
      price: i / 4,
    }));
    const body = Buffer.from(JSON.stringify({ status: 'SUCCESS', code: 200, message: 'ok', data: records }));
    const big: Variant = {
      name: 'big-list',
      description: '/dishes answers a 12 MB list',
      raw(req, res) {
        if (!req.url?.endsWith('/dishes')) return false;
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(body);
        return true;
      },
    };
    const srv = await startReferenceServer({ variants: [big], https: true });
    const c = client(srv.baseUrl, { timeoutMs: 20_000, maxBodyBytes: 64 << 20, caFile: srv.caFile });
    try {
      const replies = await Promise.all([1, 2, 3].map(() => c.send({ path: '/dishes' })));
      for (const r of replies) {
        expect(r.bytes).toBe(body.length);
        expect((r.json as { data: unknown[] }).data).toHaveLength(records.length);
        expect((r.json as { data: unknown[] }).data.at(-1)).toEqual(records.at(-1));
      }
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test('the deadline of the whole run ends a request with a message that names it', async () => {
    const srv = await startReferenceServer({ variants: [H.hangDetail] });
    const c = client(srv.baseUrl, { timeoutMs: 10_000, deadlineMs: 400 });
    try {
      const e = await c.send({ path: '/dishes/101' }).catch((x: NetworkError) => x);
      expect(e).toBeInstanceOf(NetworkError);
      expect((e as NetworkError).message).toMatch(
        /the deadline of the whole run \(deadline_ms\) passed before the response completed/,
      );
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test('a redirect of /auth is not followed: the key pair never reaches the other origin', async () => {
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    const origin = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    const away: Variant = {
      name: 'auth-away',
      description: '/auth redirects away',
      raw(req, res) {
        res.writeHead(307, { location: `${origin}${req.url ?? ''}` });
        res.end();
        return true;
      },
    };
    const srv = await startReferenceServer({ variants: [away] });
    const c = client(srv.baseUrl);
    try {
      const r = await c.send({ path: '/auth', query: { secret: 'pk_live_x', key: 'sk_live_y' } });
      expect(r.status).toBe(307);
      expect(r.headers.location).toContain(origin);
      expect(seen).toEqual([]);
    } finally {
      await c.close();
      await srv.close();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });
});
