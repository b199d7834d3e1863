import { tempDir } from './helpers/temp-dirs.js';
import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirSync, symlinkSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { MUTANTS } from '../reference/mutants/index.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { BIN, failedIds, runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import type { Variant } from '../reference/server.js';
import { forgedMarkers, illegalToken } from '../reference/hostile-twists.js';
import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import type { Report } from '../core/model/report.js';

// `npm run build` first: the CLI runs from dist/.

/** A live run against the reference server (with variants) that also writes its exchanges as HAR. */
async function recordRun(variants: Variant[]): Promise<{ live: Awaited<ReturnType<typeof runCli>>; har: string }> {
  return withServer(variants, async (srv) => {
    const live = await runCli([...targetArgs(srv), '--record-har', 'run.har'], { env: targetEnv });
    return { live, har: join(live.dir, 'run.har') };
  });
}

/**
 * One live run per server for the whole file (the reference server, or a mutant by name): a test that needs its HAR
 * only reads it, and writes what it derives under another name.
 */
const recorded = new Map<string, ReturnType<typeof recordRun>>();
/**
 * A token the server hands out again in a response header on every answer (x-refreshed-token), a legal extra: the
 * run's own HAR of it must replay to the same outcomes.
 */
const refreshedToken: Variant = {
  name: 'refreshed-token',
  description:
    'every answer to a request with a token carries a fresh token for the same application in x-refreshed-token',
  handle(req, next, world) {
    const r = next();
    const sent = tokenOfRequest(req.headers);
    const app = sent !== undefined ? world.tokens.get(sent) : undefined;
    if (!app) return r;
    const fresh = `tok_${randomBytes(12).toString('hex')}`;
    world.tokens.set(fresh, app);
    return { ...r, headers: { ...r.headers, 'x-refreshed-token': fresh } };
  },
};
/** Servers whose own HAR is replayed besides the mutants: hostile bytes in data, a token in a response header. */
const OTHER_SERVERS: Record<string, Variant> = { 'forged-markers': forgedMarkers, 'refreshed-token': refreshedToken };

function recordMutant(name: string): ReturnType<typeof recordRun> {
  let run = recorded.get(name);
  if (!run) {
    run = recordRun(name === 'reference' ? [] : [OTHER_SERVERS[name] ?? MUTANTS.find((x) => x.name === name)!]);
    recorded.set(name, run);
  }
  return run;
}

/** check-har over a HAR file, in a fresh directory, with no credentials in the environment. */
const checkHar = (file: string, extra: string[] = []) => runCli(['check-har', file, ...extra]);

type Har = { log: { entries: Array<Record<string, any>>; _conformance?: unknown } };
const readHar = (file: string): Har => JSON.parse(readFileSync(file, 'utf8')) as Har;

const skippedOffline = (r: Awaited<ReturnType<typeof runCli>>): string[] =>
  (r.report?.checks ?? []).filter((c) => c.status === 'skipped').map((c) => c.id);

/** Every check's outcome, by id: a replay of a run's own HAR gives exactly these. */
const outcomes = (r: Report | undefined): Record<string, string> =>
  Object.fromEntries((r?.checks ?? []).map((c) => [c.id, c.outcome]));

// One mutant per kind of evidence a recording holds: a secret in data, a list/detail difference, another merchant's
// record, bytes that are not UTF-8, an error code, the plain-HTTP origin, requests with a body (AUTH-06's keys in a
// GET body, answered apart from the same request without one).
const MUTANT_NAMES = [
  'auth-keys-from-body',
  'merchant-carries-secret-key',
  'cons-dish-detail-differs',
  'iso-seat-detail-leak-b',
  'dish-name-latin1',
  'unknown-seat-500',
  'plain-http-same-port',
];

