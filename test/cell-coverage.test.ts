/**
 * #35: CONFORMANT only when every cell of the rule matrix the suite probes was probed in this run; a run that probed
 * less says PARTIAL and how many cells it left, and report.json carries the cells per rule.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from './helpers/cli.js';
import { CELLS, matrixCounts, runMatrix } from '../suites/rules/index.js';
import { cellCoverageOf, type Report } from '../core/model/report.js';

const reportOf = (dir: string): Report =>
  JSON.parse(readFileSync(join(dir, 'conformance-report', 'report.json'), 'utf8')) as Report;

describe('the rule matrix in the verdict', () => {
  test('a whole demo run probes every cell the suite probes: CONFORMANT, the cells in report.json', async () => {
    const run = await runCli(['--demo', '--seed', '1']);
    expect(run.code).toBe(0);
    const r = reportOf(run.dir);
    expect(r.verdict).toBe('conformant');
    const n = matrixCounts();
    expect(r.coverage.cellsApplicable).toBe(n.cells - n.notApplicable);
    expect(r.coverage.cellsGaps).toBe(n.notProbed);
    expect(r.coverage.cellsProbed).toBe(n.probed);
    const token = r.coverage.rules!.find((x) => x.rule === '§4 rule 4, §5.4')!;
    expect(token.applicable).toBeGreaterThan(1000);
    expect(token.probed).toBe(token.applicable);
    expect(r.coverage.rules!.reduce((a, x) => a + x.applicable, 0)).toBe(r.coverage.cellsApplicable);
  }, 120_000);

  test('a run that leaves a SHOULD check out probes fewer cells: PARTIAL, and it says how many', async () => {
    const run = await runCli(['--demo', '--seed', '1', '--skip', 'SEC-02']);
    expect(run.code).toBe(0);
    const r = reportOf(run.dir);
    // Every MUST check ran and passed: only the cells make it PARTIAL.
    expect(r.coverage.not_run).toEqual([]);
    expect(r.verdict).toBe('partial');
    const left = r.coverage.cellsApplicable! - r.coverage.cellsGaps! - r.coverage.cellsProbed!;
    expect(left).toBeGreaterThan(0);
    expect(r.verdict_reason).toBe(
      `${left} of the rule matrix's ${r.coverage.cellsApplicable} applicable cells not probed`,
    );
    expect(run.stdout).toContain(`PASSED, PARTIAL: ${left} of the rule matrix's`);
  }, 120_000);

  test('a cell counts only for a configured application, and only when one of its checks ran to its end', () => {
    const config = { fuzz: { runs: 50 } };
    const passed = (id: string) => ({ id, status: 'passed' }) as never;
    const all = [
      ...new Set(CELLS.flatMap((c) => (c.outcome?.kind === 'probed' ? c.outcome.by.map((p) => p.check) : []))),
    ];
    const alone = cellCoverageOf(runMatrix(config), all.map(passed));
    const three = cellCoverageOf(runMatrix({ ...config, other_app: {}, disabled_app: {} }), all.map(passed));
    expect(alone.cellsProbed).toBeLessThan(three.cellsProbed);
    expect(three.cellsProbed).toBe(matrixCounts().probed);
    const skipped = cellCoverageOf(runMatrix({ ...config, other_app: {}, disabled_app: {} }), [
      ...all.filter((id) => id !== 'UNAUTH-DISHES').map(passed),
      { id: 'UNAUTH-DISHES', status: 'skipped' } as never,
    ]);
    const token = (c: typeof skipped) => c.rules.find((x) => x.rule === '§4 rule 4, §5.4')!.probed;
    // The cells of /dishes and its path spellings (16 ways × 5 places × 3 applications, less HEAD) are UNAUTH-DISHES' alone.
    expect(token(three) - token(skipped)).toBe(16 * 5 * 3 + 4);
  });
});
