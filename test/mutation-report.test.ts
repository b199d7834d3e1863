import { tempDir } from './helpers/temp-dirs.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { MutantResult, MutationTestResult } from 'mutation-testing-report-schema';
import {
  mutationFigures,
  readStrykerReport,
  readVerdicts,
  strykerScoreMarkdown,
  survivorsMarkdown,
} from '../app/mutation-report.js';

const SOURCE = ['export function f(a: number): boolean {', '  return a > 1 || a < -1;', '}', ''].join('\n');

const mutant = (id: string, status: MutantResult['status'], col: [number, number], replacement: string) => ({
  id,
  mutatorName: 'EqualityOperator',
  replacement,
  status,
  location: { start: { line: 2, column: col[0] }, end: { line: 2, column: col[1] } },
});

/** A report in the schema's shape: one file, a mutant of each status the score counts. */
const report = (): MutationTestResult => ({
  schemaVersion: '2',
  thresholds: { high: 80, low: 60 },
  files: {
    'suites/x.ts': {
      language: 'typescript',
      source: SOURCE,
      mutants: [
        mutant('1', 'Killed', [10, 15], 'a >= 1'),
        mutant('2', 'Timeout', [10, 15], 'a < 1'),
        mutant('3', 'Survived', [19, 25], 'a <= -1'),
        mutant('4', 'NoCoverage', [19, 25], 'a > -1'),
        mutant('5', 'Ignored', [10, 15], 'true'),
        mutant('6', 'CompileError', [10, 15], '""'),
      ],
    },
  },
});

test('the score counts killed and timed-out mutants over those that ran or had no test, less the equivalent ones', () => {
  const none = mutationFigures(report(), new Map());
  expect(none).toMatchObject({ mutants: 6, killed: 1, timeout: 1, survived: 1, noCoverage: 1, ignored: 1, invalid: 1 });
  expect(none.score).toBe(50);
  expect(none.survivors.map((s) => [s.line, s.original, s.replacement, s.status])).toEqual([
    [2, 'a < -1', 'a <= -1', 'Survived'],
    [2, 'a < -1', 'a > -1', 'NoCoverage'],
  ]);
  const key = none.survivors[0]!.key;
  const verdicts = readVerdicts(
    `| key | verdict | why |\n|---|---|---|\n| \`${key}\` | equivalent | -1 is never sent |\n`,
  );
  const judged = mutationFigures(report(), verdicts);
  expect(judged.equivalent).toBe(1);
  expect(judged.score).toBeCloseTo((2 / 3) * 100);
  // Stryker's own score is printed beside it: the equivalent ones are not set apart there.
  expect(judged.rawScore).toBe(50);
  expect(strykerScoreMarkdown(judged)).toMatch(
    /^\*\*Checks' code under Stryker: 50\.0 % of 4 mutants killed \(Stryker's own score\); 66\.7 % of the 3 that are not equivalent\*\*/,
  );
  expect(survivorsMarkdown(judged, verdicts)).toContain(
    `| \`${key}\` | suites/x.ts:2 | EqualityOperator | \`a < -1\` | \`a <= -1\` | equivalent |`,
  );
  // docs/mutation.md's generated list opens with both scores, Stryker's first.
  expect(survivorsMarkdown(judged, verdicts).split('\n')[0]).toBe(
    "Stryker's score: 50.0 % (2 killed or timed out of 4 valid mutants); with the 1 equivalent ones set apart: 66.7 % (2 of 3).",
  );
});

test("a survivor's key is its file, mutator, text and replacement, not its line: a verdict survives code moving above it", () => {
  const moved = report();
  const file = moved.files['suites/x.ts']!;
  file.source = `// a new first line\n${SOURCE}`;
  for (const m of file.mutants)
    m.location = { start: { ...m.location.start, line: 3 }, end: { ...m.location.end, line: 3 } };
  const [before, after] = [mutationFigures(report(), new Map()), mutationFigures(moved, new Map())];
  expect(after.survivors.map((s) => s.key)).toEqual(before.survivors.map((s) => s.key));
  expect(after.survivors[0]!.line).toBe(3);
  expect(new Set(before.survivors.map((s) => s.key)).size).toBe(2);
});

test('a missing or foreign report is said to be one, naming the command that makes it', () => {
  const dir = tempDir('mutation-report-');
  expect(() => readStrykerReport(join(dir, 'none.json'))).toThrow(/run `npm run mutation` first/);
  writeFileSync(join(dir, 'other.json'), '{"files": 3}');
  expect(() => readStrykerReport(join(dir, 'other.json'))).toThrow(/not a mutation-testing-report-schema report/);
  writeFileSync(join(dir, 'ok.json'), JSON.stringify(report()));
  expect(readStrykerReport(join(dir, 'ok.json')).files['suites/x.ts']!.mutants).toHaveLength(6);
  expect(readFileSync(join(dir, 'ok.json'), 'utf8')).toContain('schemaVersion');
});
