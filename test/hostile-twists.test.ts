import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { peakRssTree as peakRss } from './helpers/peak-rss.js';
import { runCli, type CliRun } from './helpers/cli.js';
import { CONFIGURED_SECRETS, targetArgs, targetEnv, withServer } from './helpers/target.js';
import { xmllint } from './helpers/xmllint.js';
import type { RunningServer, Variant } from '../reference/server.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import * as T from '../reference/hostile-twists.js';
import { validate } from '../core/spec/schemas.js';
import { HttpClient } from '../core/transport/http.js';
import { NetworkError } from '../core/transport/exchange.js';
import { Redactor } from '../core/redact/redact.js';
import { carryToken, TOKEN_HEADER } from '../core/spec/auth-scheme.js';
import { startReferenceServer } from '../reference/server.js';

/**
 * Issue 12: servers that are conforming but for one twist aimed at the tool itself (reference/hostile-twists.ts).
 * Each runs the real CLI as CI would (GITHUB_ACTIONS=true, a job summary file) and every byte it writes is judged:
 * stdout, stderr, the summary and every report file. Runs go several at a time with a small timeout.
 */

/** Small, yet roomy enough that a busy two-core machine running three CLI runs at once does not time out. */
const TIMEOUT_MS = 4000;
const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;
/** Characters no line of ours may carry raw: C0 (but \n) and C1 controls, bidi controls, zero-width characters. */
const RAW_CONTROL =
  /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u;

interface Outcome {
  run: CliRun;
  srv: RunningServer;
  timeoutMs: number;
  wallMs: number;
  peakMb: number;
  summary: string;
  files: Record<string, string>;
}

/** At most this many CLI runs at once: the machine running the tests has two cores. */
let running = 0;
const waiting: Array<() => void> = [];
async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= 3) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function run(variants: Variant[], timeoutMs = TIMEOUT_MS, https = true): Promise<Outcome> {
  return slot(() =>
    withServer(
      variants,
      async (srv) => {
        const dir = tempDir('conformance-twist-');
        const summaryFile = join(dir, 'step-summary.md');
        writeFileSync(summaryFile, '');
        let meter: { stop(): number } | undefined;
        const t0 = performance.now();
        const r = await runCli(targetArgs(srv, ['--timeout-ms', String(timeoutMs)]), {
          cwd: dir,
          timeoutMs: 12 * timeoutMs + 60_000,
          env: { ...targetEnv, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile },
          onSpawn: (pid) => {
            meter = peakRss(pid);
          },
        });
        const wallMs = performance.now() - t0;
        const peakMb = meter?.stop() ?? 0;
        const reportDir = join(dir, 'conformance-report');
        const files: Record<string, string> = {};
        for (const f of existsSync(reportDir) ? readdirSync(reportDir) : [])
          files[f] = readFileSync(join(reportDir, f), 'utf8');
        return { run: r, srv, timeoutMs, wallMs, peakMb, summary: readFileSync(summaryFile, 'utf8'), files };
      },
      { https },
    ),
  );
}