describe.concurrent('a HAR recorded from a run fails offline, via check-har, the checks the live run failed', () => {
  for (const name of MUTANT_NAMES) {
    test(name, async () => {
      const m = MUTANTS.find((x) => x.name === name)!;
      const { live, har } = await recordMutant(name);
      expect(live.stderr).toBe('');
      expect(failedIds(live.report)).toEqual([...m.kills].sort());
      // The server is gone: whatever check-har judges, it judges from the file.
      const off = await checkHar(har);
      expect(off.stderr).toBe('');
      expect(skippedOffline(off), 'every check of a full run is judged from its recording').toEqual(
        skippedOffline(live),
      );
      expect(failedIds(off.report)).toEqual(failedIds(live.report));
      expect(outcomes(off.report)).toEqual(outcomes(live.report));
      expect(off.code).toBe(live.code);
    });
  }

  for (const name of Object.keys(OTHER_SERVERS))
    test(`${name}: the run's own HAR replays to exactly the live run's outcomes, check by check`, async () => {
      const { live, har } = await recordMutant(name);
      expect(live.stderr).toBe('');
      const off = await checkHar(har);
      expect(off.stderr).toBe('');
      // Nothing a live run judged is skipped from its own recording: every check runs from it.
      expect(outcomes(off.report)).toEqual(outcomes(live.report));
      expect(off.report!.verdict).toBe(live.report!.verdict);
      expect(off.code).toBe(live.code);
    });

  test('the conforming reference server: no failure offline, the same verdict as live', async () => {
    const { live, har } = await recordMutant('reference');
    const off = await checkHar(har);
    expect(failedIds(off.report)).toEqual([]);
    expect(off.report!.verdict).toBe(live.report!.verdict);
    expect(outcomes(off.report)).toEqual(outcomes(live.report));
    expect(off.code).toBe(0);
    // The HAR holds no secret: keys, tokens, all replaced by placeholders.
    const text = readFileSync(har, 'utf8');
    for (const s of [
      CREDENTIALS.app.secret,
      CREDENTIALS.app.key,
      CREDENTIALS.other_app.key,
      CREDENTIALS.disabled_app.key,
      CREDENTIALS.disabled_app.token,
    ])
      expect(text).not.toContain(s);
    expect(text).toContain('REDACTED_token');
    // AUTH-06's GET /auth requests with the keys in a body are recorded with it (HAR postData), its keys replaced.
    const posted = readHar(har).log.entries.flatMap((e) => (e.request.postData ? [e.request] : []));
    expect(posted.map((r) => [r.method, r.postData.mimeType, r.postData.text])).toEqual(
      expect.arrayContaining([
        ['GET', 'application/json; charset=utf-8', '{"secret":"REDACTED_public-key","key":"REDACTED_secret-key"}'],
        ['GET', 'application/x-www-form-urlencoded', 'secret=REDACTED_other-public-key&key=REDACTED_other-secret-key'],
      ]),
    );
    expect(posted.every((r) => r.bodySize === Buffer.byteLength(r.postData.text))).toBe(true);
    // Each entry when its request went out: a timeline, not the time the file was written.
    const starts = readHar(har).log.entries.map((e) => Date.parse(e.startedDateTime as string));
    expect(starts.every((t) => Number.isFinite(t))).toBe(true);
    expect(new Set(starts).size).toBeGreaterThan(1);
    expect(Math.max(...starts) - Math.min(...starts)).toBeLessThanOrEqual(live.report!.duration_ms + 1000);
  });
});

/** The recording of a run, as a capture tool with real secrets would hold it (the placeholders given values back). */
const TOKEN = 'tok_live_4e5f6a7b8c9d0e1f2a3b';
function withSecrets(text: string): string {
  return text
    .split('REDACTED_public-key')
    .join(CREDENTIALS.app.secret)
    .split('REDACTED_secret-key')
    .join(CREDENTIALS.app.key)
    .split('REDACTED_other-public-key')
    .join(CREDENTIALS.other_app.secret)
    .split('REDACTED_other-secret-key')
    .join(CREDENTIALS.other_app.key)
    .split('REDACTED_token')
    .join(TOKEN)
    .split('REDACTED_toke~')
    .join(`${TOKEN.slice(0, -1)}~`);
}

const titleCase = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => `${d}${c.toUpperCase()}`);

