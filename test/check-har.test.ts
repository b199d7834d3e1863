import { createServer } from 'node:http';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { MUTANTS } from '../reference/mutants/index.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { failedIds, runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import type { Variant } from '../reference/server.js';

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
function recordMutant(name: string): ReturnType<typeof recordRun> {
  let run = recorded.get(name);
  if (!run) {
    run = recordRun(name === 'reference' ? [] : [MUTANTS.find((x) => x.name === name)!]);
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

// One mutant per kind of evidence a recording holds: a secret in data, a list/detail difference, another merchant's
// record, bytes that are not UTF-8, an error code, the plain-HTTP origin.
const MUTANT_NAMES = [
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
      expect(off.code).toBe(live.code);
    });
  }

  test('the conforming reference server: no failure offline, the same verdict as live', async () => {
    const { live, har } = await recordMutant('reference');
    const off = await checkHar(har);
    expect(failedIds(off.report)).toEqual([]);
    expect(off.report!.verdict).toBe(live.report!.verdict);
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

test('check-har sends no request: the recording names a live server, which sees nothing', async () => {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { live, har } = await recordMutant('reference');
    const port = (server.address() as { port: number }).port;
    const text = readFileSync(har, 'utf8').replace(/https:\/\/127\.0\.0\.1:\d+/g, `http://127.0.0.1:${port}`);
    const file = join(live.dir, 'local.har');
    writeFileSync(file, text);
    const off = await checkHar(file);
    expect(off.report!.checks.filter((c) => c.status === 'passed').length).toBeGreaterThan(40);
    expect(hits).toBe(0);
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
});