/** What every hostile run must show, whatever the twist. */
function judge(o: Outcome, codes: number[]): void {
  const { run: r } = o;
  expect(r.report, `report.json written (stderr: ${r.stderr.slice(0, 500)})`).toBeDefined();
  expect(validate('report', r.report)).toEqual([]);
  expect(
    codes,
    `exit ${r.code}: ${r.report?.checks
      .filter((c) => c.status !== 'passed' && c.status !== 'skipped')
      .map((c) => `${c.id} ${c.message.slice(0, 200)}`)
      .join('\n')}`,
  ).toContain(r.code);
  expect(r.report!.exit_code).toBe(r.code);
  expect(r.stderr).toBe('');
  expect(r.stdout).not.toMatch(STACK);
  expect(o.wallMs, 'ends within 12 × timeout + 60 s').toBeLessThan(12 * o.timeoutMs + 60_000);
  expect(o.peakMb, `peak RSS ${o.peakMb.toFixed(0)} MB`).toBeGreaterThan(0);
  expect(o.peakMb, `peak RSS ${o.peakMb.toFixed(0)} MB`).toBeLessThan(1024);

  // The terminal and CI log: no control, bidi or zero-width character, no workflow command but our own.
  for (const [where, text] of [
    ['stdout', r.stdout],
    ['summary', o.summary],
  ] as const) {
    const bad = RAW_CONTROL.exec(text);
    expect(
      bad,
      `${where}: raw U+${bad?.[0].charCodeAt(0).toString(16)} near ${JSON.stringify(text.slice(Math.max(0, (bad?.index ?? 0) - 40), (bad?.index ?? 0) + 10))}`,
    ).toBeNull();
  }
  expect(r.stdout).not.toContain('##[');
  expect(r.stdout).not.toMatch(/section_(start|end):/);
  const lines = r.stdout.split('\n');
  expect(Math.max(...lines.map((l) => l.length)), 'longest stdout line').toBeLessThan(10_000);
  const commands = lines.map((l, i) => [l.trimStart(), i] as const).filter(([l]) => l.startsWith('::'));
  const stop = commands.find(([l]) => l.startsWith('::stop-commands::'));
  if (stop) {
    const token = stop[0].slice('::stop-commands::'.length);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const resume = commands.find(([l]) => l === `::${token}::`);
    expect(resume, 'the block of server text ends with its own token').toBeDefined();
    for (const [l, i] of commands) {
      if (l === stop[0] || l === resume![0]) continue;
      // Every other command is one of the tool's annotations, printed after the block.
      expect(l).toMatch(/^::(error|warning) title=[^:]*::/);
      expect(i).toBeGreaterThan(resume![1]);
    }
  } else {
    expect(commands.map(([l]) => l)).toEqual([]);
  }

  // Sizes: GitHub drops a job summary over 1 MiB; reports stay readable; junit.xml parses under libxml2's limits.
  expect(Buffer.byteLength(o.summary)).toBeLessThan(1024 * 1024);
  const reportBytes = Object.values(o.files).reduce((n, t) => n + Buffer.byteLength(t), 0);
  expect(reportBytes, 'all report files').toBeLessThan(30 * 1024 * 1024);
  if (o.files['junit.xml']) {
    const v = xmllint(o.files['junit.xml']);
    expect(v.ok, v.out.slice(0, 500)).toBe(true);
  }
}

/** Every form a secret may be quoted in, as the twists send them. */
function forms(s: string): string[] {
  return [
    ...new Set([
      s,
      T.escapeEveryChar(s),
      T.htmlEntities(s),
      T.percentLower(s),
      encodeURIComponent(s),
      JSON.stringify(s).slice(1, -1),
    ]),
  ];
}

/** No secret and no issued token, in any of its forms, in any byte the CLI wrote. */
function expectNoSecrets(o: Outcome): void {
  const issued = [...o.srv.world.tokens.keys()].filter((t) => t !== CREDENTIALS.disabled_app.token);
  expect(issued.length).toBeGreaterThan(0);
  const secrets = [...CONFIGURED_SECRETS, ...issued.filter((t) => t.length >= 8)];
  const outputs: Array<[string, string]> = [
    ['stdout', o.run.stdout],
    ['stderr', o.run.stderr],
    ['summary', o.summary],
    ...Object.entries(o.files),
  ];
  // report.json once more with its strings decoded: an escaped form inside a JSON string is escaped again there.
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(o.run.report);
  outputs.push(['report.json strings', strings.join('\n')]);
  const leaks: string[] = [];
  for (const [where, text] of outputs)
    for (const s of secrets) for (const f of forms(s)) if (text.includes(f)) leaks.push(`${where}: ${f.slice(0, 12)}…`);
  expect(leaks).toEqual([]);
}

const check = (o: Outcome, id: string) => o.run.report!.checks.find((c) => c.id === id)!;