/** Each tool's way of writing the same exchanges. */
const SHAPES: Record<string, (e: Record<string, any>) => Record<string, any>> = {
  // Chrome devtools: HTTP/2 pseudo-headers, compression sizes, its own underscore fields.
  devtools: (e) => ({
    ...e,
    _resourceType: 'fetch',
    _initiator: { type: 'script' },
    request: {
      ...e.request,
      headers: [
        { name: ':authority', value: new URL(e.request.url).host },
        { name: ':method', value: 'GET' },
        ...e.request.headers,
      ],
    },
    response: { ...e.response, content: { ...e.response.content, compression: 120 }, _transferSize: 300 },
  }),
  // mitmproxy's HAR export: header names as they went, every body base64.
  mitmproxy: (e) => ({
    ...e,
    request: {
      ...e.request,
      headers: e.request.headers.map((h: { name: string; value: string }) => ({ ...h, name: titleCase(h.name) })),
    },
    response:
      e.response.status === 0
        ? e.response
        : {
            ...e.response,
            headers: e.response.headers.map((h: { name: string; value: string }) => ({
              ...h,
              name: titleCase(h.name),
            })),
            content: {
              ...e.response.content,
              text: Buffer.from(
                e.response.content.text ?? '',
                e.response.content.encoding === 'base64' ? 'base64' : 'utf8',
              ).toString('base64'),
              encoding: 'base64',
            },
          },
  }),
  // Playwright recordHar: gzip on the wire (bodySize smaller than content.size), the decoded text in the HAR.
  playwright: (e) => ({
    ...e,
    _securityDetails: { protocol: 'TLS 1.3' },
    response:
      e.response.status === 0
        ? e.response
        : {
            ...e.response,
            headers: [...e.response.headers, { name: 'content-encoding', value: 'gzip' }],
            bodySize: Math.ceil((e.response.content.size ?? 0) / 3),
            _transferSize: 500,
          },
  }),
};

/** Entries a capture holds beside the API's: a page asset without its body, a request that got no answer. */
const NOISE = [
  {
    startedDateTime: '2026-01-01T00:00:00Z',
    time: 3,
    request: { method: 'GET', url: 'https://app.example/favicon.ico', headers: [] },
    response: { status: 200, headers: [], content: { size: 1500, mimeType: 'image/x-icon' } },
  },
  {
    startedDateTime: '2026-01-01T00:00:00Z',
    time: 0,
    request: { method: 'GET', url: 'https://ads.example/p.js', headers: [] },
    response: { status: 0, headers: [], content: { size: 0, mimeType: '' }, _error: 'net::ERR_BLOCKED_BY_CLIENT' },
  },
];

describe('HAR files of browser devtools, mitmproxy and Playwright', () => {
  for (const [shape, of] of Object.entries(SHAPES)) {
    test(`${shape}: the applications are told apart by their keys and tokens; a failing check fails, the rest is skipped with the reason, secrets redacted`, async () => {
      const { live, har } = await recordMutant('iso-seat-detail-leak-b');
      const doc = JSON.parse(withSecrets(readFileSync(har, 'utf8'))) as Har;
      delete doc.log._conformance;
      doc.log.entries = [...NOISE, ...doc.log.entries.map(of)];
      const file = join(live.dir, `${shape}.har`);
      writeFileSync(file, JSON.stringify(doc));
      const off = await checkHar(file, ['--base-url', new URL(doc.log.entries[2]!.request.url).origin + '/open']);
      expect(off.stderr).toBe('');
      expect(off.stdout).toContain('Applications: app, other_app');
      // The disabled application is not in a foreign capture: its checks are skipped, as not configured.
      const report = off.report!;
      expect(failedIds(report)).toEqual(['ISO-03']);
      expect(off.code).toBe(1);
      const byId = new Map(report.checks.map((c) => [c.id, c]));
      expect(byId.get('AUTH-10')!.status).toBe('skipped');
      // The fuzz check's seed was not the capture's: its requests are not in the recording.
      expect(byId.get('FUZZ-01')!.message).toMatch(/^not in the recording: GET \/(dishes|seats)\//);
      for (const f of readdirSync(join(off.dir, 'conformance-report'))) {
        const text = readFileSync(join(off.dir, 'conformance-report', f), 'utf8');
        for (const s of [
          CREDENTIALS.app.secret,
          CREDENTIALS.app.key,
          CREDENTIALS.other_app.secret,
          CREDENTIALS.other_app.key,
          TOKEN,
          TOKEN.slice(0, -1),
        ])
          expect(text, `${f} shows a secret`).not.toContain(s);
      }
      expect(off.stdout).not.toContain(TOKEN);
    });
  }

  test('the base URL comes from the /auth request when not given; a PARTIAL verdict when MUST checks were skipped', async () => {
    const { live, har } = await recordMutant('reference');
    const doc = readHar(har);
    delete doc.log._conformance;
    const file = join(live.dir, 'foreign.har');
    writeFileSync(file, JSON.stringify(doc));
    const off = await checkHar(file);
    expect(off.report!.verdict).toBe('partial');
    expect(off.code).toBe(0);
    expect(failedIds(off.report)).toEqual([]);
    expect((await checkHar(file, ['--strict'])).code).toBe(3);
  });
});

/** A server on 127.0.0.1 that counts the requests it gets (and answers each `{}`). */
async function countingServer(): Promise<{ server: Server; port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, hits: () => hits };
}

