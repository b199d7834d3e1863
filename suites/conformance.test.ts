/**
 * The Vitest entry of a conformance run: one test per check, grouped by area. The CLI starts Vitest on this file
 * alone and provides the run's config; the checks themselves are declared as data in the area modules.
 */
import { afterAll, describe, inject, test } from 'vitest';
import { AREAS } from '../src/check.js';
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
 */
const ordered = [...AREAS.filter((a) => a !== 'readonly'), 'readonly' as const];

for (const area of ordered) {
  const checks = selected.filter((c) => c.area === area);
  if (!checks.length) continue;
  const concurrent = area !== 'readonly';
  describe(area, { concurrent }, () => {
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