// Alone: its server (in this process) moves 36 MB per list request, which would slow the servers of runs beside it.
describe.sequential('a twisted server reaches nothing: not memory', () => {
  test('2: two million empty records and a 30 MB list: problems counted, not collected; no false timeout', async () => {
    // A timeout that allows 30 MB through loopback on a busy machine: what is judged is memory and stalls.
    const o = await run([T.emptyRecords], 10_000, false);
    judge(o, [1, 3]);
    expect(check(o, 'DISH-01').message).toMatch(
      /does not match the dish shape \(2000000 of 2000000 records with problems\)/,
    );
    // Refused unparsed (or, on a machine too busy to move 30 MB within the timeout, timed out while arriving).
    expect(check(o, 'ORD-01').message).toMatch(
      /\/orders: (response body lists more than 2,500,000 records in data; not parsed|no complete response within)/,
    );
    // Validating two million records blocks the loop for seconds: no other endpoint may be taken for slow.
    const timedOut = o.run
      .report!.checks.filter((c) => /no complete response within/.test(c.message) && !/\/orders[:?]/.test(c.message))
      .map((c) => `${c.id}: ${c.message}`);
    expect(timedOut, 'a stall of the client is no slowness of the server').toEqual([]);
  });
});

describe.concurrent(
  "a twisted server reaches nothing: not the CI, the terminal, memory, nor the reader's shell",
  () => {
    test('1, 7: workflow commands and terminal controls in quoted values are inert; our own annotations all arrive', async () => {
      const o = await run([T.ciCommands, T.controlChars]);
      judge(o, [1]);
      // The checks that quote the forgeries failed, and each has its own annotation after the block.
      for (const id of ['AUTH-05', 'DISH-02', 'SEAT-02']) {
        expect(check(o, id).status).toBe('failed');
        expect(o.run.stdout).toMatch(new RegExp(`^::error title=${id} FAIL::`, 'm'));
      }
      expect(check(o, 'AUTH-05').message).toContain('##[set-output name=verdict;]conformant');
      expect(o.run.stdout).toContain('#\\u0023[set-output name=verdict;]conformant');
      expect(o.run.stdout).toMatch(/NOT CONFORMANT/);
      expect(o.summary).toContain('NOT CONFORMANT');
    });

    test('3, 10: 8,000-character tokens, 6,000 "…" in every error msg and a field nested 100,000 deep are all legal', async () => {
      const o = await run([T.longTokens, T.deepNesting]);
      judge(o, [0]);
      expect(o.run.report!.verdict).toBe('conformant');
      expect([...o.srv.world.tokens.keys()].some((t) => t.length === 8000)).toBe(true);
      expectNoSecrets(o);
    });

    test('4, 8: secrets escaped every legal way and an /auth answer that does not parse stay secret; forged markers stay text', async () => {
      const o = await run([T.escapedSecrets, T.forgedMarkers]);
      judge(o, [0, 1, 3]);
      expectNoSecrets(o);
      // The forged marker never becomes a shell variable in a reproduce line (only the token command names the key).
      const curl = [o.files['junit.xml']!, o.files['report.html']!]
        .join('\n')
        .split('\n')
        .filter((l) => /curl .*\/dishes\//.test(l));
      expect(curl.length).toBeGreaterThan(0);
      expect(curl.filter((l) => l.includes('CONFORMANCE_KEY'))).toEqual([]);
      expect(check(o, 'DISH-02').message).toContain('[FORGED-REDACTED:secret-key]');
      expect(o.files['report.json']).toContain('FORGED-REDACTED:secret-key');
    });

    test("5: a 429 storm with Retry-After: 60 spends the run's wait budget once, says so, and ends quickly", async () => {
      // The preflight's /auth of each application is spared, so the storm hits the run proper.
      const o = await run([T.rateStorm(2)]);
      judge(o, [3]);
      expect(o.wallMs).toBeLessThan(12 * TIMEOUT_MS + 30_000);
      expect(check(o, 'AUTH-01').outcome).toBe('incomplete');
      expect(check(o, 'AUTH-01').message).toMatch(
        /HTTP 429 Too Many Requests \(Retry-After: 60\), not waited for: the run's budget for rate-limit waits \(12\.0 s, 3 × timeout_ms\)/,
      );
    });

    test('5: a 429 storm from the first request: the preflight (which never retries) cannot verify the keys and says so; the run spends its wait budget and ends INCOMPLETE with a report', async () => {
      const o = await run([T.rateStorm()]);
      judge(o, [3]);
      expect(o.run.stdout).toMatch(
        /Warning: the server answered the preflight's GET \/auth with HTTP 429 \(rate limited\)/,
      );
      expect(JSON.parse(o.files['report.json']!).verdict).toBe('incomplete');
      expect(o.wallMs, 'no Retry-After: 60 waited for').toBeLessThan(12 * TIMEOUT_MS + 30_000);
    });

    test('6: a 5 MB id, 1 MB key names and a 12 KB header are shown cut short everywhere', async () => {
      const o = await run([T.hugeStrings]);
      judge(o, [1]);
      expect(o.run.stdout.length).toBeLessThan(1024 * 1024);
      expect(o.files['report.json']!.length).toBeLessThan(10 * 1024 * 1024);
      expect(o.run.stdout).toMatch(/… \([\d,]+ more characters\)/);
    });

    test('9: the token "NOT" is redacted in what the server sent, never in the tool\'s own words, and said so', async () => {
      const o = await run([T.shortToken]);
      judge(o, [1]);
      expect(check(o, 'SEAT-01').message).toMatch(/^GET \/seats does not match the seat shape/);
      expect(o.run.stdout).toMatch(/NOT CONFORMANT/);
      expect(o.run.stdout).not.toContain('[REDACTED:token] CONFORMANT');
      expect(check(o, 'AUTH-01').notes.join('\n')).toMatch(/app_token has 3 characters, too few to redact safely/);
      // In the evidence, the header that carried it shows the marker.
      const marked: Record<string, string> = {};
      carryToken(marked, '[REDACTED:token]');
      expect(o.files['report.json']).toContain(JSON.stringify(marked).slice(1, -1).replace(':', ': '));
    });

    test('11: a token with ESC, BEL and U+202E: AUTH-01 fails, its requests are not sent, and nothing waits on them', async () => {
      const o = await run([T.illegalToken]);
      judge(o, [1]);
      // Old behaviour: the run hung at "checks 48/61 done" until its deadline (10 min by default).
      expect(o.wallMs, 'no stall').toBeLessThan(30_000);
      expect(check(o, 'AUTH-01').status).toBe('failed');
      expect(check(o, 'AUTH-01').message).toMatch(
        /the issued app_token holds characters no header value may carry \(U\+001B, U\+0007, U\+202E; RFC 9110 §5\.5\)/,
      );
      const notSent = o.run.report!.checks.filter((c) =>
        c.message.includes(`not sent: the ${TOKEN_HEADER} header value`),
      );
      expect(notSent.length).toBeGreaterThan(10);
      // Not sent is never the server's failure: AUTH-01 fails app's token, AUTH-02 other_app's (#35), and no other.
      expect(o.run.report!.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual([
        'AUTH-01',
        'AUTH-02',
      ]);
      expect(o.files['report.json']).not.toContain('evilxxxx');
    });

    test('12: 70 KB of headers on /auth and /merchant answers are read: a conforming server stays conforming', async () => {
      const o = await run([T.manyHeaders]);
      judge(o, [0]);
      expect(o.run.stdout).not.toMatch(/Headers Overflow/);
    });
  },
);

// One at a time: a test that blocks the event loop would block the others' clients too.
describe.sequential('the HTTP client against a twisted server', () => {
  const answering = (delayMs: number, body: string, status = 200): Variant => ({
    name: 'scripted',
    description: 'answers every request with a fixed body after a delay',
    raw(_req, res) {
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '60' });
        res.end(body);
      }, delayMs);
      return true;
    },
  });
  const client = (baseUrl: string, redactor = new Redactor()): HttpClient =>
    new HttpClient({
      baseUrl,
      timeoutMs: 500,
      deadlineMs: 600_000,
      concurrency: 2,
      maxBodyBytes: 1 << 20,
      tls: { insecure: false },
      redactor,
    });

  // A client that charges the stall to the request fails this at once, on an idle machine or a loaded one.
  test('a stall of our own event loop is not charged to the request in flight', async () => {
    const srv = await startReferenceServer({ variants: [answering(100, '{"status":"SUCCESS","code":200,"data":[]}')] });
    const c = client(srv.baseUrl);
    try {
      const pending = c.send({ path: '/dishes' });
      // Block the loop for longer than the timeout (as validating a huge body would), right after sending.
      await new Promise((r) => setTimeout(r, 20));
      const until = performance.now() + 1200;
      while (performance.now() < until) {
        /* busy */
      }
      expect((await pending).status).toBe(200);
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test('a request that cannot be sent fails at once and every request queued behind it goes on', async () => {
    const srv = await startReferenceServer({ variants: [answering(0, '{"status":"SUCCESS","code":200,"data":[]}')] });
    const c = client(srv.baseUrl);
    try {
      const t0 = performance.now();
      const bad = [
        c.send({ path: '/dishes', token: T.ILLEGAL_TOKEN(1) }),
        c.send({ path: '/dishes', headers: { 'x-odd': 'a\u0007b' } }),
        c.send({ path: '/dishes', method: 'G ET' }),
        // A 5 MB id in a path: past the longest request target a run sends (RFC 9112 §3's 8,000 octets × 8).
        c.send({ path: `/dishes/${'i'.repeat(5_000_000)}` }),
      ].map((p) => p.catch((x: unknown) => x));
      const good = Array.from({ length: 6 }, () => c.send({ path: '/dishes' }));
      for (const e of await Promise.all(bad)) {
        expect(e).toBeInstanceOf(NetworkError);
        expect((e as NetworkError).code).toBe('NOT_SENT');
        expect((e as NetworkError).message).not.toContain('evil');
        expect((e as NetworkError).message.length).toBeLessThan(3000);
      }
      expect((await Promise.all(bad).then((all) => all[3])) as NetworkError).toMatchObject({
        message: expect.stringMatching(
          /\/dishes\/i+… \(4,998,0\d\d more characters\): not sent: its request target is 5,000,\d{3} characters long, past the 65,536 a run sends/,
        ),
      });
      expect((await Promise.all(good)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(performance.now() - t0, 'nothing waited for a drain').toBeLessThan(2000);
    } finally {
      await c.close();
      await srv.close();
    }
  }, 10_000);

  test('headers past the limit: one line that names it', async () => {
    const huge: Variant = {
      name: 'huge-headers',
      description: 'answers with 300 KB of headers',
      raw(_req, res) {
        const h: Record<string, string> = { 'content-type': 'application/json' };
        for (let i = 0; i < 1200; i++) h[`x-pad-${i}`] = 'p'.repeat(250);
        res.writeHead(200, h);
        res.end('{"status":"SUCCESS","code":200,"data":[]}');
        return true;
      },
    };
    const srv = await startReferenceServer({ variants: [huge] });
    const c = client(srv.baseUrl);
    try {
      const e = await c.send({ path: '/dishes' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(NetworkError);
      expect((e as NetworkError).message).toMatch(
        /: the response headers exceed 256 KiB, the most the suite reads: not read$/,
      );
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test('retry {max: 0} answers the first 429 as it came; the wait budget ends a storm with RETRY_BUDGET', async () => {
    const srv = await startReferenceServer({ variants: [answering(0, '{"status":"ERROR","code":429}', 429)] });
    const c = client(srv.baseUrl);
    try {
      const t0 = performance.now();
      expect((await c.send({ path: '/auth', retry: { max: 0 } })).status).toBe(429);
      const e = await c.send({ path: '/dishes' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(NetworkError);
      expect((e as NetworkError).code).toBe('RETRY_BUDGET');
      expect((e as NetworkError).message).toMatch(
        /not waited for: the run's budget for rate-limit waits \(1\.5 s, 3 × timeout_ms\)/,
      );
      expect(performance.now() - t0, 'no 60 s wait').toBeLessThan(5000);
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test('a token in an /auth answer that does not parse is a secret at once', async () => {
    const token = 'tok_Unparsable/Token+Value=42';
    const srv = await startReferenceServer({
      variants: [
        answering(
          0,
          `{"status":"SUCCESS","code":200,"data":{"app_token":"${token.replace('/', '\\/')}"}}<!-- trailer -->`,
        ),
      ],
    });
    const redactor = new Redactor();
    const c = client(srv.baseUrl, redactor);
    try {
      const r = await c.send({ path: '/auth' });
      expect(r.jsonError).toBeDefined();
      expect(redactor.redact(`echo ${token} and ${encodeURIComponent(token)}`)).toBe(
        'echo [REDACTED:token] and [REDACTED:token]',
      );
    } finally {
      await c.close();
      await srv.close();
    }
  });
});