test('check-har sends no request: the recording names a live server, which sees nothing', async () => {
  const { server, port, hits } = await countingServer();
  try {
    const { live, har } = await recordMutant('reference');
    const text = readFileSync(har, 'utf8').replace(/https:\/\/127\.0\.0\.1:\d+/g, `http://127.0.0.1:${port}`);
    const file = join(live.dir, 'local.har');
    writeFileSync(file, text);
    const off = await checkHar(file);
    expect(off.report!.checks.filter((c) => c.status === 'passed').length).toBeGreaterThan(40);
    expect(hits()).toBe(0);
  } finally {
    server.close();
  }
});

test('check-har: usage errors exit 2', async () => {
  expect((await runCli(['check-har'])).code).toBe(2);
  expect((await runCli(['check-har', 'missing.har'])).stderr).toMatch(/missing\.har: cannot read it: ENOENT/);
  const dir = (await runCli(['check-har', '--help'])).dir;
  writeFileSync(join(dir, 'x.har'), '{"log":{}}');
  const bad = await runCli(['check-har', 'x.har'], { cwd: dir });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/no log\.entries/);
  writeFileSync(join(dir, 'y.har'), '{"log":{"entries":[]}}');
  const noBase = await runCli(['check-har', 'y.har'], { cwd: dir });
  expect([noBase.code, noBase.stderr]).toEqual([2, expect.stringMatching(/give --base-url/)]);
  expect((await runCli(['check-har', 'y.har', '--base-url', 'nope'], { cwd: dir })).code).toBe(2);
  // A capture's name is chosen by whoever sent it: it never starts a line of its own (a workflow command).
  const forged = await runCli(['check-har', 'x\n::error title=FORGED::y.har'], { cwd: dir });
  expect(forged.code).toBe(2);
  expect(forged.stderr.split('\n').filter(Boolean)).toEqual([
    'conformance: check-har: x ⏎ ::error title=FORGED::y.har: cannot read it: ENOENT',
  ]);
});

/**
 * A browser's capture of the same traffic: the token was cached, so no /auth entry; only the GETs the page made with
 * the applications' own tokens, real values in place of the placeholders; nothing written beside them.
 */
async function browserCapture(name: string): Promise<{ file: string; live: Awaited<ReturnType<typeof runCli>> }> {
  const { live, har } = await recordMutant(name);
  const doc = JSON.parse(withSecrets(readFileSync(har, 'utf8')).split('REDACTED_other-token').join(OTHER_TOKEN)) as Har;
  delete doc.log._conformance;
  const ownToken = (e: Record<string, any>): boolean => {
    const headers = e.request.headers as Array<{ name: string; value: string }>;
    const token = tokenOfRequest(Object.fromEntries(headers.map((h) => [h.name.toLowerCase(), h.value])));
    return token === TOKEN || token === OTHER_TOKEN;
  };
  doc.log.entries = doc.log.entries.filter(
    (e) => e.request.method === 'GET' && !new URL(e.request.url).pathname.endsWith('/auth') && ownToken(e),
  );
  const file = join(live.dir, `${name}-browser.har`);
  writeFileSync(file, JSON.stringify(doc));
  return { file, live };
}
const OTHER_TOKEN = 'tok_other_5a6b7c8d9e0f1a2b3c4d';

