/**
 * `npm run ways`: which failure statement of the checks each mutant of the reference server reaches (issue 27,
 * "proof per way"). Every mutant is run against every check as `test/mutants.test.ts` runs it, in a child process
 * with V8's coverage on, one coverage snapshot per mutant (`v8.takeCoverage` resets the counts); then every failure
 * statement of the checks (`ctx.fail(`, `found.add(`, `found.push(`, `problems.push(` in `suites/` and the judging
 * helpers of `core/model/assertions.ts`) is looked up in each snapshot. Writes the table into docs/mutation.md
 * (block `failure-ways`): a measurement like the bench's. test/failure-ways.test.ts compares only which statements
 * the table lists (bench/failure-statements.ts finds them in the code), not what reached them.
 *
 *   npm run ways            (about a minute: one run of every check per mutant)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { packageRoot } from '../core/base/paths.js';
import { writeBlock } from '../app/catalogue.js';
import { AUTH_PATH, TOKEN_FIELD } from '../core/spec/auth-scheme.js';
import { cellText, isCheckFile, statementsOf, WAYS_BLOCK, type StatementAt } from './failure-statements.js';

/** What the child writes beside its snapshots: per snapshot after the first, the run it covers. */
interface RunOfSnapshot {
  mutant: string | undefined;
  kills: string[];
  failed: string[];
}

/** A statement that fails a check, where it is, and the mutants whose run reached it. */
interface FailureStatement extends StatementAt {
  reachedBy: RunOfSnapshot[];
}

/** The child: every mutant (after one run of the reference server) against every check, a snapshot after each. */
async function runMutants(out: string): Promise<void> {
  const { runEveryCheck } = await import('../app/check-recordings.js');
  const { MUTANTS } = await import('../reference/mutants/index.js');
  const runs: RunOfSnapshot[] = [];
  v8.takeCoverage(); // the modules' load: no run
  for (const m of [undefined, ...MUTANTS]) {
    const { records } = await runEveryCheck(m ? [m] : []);
    const failed = records.filter((r) => r.status === 'failed' || r.status === 'error').map((r) => r.id);
    runs.push({ mutant: m?.name, kills: m ? [...m.kills] : [], failed });
    v8.takeCoverage();
  }
  writeFileSync(join(out, 'runs.json'), JSON.stringify(runs));
}

interface ScriptCoverage {
  url: string;
  functions: Array<{ ranges: Array<{ startOffset: number; endOffset: number; count: number }> }>;
}

/** The count V8 gives the innermost block around `offset`. */
function countAt(script: ScriptCoverage, offset: number): number {
  let best: { startOffset: number; endOffset: number; count: number } | undefined;
  for (const fn of script.functions)
    for (const r of fn.ranges)
      if (
        r.startOffset <= offset &&
        offset < r.endOffset &&
        (!best || r.endOffset - r.startOffset <= best.endOffset - best.startOffset)
      )
        best = r;
  return best?.count ?? 0;
}

function analyse(dir: string, root: string): FailureStatement[] {
  const runs = JSON.parse(readFileSync(join(dir, 'runs.json'), 'utf8')) as RunOfSnapshot[];
  const seq = (f: string): number => Number(/-(\d+)\.json$/.exec(f)?.[1] ?? -1);
  const snapshots = readdirSync(dir)
    .filter((f) => f.startsWith('coverage-'))
    .sort((a, b) => seq(a) - seq(b));
  const statements = new Map<string, { offset: number; stmt: FailureStatement }[]>();
  snapshots.slice(1, runs.length + 1).forEach((name, i) => {
    const run = runs[i]!;
    const { result } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { result: ScriptCoverage[] };
    for (const script of result) {
      if (!script.url.startsWith('file:')) continue;
      const file = fileURLToPath(script.url);
      if (!isCheckFile(file, root)) continue;
      let list = statements.get(file);
      if (!list) {
        list = statementsOf(file, root).map(({ offset, stmt }) => ({ offset, stmt: { ...stmt, reachedBy: [] } }));
        statements.set(file, list);
      }
      for (const s of list) if (countAt(script, s.offset) > 0) s.stmt.reachedBy.push(run);
    }
  });
  // In the order of the files and their lines, so a table of the same code reads the same.
  return [...statements.values()]
    .flat()
    .map((s) => s.stmt)
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.text.localeCompare(b.text));
}

