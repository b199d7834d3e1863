import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runChecks } from '../core/engine/engine.js';
import type { Check } from '../core/model/check.js';
import type { CheckRecord } from '../core/model/report.js';
import { demoConfig } from '../app/demo.js';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { ALL_CHECKS } from '../suites/index.js';
import { clientFor, type SourceOf } from '../core/engine/run.js';
import { AUTH_PATH, authQuery } from '../core/spec/auth-scheme.js';
import type { RequestSpec } from '../core/transport/exchange.js';

/**
 * The engine (core/engine/engine.ts) on the real reference server: the order of its phases as a run shows it, and a run cut
 * short (its deadline, an interruption) ends at once with every unfinished check incomplete, none failed.
 */

let srv: RunningServer;
beforeAll(async () => {
  srv = await startReferenceServer({ https: true });
});
afterAll(() => srv.close());

/** Every response of the server comes `ms` later, while `on` says so. */
function slowDown(s: RunningServer, ms: number): () => void {
  const [handler] = s.server.listeners('request') as Array<(...a: unknown[]) => void>;
  let on = true;
  s.server.removeAllListeners('request');
  s.server.on('request', (req, res) => {
    if (on) setTimeout(() => handler!.call(s.server, req, res), ms);
    else handler!.call(s.server, req, res);
  });
  return () => {
    on = false;
  };
}

const config = () => demoConfig(srv, { fuzz: { runs: 5, seed: 7 } });