describe('a capture without /auth (a cached token) is judged by what it holds', () => {
  test('a conforming server: the recorded answers are judged, PARTIAL with what was not, from a recording', async () => {
    const { file } = await browserCapture('reference');
    const off = await checkHar(file);
    expect(off.stderr).toBe('');
    expect(off.code).toBe(0);
    const report = off.report!;
    expect(report.verdict).toBe('partial');
    expect(report.source).toBe('recording');
    // The tokens identify both applications (the second by its /merchant answer naming another merchant).
    expect(off.stdout).toMatch(
      /^Applications: app \(by the token its requests carried[^\n]*, other_app \(by the token/m,
    );
    expect(off.stdout).toMatch(/^PASSED, PARTIAL \(from a recording\): /m);
    const byId = new Map(report.checks.map((c) => [c.id, c]));
    // Shapes, list/detail consistency, isolation, envelopes and credentials in data: judged from the recording.
    for (const id of ['MER-01', 'DISH-01', 'DISH-02', 'SEAT-02', 'ORD-01', 'CONS-02', 'CONS-10', 'ISO-03'])
      expect(byId.get(id)!.status, id).toBe('passed');
    // Those that read /auth beside the data judged the rest, and say so (PARTIAL counts them).
    for (const id of ['ENV-01', 'SEC-01', 'TRANS-01']) {
      expect(byId.get(id)!.status, id).toBe('passed');
      expect(byId.get(id)!.sampled, id).toMatch(/without GET \/auth of app \(only its token is in the recording\)/);
    }
    // What needs /auth itself, or requests a browser never makes, is not in the recording, and says which.
    expect(byId.get('AUTH-01')!.message).toBe(
      'not in the recording: GET /auth of app (only its token is in the recording)',
    );
    expect(byId.get('UNAUTH-DISHES')!.status).toBe('skipped');
    expect(byId.get('AUTH-10')!.message).toMatch(/^not in the recording: no disabled application/);
    // No hint that only a live run can take, and no secret.
    const html = readFileSync(join(off.dir, 'conformance-report', 'report.html'), 'utf8');
    expect(html).toContain('a recording (check-har)');
    for (const text of [off.stdout, html, readFileSync(join(off.dir, 'conformance-report', 'report.json'), 'utf8')]) {
      expect(text).not.toMatch(/--other-secret|--seed|--max-details all/);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(OTHER_TOKEN);
    }
  });

  test.each([
    ['cons-dish-detail-differs', ['CONS-02']],
    ['iso-seat-detail-leak-b', ['ISO-03']],
    ['merchant-carries-secret-key', []],
  ])('%s: the failures the recorded answers show are found', async (name, failing) => {
    const { file } = await browserCapture(name);
    const off = await checkHar(file);
    expect(off.stderr).toBe('');
    // The secret key in /merchant is only known from /auth: without it, that finding cannot be made (PARTIAL).
    expect(failedIds(off.report)).toEqual(failing);
    expect(off.code).toBe(failing.length ? 1 : 0);
  });

  test('a capture with nothing to judge ends NOTHING JUDGED, exit 3', async () => {
    const dir = tempDir('check-har-');
    const file = join(dir, 'noise.har');
    writeFileSync(file, JSON.stringify({ log: { entries: NOISE } }));
    const off = await checkHar(file, ['--base-url', 'https://api.example/open']);
    expect(off.code).toBe(3);
    expect(off.report!.verdict).toBe('nothing judged');
    expect(off.stdout).toMatch(/^NOTHING JUDGED \(from a recording\): no MUST check was judged/m);
    expect(off.report!.checks.find((c) => c.id === 'DISH-01')!.message).toMatch(
      /^not in the recording: GET \/auth \(no application/,
    );
  });
});

test('status-0 records of failed attempts followed by their retry are the network, set aside and counted', async () => {
  const { live, har } = await recordMutant('reference');
  const doc = readHar(har);
  const failed = (e: Record<string, any>): Record<string, any> => ({
    ...e,
    time: 0,
    response: { status: 0, headers: [], content: { size: 0, mimeType: '' }, _error: 'net::ERR_CONNECTION_RESET' },
  });
  let inserted = 0;
  doc.log.entries = doc.log.entries.flatMap((e) => {
    const path = new URL(e.request.url).pathname;
    if (inserted < 5 && e.response.status > 0 && /\/(auth|dishes)$/.test(path)) {
      inserted++;
      return [failed(e), e];
    }
    return [e];
  });
  expect(inserted).toBe(5);
  const file = join(live.dir, 'devtools-retries.har');
  writeFileSync(file, JSON.stringify(doc));
  const off = await checkHar(file);
  expect(off.stderr).toBe('');
  expect(off.stdout).toContain(
    "Network: 5 failed attempts (no response: status 0) followed by a recorded retry of the same request set aside: the client's network, not the server's",
  );
  expect(off.report!.config.recording_notes).toHaveLength(1);
  expect(outcomes(off.report)).toEqual(outcomes(live.report));
  expect(off.report!.verdict).toBe('conformant');
});

test('long recorded bodies go to files and are read as live ones: past DISK_LIST_BYTES, record by record', async () => {
  const { live, har } = await recordMutant('reference');
  const doc = readHar(har);
  let padded = 0;
  for (const e of doc.log.entries) {
    const text = e.response?.content?.text as string | undefined;
    // The same lists, 1.2 MB longer by whitespace JSON allows: past the in-memory bound of a body in the HAR.
    if (/\/(orders|dishes|seats)$/.test(new URL(e.request.url).pathname) && text?.includes('"data":[')) {
      e.response.content.text = text.replace('"data":[', `"data":[${' '.repeat(1_200_000)}`);
      padded++;
    }
  }
  expect(padded).toBeGreaterThan(5);
  const file = join(live.dir, 'long-bodies.har');
  writeFileSync(file, JSON.stringify(doc));
  for (const env of [{}, { CONFORMANCE_DISK_LIST_BYTES: '1000' }] as Array<Record<string, string>>) {
    const off = await runCli(['check-har', file], { env });
    expect(off.stderr).toBe('');
    expect(outcomes(off.report)).toEqual(outcomes(live.report));
  }
});

test("issue 37: a run's own HAR of a server issuing tokens no header can carry fails the checks the live run failed", async () => {
  const { live, har } = await recordRun([illegalToken]);
  // app's token is AUTH-01's finding, other_app's AUTH-02's (#35: every application's token is judged).
  expect(failedIds(live.report)).toEqual(['AUTH-01', 'AUTH-02']);
  const r = await runCli(['check-har', har], { timeoutMs: 60_000 });
  expect(r.stderr).toBe('');
  expect(failedIds(r.report)).toEqual(failedIds(live.report));
  expect(r.report!.checks.find((c) => c.id === 'AUTH-01')!.message).toBe(
    live.report!.checks.find((c) => c.id === 'AUTH-01')!.message,
  );
  // The HAR holds no such token, only the code points of what it held.
  expect(readFileSync(har, 'utf8')).not.toMatch(/evilx|\\u001b/i);
});

test("issue 37: --record-har never writes over the run's own report files", async () => {
  const dir = tempDir('record-own-');
  mkdirSync(join(dir, 'out'));
  writeFileSync(join(dir, 'out', 'report.json'), 'the last report');
  symlinkSync(join(dir, 'out', 'junit.xml'), join(dir, 'link.har'));
  const base = ['--base-url', 'https://127.0.0.1:1/open', '--secret', 'a', '--key', 'b', '--report-dir', 'out'];
  for (const [path, name] of [
    ['out/report.json', 'report.json'],
    ['./out/../out/report.html', 'report.html'],
    ['link.har', 'junit.xml'],
  ] as const) {
    const r = await runCli([...base, '--record-har', path], { cwd: dir, timeoutMs: 20_000 });
    expect([r.code, r.stderr]).toEqual([
      2,
      `conformance: --record-har ${path}: that is the run's own ${name}, which the run writes: give the recording another path\n`,
    ]);
  }
  expect(readFileSync(join(dir, 'out', 'report.json'), 'utf8')).toBe('the last report');
});

test('--record-har: a path that cannot be written is a usage error before any request', async () => {
  const { server, port, hits } = await countingServer();
  try {
    const base = `http://127.0.0.1:${port}/open`;
    const dir = tempDir('record-har-');
    for (const path of [join(dir, 'missing', 'run.har'), dir]) {
      const r = await runCli(['--base-url', base, '--record-har', path], { env: targetEnv });
      expect([r.code, r.stderr]).toEqual([
        2,
        `conformance: --record-har ${path}: cannot write there: ${path === dir ? 'it is a directory' : 'no such file'}\n`,
      ]);
    }
    expect(hits()).toBe(0);
  } finally {
    server.close();
  }
});

test.skipIf(!existsSync('/dev/full'))(
  '--record-har: a recording that cannot be written (a full disk) never changes the verdict, and says so',
  async () => {
    const { live } = await recordMutant('reference');
    const r = await withServer([], (srv) =>
      runCli([...targetArgs(srv), '--record-har', '/dev/full'], { env: targetEnv }),
    );
    expect(r.stderr).toBe('');
    expect([r.code, r.report!.verdict]).toEqual([live.code, live.report!.verdict]);
    expect(outcomes(r.report)).toEqual(outcomes(live.report));
    expect(r.stdout).toContain(
      'Warning: --record-har: nothing was written to /dev/full (the recording failed; the verdict above stands)',
    );
  },
);

describe('files that are not regular files, or past the cap, are refused in one line', () => {
  const dir = tempDir('not-a-file-');
  const fifo = join(dir, 'capture.har');
  execFileSync('mkfifo', [fifo]);

  test.each([
    ['/dev/zero', 'a device'],
    [fifo, 'a pipe'],
    [dir, 'a directory'],
  ])('%s', async (path, what) => {
    // A pipe is a HAR read as a stream (below); check-har refuses the rest.
    if (what !== 'a pipe') {
      const har = await runCli(['check-har', path], { timeoutMs: 20_000 });
      expect([har.code, har.stderr]).toEqual([
        2,
        `conformance: check-har: ${path}: not a regular file (${what}): give the path of a file\n`,
      ]);
    }
    // A directory is a report directory to diff, merge and baseline (its report.json): only check-har refuses it.
    if (what === 'a directory') return;
    const report = join(tempDir('report-'), 'report.json');
    writeFileSync(report, '{}');
    for (const args of [
      ['diff', path, report],
      ['merge', path],
      ['baseline', path],
    ]) {
      const r = await runCli(args, { timeoutMs: 20_000 });
      expect([r.code, r.stderr], args.join(' ')).toEqual([
        2,
        `conformance: cannot read report ${path}: not a regular file (${what}): give the path of a file\n`,
      ]);
    }
  });

  test('issue 37: a HAR from a pipe (check-har <(…)) is read as a stream, and judged as the file is', async () => {
    const { live, har } = await recordMutant('reference');
    const pipe = join(tempDir('har-pipe-'), 'capture.har');
    execFileSync('mkfifo', [pipe]);
    const writer = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', har, pipe], { stdio: 'ignore' });
    const r = await runCli(['check-har', pipe], { timeoutMs: 60_000 });
    writer.kill();
    expect(r.stderr).toBe('');
    expect([r.code, r.report!.verdict]).toEqual([live.code, live.report!.verdict]);
    // Past the cap, a pipe is refused as it is read, in one line.
    const capped = join(dirname(pipe), 'capped.har');
    execFileSync('mkfifo', [capped]);
    const writer2 = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', har, capped], { stdio: 'ignore' });
    const c = await runCli(['check-har', capped], { env: { CONFORMANCE_MAX_HAR_BYTES: '100000' }, timeoutMs: 60_000 });
    writer2.kill();
    expect([c.code, c.stderr]).toEqual([
      2,
      `conformance: check-har: ${capped}: a pipe that went on past the cap of 100000 bytes (CONFORMANCE_MAX_HAR_BYTES): not read further\n`,
    ]);
  });

  test('issue 37: a FIFO nobody writes to is refused in one line within the pipe wait, never waited on forever', async () => {
    const dir = tempDir('har-pipe-');
    const pipe = join(dir, 'nobody.har');
    execFileSync('mkfifo', [pipe]);
    const started = Date.now();
    const r = await runCli(['check-har', pipe], { env: { CONFORMANCE_PIPE_WAIT_MS: '1500' }, timeoutMs: 30_000 });
    expect([r.code, r.stderr]).toEqual([
      2,
      `conformance: check-har: ${pipe}: a pipe that nobody wrote to within 1.5 s: not read (is its writer running?)\n`,
    ]);
    expect(Date.now() - started).toBeLessThan(25_000);
    // A writer that comes late, within the wait, is read as any pipe.
    const { live, har } = await recordMutant('reference');
    const late = join(dir, 'late.har');
    execFileSync('mkfifo', [late]);
    const writer = spawn('sh', ['-c', 'sleep 1; cat "$1" > "$2"', 'sh', har, late], { stdio: 'ignore' });
    const l = await runCli(['check-har', late], { env: { CONFORMANCE_PIPE_WAIT_MS: '20000' }, timeoutMs: 60_000 });
    writer.kill();
    expect(l.stderr).toBe('');
    expect([l.code, l.report!.verdict]).toEqual([live.code, live.report!.verdict]);
  });

  test('a HAR past the cap', async () => {
    const { har } = await recordMutant('reference');
    const r = await runCli(['check-har', har], { env: { CONFORMANCE_MAX_HAR_BYTES: '1000' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^conformance: check-har: .*run\.har: \d+ bytes, past the cap of 1000 bytes \(CONFORMANCE_MAX_HAR_BYTES\): not read\n$/,
    );
  });
});

/** Peak resident memory of a command, in MiB, as GNU time measures it (its -f %M: kilobytes). */
function peakMiB(args: string[], cwd: string): { mib: number; code: number | null; stdout: string } {
  const r = spawnSync('/usr/bin/time', ['-f', 'peak %M', process.execPath, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const kb = Number(/peak (\d+)\s*$/.exec(r.stderr)?.[1]);
  return { mib: kb / 1024, code: r.status, stdout: r.stdout };
}

test.skipIf(!existsSync('/usr/bin/time'))(
  'a 300 MB HAR is read as a stream: 100,000 small entries and long bodies, judged well under 1 GiB',
  async () => {
    const { live, har } = await recordMutant('reference');
    const doc = readHar(har);
    const file = join(live.dir, 'large.har');
    const fd = openSync(file, 'w');
    const { entries, ...log } = doc.log;
    writeSync(fd, `{"log":${JSON.stringify(log).slice(0, -1)},"entries":[`);
    const put = (e: unknown, first = false): void => void writeSync(fd, `${first ? '' : ','}${JSON.stringify(e)}`);
    entries.forEach((e, i) => put(e, i === 0));
    const origin = new URL(entries[0]!.request.url).origin;
    // A page's requests for details the checks never ask for: one index entry each.
    let batch: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      batch.push(
        `,${JSON.stringify({
          startedDateTime: '2026-01-01T00:00:00Z',
          time: 1,
          request: {
            method: 'GET',
            url: `${origin}/open/dishes/${5_000_000 + i}`,
            headers: [{ name: 'open-token', value: 'REDACTED_token' }],
          },
          response: {
            status: 404,
            headers: [],
            content: {
              size: 52,
              mimeType: 'application/json',
              text: '{"status":"ERROR","code":404,"msg":"Record not found"}',
            },
          },
        })}`,
      );
      if (batch.length === 5000) {
        writeSync(fd, batch.join(''));
        batch = [];
      }
    }
    // Assets with long bodies, plain and base64: each past the in-memory bound, to files of their own.
    const plain = 'x'.repeat(6 * 1024 * 1024);
    const base64 = randomBytes(4 * 1024 * 1024).toString('base64');
    for (let i = 0; statSync(file).size < 300 * 1024 * 1024; i++)
      put({
        startedDateTime: '2026-01-01T00:00:00Z',
        time: 1,
        request: { method: 'GET', url: `https://cdn.example/asset/${i}`, headers: [] },
        response: {
          status: 200,
          headers: [],
          content:
            i % 2
              ? { size: plain.length, mimeType: 'text/plain', text: plain }
              : { size: 0, mimeType: 'application/octet-stream', text: base64, encoding: 'base64' },
        },
      });
    writeSync(fd, ']}}');
    closeSync(fd);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(300 * 1024 * 1024);
    const dir = tempDir('large-har-');
    const run = peakMiB([BIN, 'check-har', file, '-q'], dir);
    // 300 MB left in /tmp by every run of the tests would add up.
    rmSync(file, { force: true });
    // The recording's own answers are all there: the run's verdict, whatever came beside them.
    expect(run.stdout).toMatch(/^CONFORMANT \(from a recording\)/m);
    expect(run.code).toBe(0);
    expect(run.mib).toBeLessThan(1024);
    console.log(`check-har of a ${(size / 2 ** 20).toFixed(0)} MiB HAR: peak ${run.mib.toFixed(0)} MiB`);
  },
  300_000,
);
