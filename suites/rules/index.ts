import type { MatrixCell, RunMatrix } from '../../core/model/report.js';
import { FIELD_RULES } from './fields.js';
import { cellsOf, type Cell, type Rule } from './model.js';
import { PROTOCOL_RULES } from './protocol.js';
import { TOKEN_RULE } from './tokens.js';

export * from './model.js';

/** Every rule of the spec the matrix holds, in the order docs/rules.md lists them. */
export const RULES: Rule[] = [...PROTOCOL_RULES, ...FIELD_RULES].flatMap((r) =>
  // The token check beside §4's other numbered rules.
  r.id === '§4 rule 3' ? [r, TOKEN_RULE] : [r],
);

/** Every cell of the matrix. */
export const CELLS: Cell[] = RULES.flatMap(cellsOf);

/**
 * The matrix in numbers: rules, cells, how many are probed (proven by a mutant or not), not probed (a gap, with why)
 * and not applicable (by a quoted sentence).
 */
export function matrixCounts(cells: readonly Cell[] = CELLS): {
  rules: number;
  cells: number;
  probed: number;
  proven: number;
  notProbed: number;
  notApplicable: number;
} {
  const probed = cells.filter((c) => c.outcome?.kind === 'probed');
  return {
    rules: new Set(cells.map((c) => c.rule)).size,
    cells: cells.length,
    probed: probed.length,
    proven: probed.filter((c) => c.outcome?.kind === 'probed' && c.outcome.by.some((p) => p.mutants.length)).length,
    notProbed: cells.filter((c) => c.outcome?.kind === 'not probed').length,
    notApplicable: cells.filter((c) => c.outcome?.kind === 'not applicable').length,
  };
}

/**
 * The matrix as the verdict reads it (core/model/report.ts): each cell's kind and the checks that probe it in a run.
 * A cell probed only from more fuzz runs than the run had, or only in some runs by a scope the run lacks, is left to
 * its checks' own outcome (a check that needs unsafe_methods or other_app is skipped without it).
 */
export function matrixCells(fuzzRuns: number): MatrixCell[] {
  return CELLS.map((c): MatrixCell => {
    const o = c.outcome;
    if (!o || o.kind === 'not probed') return { rule: c.rule, kind: 'gap', checks: [], app: c.app };
    if (o.kind === 'not applicable') return { rule: c.rule, kind: 'not applicable', checks: [], app: c.app };
    const from = /from --fuzz-runs (\d+)/.exec(o.scope ?? '');
    return {
      rule: c.rule,
      kind: 'probed',
      checks: from && Number(from[1]) > fuzzRuns ? [] : o.by.map((p) => p.check),
      app: c.app,
    };
  });
}

/** The matrix of a run with this configuration: its cells, and the applications it has configured. */
export function runMatrix(config: { other_app?: unknown; disabled_app?: unknown; fuzz: { runs: number } }): RunMatrix {
  return {
    cells: matrixCells(config.fuzz.runs),
    apps: ['app', ...(config.other_app ? ['other_app'] : []), ...(config.disabled_app ? ['disabled_app'] : [])],
  };
}
