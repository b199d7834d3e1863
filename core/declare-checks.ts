import { describe, test } from 'vitest';
import { AREAS, type Check, type CheckResult } from './check.js';
import { untrustedLine } from './untrusted-text.js';

/** A conformance run as the declared tests use it (core/run.ts createRun). */
export interface ConformanceRun {
  check(c: Check): Promise<CheckResult>;
  close(): Promise<void>;
}

/** What the report needs to know of a run, carried on each test's meta so a reporter in another process has it. */
export interface RunInfo {
  base_url: string;
  fuzz: { seed: number; runs: number };
  config: Record<string, unknown>;
  strict: boolean;
}

/** The checks named by --only (ids, or prefixes ending in *); all when none is named. */
export function selectChecks(all: Check[], only: string[]): Check[] {
  return only.length
    ? all.filter((c) => only.some((p) => c.id === p || (p.endsWith('*') && c.id.startsWith(p.slice(0, -1)))))
    : all;
}

/**
 * Declares one Vitest test per check, grouped by area: the CLI's entry (suites/conformance.test.ts) and library mode
 * (app/vitest.ts) both declare through here. A test's outcome follows the check's level: a MUST failure, a check
 * that could not finish (incomplete) or an error of the suite fails the test; a SHOULD failure is a warning annotation on a passing test (it never gates); a skip
 * carries its reason. The whole result travels in task.meta for the reporters.
 *
 * Every area runs at once, each check as soon as what it needs has arrived (requests are capped by the client,
 * not by grouping). Only 'readonly' waits until all else is done and runs its checks one by one: its unsafe
 * methods are the one thing that may change a broken server's data, and no other check may read that change.
 * Last come the checks that call /auth again (Check.mintsTokens): a server may end the run's token when it issues a
 * new one (§5.6), and by then no other check needs it. The MUST and SHOULD ones first, all at once: they only judge
 * their own /auth answers. Then the profile's (INFO), one by one, since they use the run's token before calling
 * /auth; its own token-lifetime probe very last.
 * @param run the run, asked for when a test starts (library mode creates it in a beforeAll)
 */
export function declareChecks(selected: Check[], run: () => ConformanceRun, info?: () => RunInfo): void {
  const profileOrder = (c: Check): number => (c.area === 'auth' ? 1 : 0);
  const phases: Array<{ area: string; concurrent: boolean; checks: Check[] }> = [
    ...AREAS.filter((a) => a !== 'readonly').map((a) => ({
      area: a,
      concurrent: true,
      checks: selected.filter((c) => c.area === a && !c.mintsTokens),
    })),
    { area: 'readonly', concurrent: false, checks: selected.filter((c) => c.area === 'readonly' && !c.mintsTokens) },
    { area: 'token-minting', concurrent: true, checks: selected.filter((c) => c.mintsTokens && c.level !== 'INFO') },
    {
      area: 'token-minting profile',
      concurrent: false,
      checks: selected
        .filter((c) => c.mintsTokens && c.level === 'INFO')
        .sort((a, b) => profileOrder(a) - profileOrder(b)),
    },
  ];
  for (const { area, concurrent, checks } of phases) {
    if (!checks.length) continue;
    describe(area, { concurrent }, () => {
      for (const check of checks) {
        const meta = {
          check: { id: check.id, title: check.title, level: check.level, spec: check.spec, area: check.area },
        };
        test(`${check.id} ${check.title}`, { meta, concurrent }, async ({ task, skip, annotate }) => {
          const result = await run().check(check);
          task.meta.result = result;
          if (info) task.meta.run = info();
          // Vitest prints these into the terminal and the CI log (and as annotations under GITHUB_ACTIONS): they
          // quote the server, so they carry the escaped line. The meta keeps the message for the reporters.
          const message = untrustedLine(result.message);
          if (result.status === 'skipped') skip(message);
          // Incomplete (no usable response) is no pass either: nothing was judged.
          if (
            result.status === 'error' ||
            result.status === 'incomplete' ||
            (result.status === 'failed' && check.level === 'MUST')
          )
            throw new Error(message);
          if (result.status === 'failed')
            await annotate(`${check.level} not met (warning, does not gate): ${message}`, 'warning');
        });
      }
    });
  }
}
