import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { packageRoot } from '../core/base/paths.js';
import { cellText, checkFiles, listedStatements, statementsOf, WAYS_BLOCK } from '../bench/failure-statements.js';

// docs/mutation.md's table of failure statements (npm run ways) lists every one the checks' code has, and no other:
// a failure branch added or reworded shows here until the table is measured again. Which mutants reach each is a
// measurement of every mutant under V8's coverage (about half a minute), which the script makes and no test repeats.
test('docs/mutation.md lists every failure statement of the checks (npm run ways)', () => {
  const inCode = checkFiles(packageRoot)
    .flatMap((f) => statementsOf(f, packageRoot))
    .map(({ stmt }) => `${stmt.file} ${cellText(stmt.text)}`)
    .sort();
  const doc = readFileSync(join(packageRoot, 'docs', 'mutation.md'), 'utf8');
  const block = doc.slice(doc.indexOf(`<!-- ${WAYS_BLOCK}:begin`), doc.indexOf(`<!-- ${WAYS_BLOCK}:end`));
  expect(inCode.length).toBeGreaterThan(50);
  expect(listedStatements(block).sort(), 'the table is stale: run `npm run ways`').toEqual(inCode);
});
