/**
 * The Vitest entry of a conformance run: one test per check, grouped by area. The CLI starts Vitest on this file
 * alone and provides the run's config; the checks themselves are declared as data in the area modules.
 */
import { afterAll, describe, inject, test } from 'vitest';
import { AREAS, type Check } from '../src/check.js';
import { createRun } from '../src/run.js';
import { ALL_CHECKS } from './index.js';

const only = new Set(inject('conformanceOnly'));
const selected = ALL_CHECKS.filter((c) => only.has(c.id));

const run = createRun(inject('conformanceConfig'), selected, inject('conformanceDeadlineAt'));
afterAll(() => run.close());

/**
 * Every area runs at once, each check as soon as what it needs has arrived (requests are capped by the client,
 * not by grouping). Only 'readonly' waits until all else is done and runs its checks one by one: its unsafe
 * methods are the one thing that may change a broken server's data, and no other check may read that change.
 * Last, one by one, come the checks that call /auth again (Check.mintsTokens): a server may end the run's token
 * when it issues a new one (§5.6), and by then no other check needs it.
 */
const mintOrder = (c: Check): number => (c.level !== 'INFO' ? 0 : c.area === 'auth' ? 2 : 1);
const phases: Array<{ name: string; concurrent: boolean; checks: Check[] }> = [
  ...AREAS.filter((a) => a !== 'readonly').map((a) => ({ name: a, concurrent: true, checks: selected.filter((c) => c.area === a && !c.mintsTokens) })),
  { name: 'readonly', concurrent: false, checks: selected.filter((c) => c.area === 'readonly' && !c.mintsTokens) },
  // MUST checks first; the profile's own token-lifetime probe (INFO, auth area) very last.
  { name: 'token-minting', concurrent: false, checks: selected.filter((c) => c.mintsTokens).sort((a, b) => mintOrder(a) - mintOrder(b)) },
];

for (const { name, concurrent, checks } of phases) {
  if (!checks.length) continue;
  describe(name, { concurrent }, () => {
    for (const check of checks) {
      const meta = { check: { id: check.id, title: check.title, level: check.level, spec: check.spec, area: check.area } };
      test(`${check.id} ${check.title}`, { meta, concurrent }, async ({ task, skip }) => {
        const result = await run.check(check);
        task.meta.result = result;
        if (result.status === 'skipped') skip(result.message);
        if (result.status === 'failed' || result.status === 'error') throw new Error(result.message);
      });
    }
  });
}
