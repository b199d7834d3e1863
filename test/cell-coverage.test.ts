/**
 * #35: CONFORMANT only when every applicable cell of the rule matrix was probed in this run (a cell no check of the
 * suite probes, a gap, counts as not probed); a run that probed less says PARTIAL and how many cells it left, and
 * report.json carries the cells per rule.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from './helpers/cli.js';
import { CELLS, matrixCounts, runMatrix } from '../suites/rules/index.js';
import { buildReport, cellCoverageOf, checkRecord, type Report, type RunMatrix } from '../core/model/report.js';
import { ALL_CHECKS } from '../suites/index.js';

const reportOf = (dir: string): Report =>
  JSON.parse(readFileSync(join(dir, 'conformance-report', 'report.json'), 'utf8')) as Report;

describe('the rule matrix in the verdict', () => {
  test('a whole demo run probes every applicable cell: CONFORMANT, the cells in report.json', async () => {
    const run = await runCli(['--demo', '--seed', '1']);
    expect(run.code).toBe(0);
    const r = reportOf(run.dir);
    expect(r.verdict).toBe('conformant');
    const n = matrixCounts();
    // The matrix has no gap: every applicable cell is probed by some check, and this run probed all of them.
    expect(n.notProbed).toBe(0);
    expect(r.coverage.cellsApplicable).toBe(n.cells - n.notApplicable);
    expect(r.coverage.cellsGaps).toBe(0);
    expect(r.coverage.cellsProbed).toBe(n.probed);
    expect(r.coverage.cellsProbed).toBe(r.coverage.cellsApplicable);
    expect(r.verdict_reason).toBe(
      `every MUST check of the catalogue ran and passed (${r.coverage.must_total}), and probed every applicable cell of the rule matrix (${n.probed} of ${n.probed}, docs/rules.md)`,
    );
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
    const left = r.coverage.cellsApplicable! - r.coverage.cellsProbed!;
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

  test('a cell no check of the suite probes (a gap of the matrix) counts as not probed: PARTIAL, never CONFORMANT', () => {
    const config = { fuzz: { runs: 50 }, other_app: {}, disabled_app: {} };
    // Every check of the catalogue ran and passed, for all three applications.
    const records = ALL_CHECKS.map((c) =>
      checkRecord(c, { status: 'passed', message: 'passed', evidence: [], notes: [], duration_ms: 0 }),
    );
    const verdict = (matrix: RunMatrix) =>
      buildReport({
        checks: records,
        baseUrl: 'https://h/open',
        startedAt: new Date(0),
        durationMs: 0,
        strict: false,
        catalogue: ALL_CHECKS,
        fuzz: { seed: 1, runs: 50 },
        config: {},
        errors: [],
        matrix,
      });
    const full = runMatrix(config);
    expect(verdict(full).verdict).toBe('conformant');
    // The same run against a matrix where one applicable cell is a gap (the body way before h35b, say).
    const at = full.cells.findIndex((c) => c.kind === 'probed' && c.checks.includes('AUTH-06'));
    const gapped: RunMatrix = {
      ...full,
      cells: full.cells.map((c, i) => (i === at ? { ...c, kind: 'gap' as const, checks: [] } : c)),
    };
    const r = verdict(gapped);
    expect(r.coverage.cellsGaps).toBe(1);
    expect(r.coverage.cellsProbed).toBe(r.coverage.cellsApplicable! - 1);
    expect(r.coverage.complete).toBe(false);
    expect(r.verdict).toBe('partial');
    expect(r.verdict_reason).toBe(
      `1 of the rule matrix's ${r.coverage.cellsApplicable} applicable cells not probed (1 of them by no check of the suite, docs/rules.md)`,
    );
    // --strict: a PARTIAL run does not pass.
    expect(
      buildReport({
        ...{
          checks: records,
          baseUrl: 'https://h/open',
          startedAt: new Date(0),
          durationMs: 0,
          catalogue: ALL_CHECKS,
          fuzz: { seed: 1, runs: 50 },
          config: {},
          errors: [],
        },
        strict: true,
        matrix: gapped,
      }).exit_code,
    ).toBe(3);
  });
});
