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
