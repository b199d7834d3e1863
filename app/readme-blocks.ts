import { join } from 'node:path';
import { MUTANTS } from '../reference/mutants/index.js';
import { ALL_CHECKS } from '../suites/index.js';
import { catalogueMarkdown, optionsMarkdown, replaceBlock, writeBlock } from './catalogue.js';

/**
 * The README's mutation score, from the mutants' declarations: which MUST and SHOULD checks a mutant of the reference
 * server fails, and which a mutant fails alone. test/mutants.test.ts proves each declaration (every mutant is caught
 * by exactly the checks it names), so the score holds whenever that test passes.
 */
export function mutationScoreMarkdown(): string {
  const gated = ALL_CHECKS.filter((c) => c.level !== 'INFO');
  const killed = new Set(MUTANTS.flatMap((m) => m.kills));
  const killedAlone = new Set(MUTANTS.filter((m) => m.kills.length === 1).map((m) => m.kills[0]!));
  const covered = gated.filter((c) => killed.has(c.id));
  const alone = gated.filter((c) => killedAlone.has(c.id));
  const missing = gated.filter((c) => !killed.has(c.id)).map((c) => c.id);
  const notAlone = covered.filter((c) => !killedAlone.has(c.id)).map((c) => c.id);
  return (
    `**Mutation score: ${covered.length} / ${gated.length}** MUST and SHOULD checks are killed by a mutant ` +
    `of the reference server (${MUTANTS.length} mutants); ${alone.length} of them by a mutant that only they catch.` +
    (missing.length ? ` Not yet killed: ${missing.join(', ')}.` : '') +
    (notAlone.length ? ` Never caught alone: ${notAlone.join(', ')}.` : '') +
    '\n'
  );
}

/** Every generated block of the README, by marker name, each from the declarations it shows. */
export const README_BLOCKS: Record<string, () => string> = {
  catalogue: catalogueMarkdown,
  options: optionsMarkdown,
  'mutation-score': mutationScoreMarkdown,
};

/** The README's block of the checks' own mutation score (Stryker), apart from README_BLOCKS: see writeStrykerScoreBlock. */
export const STRYKER_SCORE_BLOCK = 'stryker-score';

/**
 * Writes the checks' own mutation score into the README; returns true when it changed. `npm run mutation` calls it
 * with the score of Stryker's report (app/mutation-report.ts), not `npm run readme`: that report is not in the
 * repository and takes half an hour to make, so the block is not among README_BLOCKS, which a test compares.
 */
export function writeStrykerScoreBlock(root: string, markdown: string): boolean {
  return writeBlock(join(root, 'README.md'), STRYKER_SCORE_BLOCK, markdown);
}

/** The blocks of a README text that differ from what the code generates (empty when it is current). */
export function staleBlocks(text: string): string[] {
  return Object.entries(README_BLOCKS)
    .filter(([name, make]) => replaceBlock(text, name, make()) !== text)
    .map(([name]) => name);
}

/** Writes every generated block into the README (`npm run readme`); returns the names of the blocks it changed. */
export function writeReadmeBlocks(root: string): string[] {
  const readme = join(root, 'README.md');
  return Object.entries(README_BLOCKS)
    .filter(([name, make]) => writeBlock(readme, name, make()))
    .map(([name]) => name);
}
