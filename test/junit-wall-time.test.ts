import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckRecord } from '../core/model/report.js';
import { loadMeter } from '../reference/hostile.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

/** Each <testsuite>'s name, time and its testcases' times, as junit.xml says them. */
function suitesOf(xml: string): { area: string; time: number; cases: number[] }[] {
  return [...xml.matchAll(/<testsuite name="([^"]+)"[^>]* time="([\d.]+)"[^>]*>([\s\S]*?)<\/testsuite>/g)].map(
    ([, area, time, body]) => ({
      area: area!,
      time: Number(time),
      cases: [...body!.matchAll(/<testcase [^>]*time="([\d.]+)"/g)].map((m) => Number(m[1])),
    }),
  );
}

const end = (c: CheckRecord): number => c.start_ms! + c.duration_ms;

describe("JUnit's times are wall times of the run's clock", () => {
  test('an area whose checks run one by one in a later phase: its time is its first start to its last end, not its longest check', async () => {
    // Every answer 25 ms late, so each check takes measurable time; the readonly area's two checks run one after the
    // other after every other area's checks have ended (core/engine/engine.ts phasesOf).
    await withServer(
      [loadMeter(25)],
      async (srv) => {
        const run = await runCli([...targetArgs(srv), '--only', 'RO-*', '--only', 'ENV-*', '--only', 'ERR-*'], {
          env: targetEnv,
        });
        expect(run.code, run.stdout + run.stderr).toBe(0);
        const report = run.report!;
        const xml = readFileSync(join(run.dir, 'conformance-report', 'junit.xml'), 'utf8');
        // Every check that ran says when it started, on the run's clock.
        for (const c of report.checks) {
          expect(c.start_ms, c.id).toBeGreaterThanOrEqual(0);
          expect(end(c), c.id).toBeLessThanOrEqual(report.duration_ms);
        }
        const ro = report.checks.filter((c) => c.area === 'readonly');
        const others = report.checks.filter((c) => c.area !== 'readonly');
        expect(ro.map((c) => c.id).sort()).toEqual(['RO-01', 'RO-02']);
        // The later phase: readonly starts once every other check has ended, and its checks one after the other.
        expect(Math.min(...ro.map((c) => c.start_ms!))).toBeGreaterThanOrEqual(Math.max(...others.map(end)) - 1);
        const [first, second] = [...ro].sort((a, b) => a.start_ms! - b.start_ms!);
        expect(second!.start_ms!).toBeGreaterThanOrEqual(end(first!) - 1);

        const suites = suitesOf(xml);
        expect(suites.map((s) => s.area).sort()).toEqual([...new Set(report.checks.map((c) => c.area))].sort());
        for (const s of suites) {
          const checks = report.checks.filter((c) => c.area === s.area);
          const span = Math.max(...checks.map(end)) - Math.min(...checks.map((c) => c.start_ms!));
          expect(s.time, s.area).toBeCloseTo(span / 1000, 2);
        }
        // Two sequential checks: the area's wall time is more than its longest check's.
        const readonly = suites.find((s) => s.area === 'readonly')!;
        expect(readonly.time).toBeGreaterThan(Math.max(...readonly.cases) + 0.02);
        // The whole: the run's wall time.
        const total = Number(/<testsuites [^>]*time="([\d.]+)"/.exec(xml)![1]);
        expect(total).toBeCloseTo(report.duration_ms / 1000, 3);
      },
      { https: false },
    );
  }, 120_000);
});