/** Why a failure statement has no mutant of its own, where no mutant can have one. */
const NO_MUTANT: Array<[RegExp, string]> = [
  [
    /HTTP \$\{reply\.status\} with envelope code/,
    'ERR-05 is INFO (never fails): an error with any HTTP status is latitude (§7), held by the conforming variant `errors-any-http-status`',
  ],
  [
    /has order_table_number/,
    "CONS-11 is INFO (never fails): §2.4 does not say an order's table number is its seat's, held by the conforming variant `order-table-number-not-seat`",
  ],
];

/** Why a failure statement is reached only by mutants that fail other checks too, where no mutant can fail it alone. */
const SHARED: Array<[RegExp, string]> = [
  [
    /expected a non-empty string \$\{TOKEN_FIELD\}/,
    `AUTH-02 judges the same ${TOKEN_FIELD} by §2.6's field table (a non-empty string): an answer that fails AUTH-01 here fails AUTH-02 too`,
  ],
  [
    /not \$\{me\.label\}'s own \$\{noun\} of that id/,
    "ISO-02 judges the same answers (merchant A's own details) for merchant B's owner: a detail of an id both merchants have (per-merchant ids) that answers merchant B's record fails both",
  ],
  [
    /names the same merchant/,
    `the four ISO checks each compare the two merchants: ${AUTH_PATH} naming one merchant for both applications stops every one of them`,
  ],
];

function markdown(statements: FailureStatement[]): string {
  const solo = (s: FailureStatement) => s.reachedBy.filter((r) => r.mutant && r.failed.length === 1);
  const named = (rs: RunOfSnapshot[]) =>
    rs
      .slice(0, 3)
      .map((r) => `\`${r.mutant}\``)
      .join(', ') + (rs.length > 3 ? ` and ${rs.length - 3} more` : '');
  const own = statements.filter((s) => solo(s).length > 0);
  const shared = statements.filter((s) => solo(s).length === 0 && s.reachedBy.some((r) => r.mutant));
  const none = statements.filter((s) => !s.reachedBy.some((r) => r.mutant));
  const row = (s: FailureStatement, what: string) => `| ${s.file}:${s.line} | \`${cellText(s.text)}\` | ${what} |`;
  return [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run ways\`: ${statements.length} failure statements in the checks; ` +
      `${own.length} reached by a mutant that fails only that check, ${shared.length} only by mutants that fail more ` +
      `than one check, ${none.length} by no mutant. The reference server reached ` +
      `${statements.filter((s) => s.reachedBy.some((r) => !r.mutant)).length}.`,
    '',
    '| statement | text | reached by |',
    '|---|---|---|',
    ...none.map((s) => row(s, `no mutant: ${NO_MUTANT.find(([re]) => re.test(s.text))?.[1] ?? '**a gap**'}`)),
    ...shared.map((s) =>
      row(
        s,
        `only with other checks: ${named(s.reachedBy.filter((r) => r.mutant))}; ${SHARED.find(([re]) => re.test(s.text))?.[1] ?? '**a gap**'}`,
      ),
    ),
    ...own.map((s) => row(s, named(solo(s)))),
    '',
  ].join('\n');
}

if (process.argv[2] === '--child') {
  await runMutants(process.argv[3]!);
  process.exit(0);
} else {
  const root = packageRoot;
  const dir = mkdtempSync(join(tmpdir(), 'conformance-ways-'));
  try {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir], {
      env: { ...process.env, NODE_V8_COVERAGE: dir },
      stdio: 'inherit',
    });
    if (child.status !== 0) throw new Error(`the mutants' run ended with ${child.status ?? child.signal}`);
    const statements = analyse(dir, root);
    const text = markdown(statements);
    writeBlock(join(root, 'docs', 'mutation.md'), WAYS_BLOCK, text);
    console.log(text.split('\n')[0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
