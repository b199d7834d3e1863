/**
 * The failure statements of the checks, found in their compiled code: each `ctx.fail(`, `found.add(`, `found.push(`
 * and `problems.push(` in `suites/` and `core/model/assertions.ts`, and each reason a check's own file returns for a
 * finding (`return \``). `npm run ways` (bench/ways.ts) looks each up in a coverage snapshot per mutant and writes
 * the table of docs/mutation.md; test/failure-ways.test.ts holds the table's statements to the code's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The generated block of docs/mutation.md that lists the statements. */
export const WAYS_BLOCK = 'failure-ways';

/** A statement that fails a check: its TypeScript file, its line there (0 when not found), and its compiled text. */
export interface StatementAt {
  file: string;
  line: number;
  text: string;
}

const FAILURE = /\b(ctx\.fail|found\.add|found\.push|problems\.push)\(/;
const REASON = /\breturn `/;

/** Whether a compiled file holds checks' code: `dist/suites/` and `dist/core/model/assertions.js`. */
export function isCheckFile(jsFile: string, root: string): boolean {
  const rel = relative(join(root, 'dist'), jsFile);
  return (rel.startsWith('suites/') && rel.endsWith('.js')) || rel === join('core', 'model', 'assertions.js');
}

/** Every compiled file of the checks' code. */
export function checkFiles(root: string): string[] {
  const dir = join(root, 'dist', 'suites');
  return [
    ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)),
    join(root, 'dist', 'core', 'model', 'assertions.js'),
  ].filter((f) => isCheckFile(f, root));
}

/** The failure statements of a compiled file, with their offsets in it and their line in the TypeScript source. */
export function statementsOf(jsFile: string, root: string): Array<{ offset: number; stmt: StatementAt }> {
  const js = readFileSync(jsFile, 'utf8');
  const tsFile = join(root, relative(join(root, 'dist'), jsFile)).replace(/\.js$/, '.ts');
  const tsLines = readFileSync(tsFile, 'utf8').split('\n');
  // The reasons a check's own file returns for its findings (its judging helpers'); suites/support/ and the assertions
  // return descriptions and locations as well, which fail nothing.
  const reasons = /^suites\/[^/]+\.ts$/.test(relative(root, tsFile));
  const out: Array<{ offset: number; stmt: StatementAt }> = [];
  let offset = 0;
  for (const line of js.split('\n')) {
    const m = FAILURE.exec(line) ?? (reasons ? REASON.exec(line) : null);
    const t = line.trim();
    if (m && !t.startsWith('//') && !t.startsWith('*')) {
      // The same statement in the source, by the first words of what it says (Prettier may have put the call and
      // its message on two lines; the compiled text keeps the message as written).
      const said = line
        .slice(line.indexOf(m[0]) + m[0].length)
        .trim()
        .slice(0, 80);
      // A cast (`as …`) is not compiled: a shorter beginning then finds it.
      const at =
        [80, 40, 20].map((n) => tsLines.findIndex((l) => l.includes(said.slice(0, n)))).find((i) => i >= 0) ?? -1;
      out.push({
        offset: offset + line.indexOf(m[0]),
        stmt: { file: relative(root, tsFile), line: at + 1, text: t.length > 90 ? `${t.slice(0, 90)}…` : t },
      });
    }
    offset += line.length + 1;
  }
  return out;
}

/** A statement's text as the table's cell holds it (between backticks: no backtick, no bare pipe). */
export function cellText(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/`/g, "'");
}

/** The statements a table lists, as `file cell-text` (without the line, which moves with every edit above it). */
export function listedStatements(table: string): string[] {
  return [...table.matchAll(/^\| ([^ |]+):\d+ \| `(.*?)` \| /gm)].map((m) => `${m[1]} ${m[2]}`);
}
