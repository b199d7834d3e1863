import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { failedIds, runCli, type CliRun } from './helpers/cli.js';
import { peakRss } from './helpers/peak-rss.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { bomBodies, codedBodies, gzipBomb, idleCloses } from '../reference/wire-variants.js';
import { ALL_CHECKS } from '../suites/index.js';
import type { Variant } from '../reference/server.js';

// `npm run build` first: the CLI runs from dist/.

/** What a run judged: each check's outcome (INFO checks time things and count requests: outcome only). */
const outcomes = (run: CliRun): Record<string, string> =>
  Object.fromEntries(run.report!.checks.map((c) => [c.id, c.outcome]));

/** A live run that records its exchanges as HAR, and the tokens the server issued during it. */
async function recorded(variants: Variant[]): Promise<{ live: CliRun; har: string; issued: string[] }> {
  return withServer(variants, async (srv) => {
    const live = await runCli([...targetArgs(srv), '--record-har', 'run.har'], { env: targetEnv });
    const issued = [...srv.world.tokens.keys()].filter(
      (t) => !srv.world.fixtures.apps.some((a) => a.tokens.includes(t)),
    );
    return { live, har: join(live.dir, 'run.har'), issued };
  });
}

describe.concurrent('bodies as they come over the wire', () => {
  test('coded bodies: a conforming run, its HAR holds the decoded bodies with every issued token redacted, and replays to the same outcomes', async () => {
    const { live, har, issued } = await recorded([codedBodies]);
    expect(live.stderr).toBe('');
    expect(failedIds(live.report)).toEqual([]);
    expect(live.code).toBe(0);
    // The server did code them (the evidence keeps the header).
    const codings = new Set(
      live.report!.checks.flatMap((c) => c.evidence.map((x) => x.response?.headers['content-encoding'])),
    );
    expect([...codings].filter(Boolean).sort()).toEqual(['br', 'deflate', 'gzip']);
    const text = readFileSync(har, 'utf8');
    const entries = (JSON.parse(text) as { log: { entries: Array<Record<string, any>> } }).log.entries;
    // app's /auth (the two applications authenticate at once: which comes first in the HAR is the network's).
    const auth = entries.find(
      (e) => /\/auth\?secret=REDACTED_public-key&/.test(e.request.url) && e.response.status === 200,
    )!;
    expect(auth.response.content.encoding).toBeUndefined();
    expect(JSON.parse(auth.response.content.text)).toMatchObject({
      status: 'SUCCESS',
      data: { app_token: 'REDACTED_token' },
    });
    expect(issued.length).toBeGreaterThan(0);
    for (const t of issued) expect(text).not.toContain(t);
    // Every recorded body is the decoded JSON, never the coded bytes.
    for (const e of entries.filter((x) => x.response.status > 0 && x.response.content.size > 0))
      expect(() => JSON.parse(e.response.content.text as string), e.request.url).not.toThrow();
    const off = await runCli(['check-har', har]);
    expect(off.stderr).toBe('');
    expect(failedIds(off.report)).toEqual([]);
    expect(off.code).toBe(live.code);
  });

  test('a byte order mark before every body: the run reads the JSON after it and fails ENV-01, and the judges of errors, ERR-04 and AUTH-07, (live and replayed)', async () => {
    const { live, har } = await recorded([bomBodies]);
    expect(live.stderr).toBe('');
    expect(live.stdout).not.toMatch(/no \/auth endpoint|check app\.secret/i);
    // Successes are ENV-01's; errors and refusals, judged as answers since #35, are ERR-04's and AUTH-07's.
    expect(failedIds(live.report)).toEqual(['AUTH-07', 'ENV-01', 'ERR-04']);
    expect(live.report!.checks.find((c) => c.id === 'ENV-01')!.message).toMatch(
      /GET \/auth: the body starts with a byte order mark \(U\+FEFF\), which a JSON sender MUST NOT add \(RFC 8259 §8\.1/,
    );
    expect(live.code).toBe(1);
    const off = await runCli(['check-har', har]);
    expect(failedIds(off.report)).toEqual(['AUTH-07', 'ENV-01', 'ERR-04']);
    expect(off.code).toBe(1);
  });
});

test.runIf(process.platform === 'linux')(
  'a gzip bomb (1 MB inflating to 1 GiB) is cut at max_body_bytes of decoded bytes, in bounded memory, and reported',
  async () => {
    await withServer(
      [gzipBomb],
      async (srv) => {
        let meter: { stop(): number } | undefined;
        const run = await runCli(targetArgs(srv, ['--timeout-ms', '20000']), {
          env: targetEnv,
          onSpawn: (pid) => {
            meter = peakRss(pid);
          },
        });
        const peakMb = meter!.stop() / 1024;
        expect(run.stderr).toBe('');
        expect(run.report, 'report.json written').toBeDefined();
        const ord = run.report!.checks.find((c) => c.id === 'ORD-01')!;
        expect(ord.outcome).toBe('incomplete');
        expect(ord.message).toMatch(
          /GET \S+\/orders: response body exceeds the 104857600-byte cap \(max_body_bytes\); aborted after \d+ bytes decoded from gzip \(Content-Encoding; \d+ bytes on the wire so far\)/,
        );
        expect(run.report!.checks.filter((c) => c.status === 'error')).toEqual([]);
        expect(run.report!.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
        for (const id of ['AUTH-01', 'DISH-01', 'SEAT-01', 'MER-01'])
          expect(run.report!.checks.find((c) => c.id === id)!.outcome).toBe('passed');
        expect(run.code).toBe(3);
        expect(peakMb, `peak RSS of the CLI: ${peakMb.toFixed(0)} MB`).toBeGreaterThan(0);
        expect(peakMb, `peak RSS of the CLI: ${peakMb.toFixed(0)} MB`).toBeLessThan(300);
      },
      { https: false },
    );
  },
  120_000,
);

test('idle connections closed at random moments: repeated runs end as the plain reference server ends, the lost GETs sent again and noted', async () => {
  const plain = await withServer([], (srv) => runCli(targetArgs(srv), { env: targetEnv }));
  expect(plain.code).toBe(0);
  const want = outcomes(plain);
  let notes = 0;
  for (let i = 0; i < 4; i++) {
    const run = await withServer([idleCloses], (srv) => runCli(targetArgs(srv), { env: targetEnv }));
    expect(run.stderr).toBe('');
    expect(outcomes(run), `run ${i + 1}`).toEqual(want);
    expect(run.code).toBe(0);
    notes += run.report!.checks.flatMap((c) =>
      c.notes.filter((n) => /closed before any byte of an answer .*; sent once more on a fresh connection/.test(n)),
    ).length;
  }
  // The race was run into (else this proved nothing), and every time the GET went out again.
  expect(notes).toBeGreaterThan(0);
}, 180_000);