describe.sequential('the engine', () => {
  test('runs the phases in order: read-only checks together, readonly one by one, and the /auth calls of the token-minting checks after every other check', async () => {
    const spans = new Map<string, { start: number; end: number }>();
    const cfg = config();
    // Each /auth as the checks send it (after the engine's hold, if any), with its query and Content-Type.
    const auths: Array<{ at: number; spec: RequestSpec }> = [];
    const source: SourceOf = (r) => {
      const client = clientFor(cfg, r);
      return {
        redactor: client.redactor,
        close: () => client.close(),
        send: (spec, chain) => {
          if (spec.path === AUTH_PATH) auths.push({ at: performance.now(), spec });
          return client.send(spec, chain);
        },
      };
    };
    const { records, errors } = await runChecks(cfg, ALL_CHECKS, source, {
      onStart: (c) => spans.set(c.id, { start: performance.now(), end: Infinity }),
      onRecord: (r) => (spans.get(r.id)!.end = performance.now()),
    });
    expect(errors).toEqual([]);
    // The reference server conforms: no check fails, every one ran and ended.
    expect(records.filter((r) => r.outcome === 'failed' || r.outcome === 'warned' || r.outcome === 'error')).toEqual(
      [],
    );
    expect(records.map((r) => r.id)).toEqual(ALL_CHECKS.map((c) => c.id));
    const of = (pick: (c: Check) => boolean) => ALL_CHECKS.filter(pick).map((c) => ({ id: c.id, ...spans.get(c.id)! }));
    const readOnly = of((c) => !c.mintsTokens && c.area !== 'readonly');
    const unsafe = of((c) => !c.mintsTokens && c.area === 'readonly');
    const minting = of((c) => !!c.mintsTokens);
    expect([readOnly, unsafe, minting].map((p) => p.length > 1)).toEqual([true, true, true]);
    const lastEnd = (p: typeof readOnly) => Math.max(...p.map((s) => s.end));
    const firstStart = (p: typeof readOnly) => Math.min(...p.map((s) => s.start));
    // Read-only checks start together; the readonly phase only after every one of them ended, one by one.
    expect(Math.max(...readOnly.map((s) => s.start)) - firstStart(readOnly)).toBeLessThan(
      lastEnd(readOnly) - firstStart(readOnly),
    );
    expect(firstStart(unsafe)).toBeGreaterThanOrEqual(lastEnd(readOnly));
    const inTurn = [...unsafe].sort((a, b) => a.start - b.start);
    for (let i = 1; i < inTurn.length; i++) expect(inTurn[i]!.start).toBeGreaterThanOrEqual(inTurn[i - 1]!.end);
    // The token-minting checks start with the run (what they read with the run's token comes early) ...
    expect(Math.max(...minting.map((s) => s.start))).toBeLessThan(lastEnd(readOnly));
    // ... and every /auth of theirs is sent after every other check has ended: the wrong or incomplete key pairs
    // (AUTH-06/07/08), the one without Content-Type, and the profile's two new tokens of app. Before that, only the
    // run's own /auth per application, AUTH-09's disabled pair and the /auth requests with no key at all (no token
    // can come of them): the errors' (without a token and with other_app's and the disabled application's), AUTH-10's
    // with the disabled application's token, TRANS-03's over plain HTTP.
    const { app, other_app, disabled_app } = cfg;
    const valid = [app, other_app!, disabled_app!].map((a) =>
      JSON.stringify(authQuery({ secret: a.secret!, key: a.key! })),
    );
    const ownRun = (s: RequestSpec) =>
      s.contentType !== false && (s.query === undefined || valid.includes(JSON.stringify(s.query)));
    const othersEnded = Math.max(lastEnd(readOnly), lastEnd(unsafe));
    const before = auths.filter((a) => a.at < othersEnded);
    expect(
      before.every((a) => ownRun(a.spec)),
      JSON.stringify(before.map((a) => a.spec.query)),
    ).toBe(true);
    // 4 before #35; +2 the errors' with other_app's and the disabled application's tokens, +2 AUTH-10's and TRANS-03's.
    expect(before).toHaveLength(8);
    const after = auths.filter((a) => a.at >= othersEnded);
    expect(after.filter((a) => !ownRun(a.spec)).length).toBeGreaterThanOrEqual(10);
    expect(after.filter((a) => JSON.stringify(a.spec.query) === valid[0] && a.spec.contentType !== false)).toHaveLength(
      2,
    );
  });

  const neverFailed = (records: CheckRecord[]): void => {
    expect(
      records.filter((r) => r.status === 'failed' || r.status === 'error').map((r) => `${r.id}: ${r.message}`),
    ).toEqual([]);
  };

  test('at the deadline every unfinished check is incomplete, never failed, and the run ends at once', async () => {
    const fast = slowDown(srv, 400);
    try {
      const t0 = Date.now();
      const { records, errors } = await runChecks(config(), ALL_CHECKS, undefined, { deadlineAt: t0 + 600 });
      expect(Date.now() - t0).toBeLessThan(600 + 800);
      neverFailed(records);
      expect(records).toHaveLength(ALL_CHECKS.length);
      const unfinished = records.filter((r) => r.status === 'incomplete');
      expect(unfinished.length).toBeGreaterThan(ALL_CHECKS.length / 2);
      expect(unfinished.every((r) => /deadline|not finished|could not finish/.test(r.message))).toBe(true);
      expect(errors).toEqual([
        expect.stringMatching(/^the run's deadline .* passed: \d+ of \d+ checks did not finish$/),
      ]);
    } finally {
      fast();
    }
  });

  test('an interruption (AbortSignal) ends the run at once: what did not finish is incomplete with its reason', async () => {
    const fast = slowDown(srv, 400);
    try {
      const stop = new AbortController();
      const t0 = Date.now();
      setTimeout(() => stop.abort('interrupted by SIGINT'), 300);
      const begun = new Set<string>();
      const { records, errors } = await runChecks(config(), ALL_CHECKS, undefined, {
        signal: stop.signal,
        onStart: (c) => begun.add(c.id),
      });
      expect(Date.now() - t0).toBeLessThan(300 + 500);
      // On the run's clock: a check cut short while it ran took its time up to the stop; one never started has no start.
      expect(records.filter((r) => r.start_ms !== undefined).map((r) => r.id)).toEqual(
        records.filter((r) => begun.has(r.id)).map((r) => r.id),
      );
      const cut = records.filter((r) => r.status === 'incomplete' && r.start_ms !== undefined);
      expect(cut.length).toBeGreaterThan(0);
      for (const r of cut) expect(r.start_ms! + r.duration_ms, r.id).toBeGreaterThanOrEqual(250);
      neverFailed(records);
      const unfinished = records.filter((r) => r.status === 'incomplete');
      expect(unfinished.length).toBeGreaterThan(ALL_CHECKS.length / 2);
      expect(unfinished.every((r) => r.message === 'not finished: interrupted by SIGINT')).toBe(true);
      expect(errors).toEqual([
        `interrupted by SIGINT: ${unfinished.length} of ${ALL_CHECKS.length} checks did not finish`,
      ]);
    } finally {
      fast();
    }
  });

  test('tells onProgress its count of requests while it runs and once at its end, as messages (no file)', async () => {
    // 20 ms an answer: about 4 s of run, several counts 500 ms apart.
    const fast = slowDown(srv, 20);
    try {
      const seen: Array<{ sent: number; settled: number; planned?: number }> = [];
      const { records } = await runChecks(config(), ALL_CHECKS, undefined, { onProgress: (p) => seen.push(p) });
      expect(records.every((r) => r.status !== 'failed')).toBe(true);
      // At least one count while the run went on (every 500 ms), and the last one once every request had settled.
      expect(seen.length).toBeGreaterThanOrEqual(2);
      const last = seen.at(-1)!;
      expect(last.sent).toBeGreaterThan(50);
      expect(last.settled).toBe(last.sent);
      expect(seen[0]!.sent).toBeLessThan(last.sent);
    } finally {
      fast();
    }
  });
});
