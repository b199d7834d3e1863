import type { CheckHead } from '../core/model/report.js';

/**
 * Every check's head (id, title, level, spec, area), in the catalogue's order. The commands that judge reports
 * without running a check (verify, merge, diff, --list) need them; the suites are loaded only when asked.
 */
export async function loadCheckHeads(): Promise<CheckHead[]> {
  const { ALL_CHECKS } = await import('../suites/index.js');
  return ALL_CHECKS.map(({ id, title, level, spec, area }) => ({ id, title, level, spec, area }));
}
