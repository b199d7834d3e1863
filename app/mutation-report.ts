import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MutantResult, MutantStatus, MutationTestResult } from 'mutation-testing-report-schema';
import { writeBlock } from './catalogue.js';
import { writeStrykerScoreBlock } from './readme-blocks.js';

/** Where Stryker writes its report (stryker.config.json `jsonReporter`), in the mutation-testing-report-schema. */
export const STRYKER_REPORT = 'reports/mutation/mutation.json';
/** The survivors' page: a generated list, and the hand-written verdict on each (docs/mutation.md). */
export const MUTATION_DOC = 'docs/mutation.md';

/** A hand-written verdict on a surviving mutant: it cannot change what a check does, or it shows a missing test. */
export interface Verdict {
  kind: 'equivalent' | 'gap';
  why: string;
}

/** A mutant that no test killed (survived, or run by no test), with what the survivors' page shows of it. */
export interface Survivor {
  key: string;
  file: string;
  line: number;
  mutator: string;
  original: string;
  replacement: string;
  status: MutantStatus;
}

/** The figures of one Stryker run, equivalents set apart by their verdicts. */
export interface MutationFigures {
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Mutants Stryker did not run: static ones (ignoreStatic), each run by every test (stryker.config.json). */
  ignored: number;
  /** Mutants that did not compile or crashed the run: not counted, as Stryker does not. */
  invalid: number;
  /** Survivors and uncovered mutants that a verdict calls equivalent. */
  equivalent: number;
  /** Killed or timed out, as a percentage of the non-equivalent mutants that ran or had no test. */
  score: number;
  /** Stryker's own score: killed or timed out, as a percentage of every mutant that ran or had no test. */
  rawScore: number;
  survivors: Survivor[];
}

/** Reads Stryker's JSON report; a missing or foreign file is a setup mistake, said as one. */
export function readStrykerReport(path: string): MutationTestResult {
  let report: Partial<MutationTestResult>;
  try {
    report = JSON.parse(readFileSync(path, 'utf8')) as Partial<MutationTestResult>;
  } catch (e) {
    throw new Error(`cannot read Stryker's report ${path} (run \`npm run mutation\` first): ${(e as Error).message}`);
  }
  if (typeof report.schemaVersion !== 'string' || typeof report.files !== 'object' || report.files === null)
    throw new Error(`${path} is not a mutation-testing-report-schema report (no schemaVersion or files)`);
  return report as MutationTestResult;
}

/** The source text a mutant replaces (the report's locations are 1-based lines and columns), whitespace collapsed. */
function originalText(source: string, m: MutantResult): string {
  const lines = source.split('\n');
  const { start, end } = m.location;
  const picked =
    start.line === end.line
      ? lines[start.line - 1]!.slice(start.column - 1, end.column - 1)
      : [
          lines[start.line - 1]!.slice(start.column - 1),
          ...lines.slice(start.line, end.line - 1),
          lines[end.line - 1]!.slice(0, end.column - 1),
        ].join('\n');
  return picked.replace(/\s+/g, ' ').trim();
}

/**
 * A survivor's key for its verdict: its file, the text of the line it starts on, its mutator, original text and
 * replacement, not its line number or Stryker's id, so a verdict holds while code above it moves, and is dropped when
 * the mutated line itself changes. The line tells apart the same expression mutated the same way in two places.
 */
function survivorKey(file: string, line: string, mutator: string, original: string, replacement: string): string {
  return createHash('sha256')
    .update([file, line, mutator, original, replacement].join('\0'))
    .digest('hex')
    .slice(0, 10);
}

/** The verdicts of the survivors' page: its hand-written table rows "| `key` | equivalent or gap | why |". */
export function readVerdicts(doc: string): Map<string, Verdict> {
  const verdicts = new Map<string, Verdict>();
  for (const m of doc.matchAll(/^\| `([0-9a-f]{10})` \| (equivalent|gap) \| (.+) \|$/gm))
    verdicts.set(m[1]!, { kind: m[2] as Verdict['kind'], why: m[3]! });
  return verdicts;
}

const count = (mutants: MutantResult[], ...statuses: MutantStatus[]): number =>
  mutants.filter((m) => statuses.includes(m.status)).length;

/** The run's figures: Stryker's counts by status, the survivors, and the score without the equivalent ones. */
export function mutationFigures(report: MutationTestResult, verdicts: Map<string, Verdict>): MutationFigures {
  const survivors: Survivor[] = [];
  const all: MutantResult[] = [];
  for (const [file, result] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    all.push(...result.mutants);
    for (const m of result.mutants) {
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const original = originalText(result.source, m);
      const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').trim();
      const line = result.source.split('\n')[m.location.start.line - 1]!.replace(/\s+/g, ' ').trim();
      const key = survivorKey(file, line, m.mutatorName, original, replacement);
      survivors.push({
        key,
        file,
        line: m.location.start.line,
        mutator: m.mutatorName,
        original,
        replacement,
        status: m.status,
      });
    }
  }
  survivors.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  const killed = count(all, 'Killed');
  const timeout = count(all, 'Timeout');
  const survived = count(all, 'Survived');
  const noCoverage = count(all, 'NoCoverage');
  const equivalent = survivors.filter((s) => verdicts.get(s.key)?.kind === 'equivalent').length;
  const judged = killed + timeout + survived + noCoverage - equivalent;
  return {
    mutants: all.length,
    killed,
    timeout,
    survived,
    noCoverage,
    ignored: count(all, 'Ignored'),
    invalid: count(all, 'CompileError', 'RuntimeError'),
    equivalent,
    score: judged ? ((killed + timeout) / judged) * 100 : Number.NaN,
    rawScore: judged + equivalent ? ((killed + timeout) / (judged + equivalent)) * 100 : Number.NaN,
    survivors,
  };
}

/** The README's line of the checks' own mutation score. */
export function strykerScoreMarkdown(f: MutationFigures): string {
  const judged = f.killed + f.timeout + f.survived + f.noCoverage - f.equivalent;
  return (
    `**Checks' code under Stryker: ${f.rawScore.toFixed(1)} % of ${judged + f.equivalent} mutants killed (Stryker's ` +
    `own score); ${f.score.toFixed(1)} % of the ${judged} that are not equivalent** ` +
    `(${f.killed} killed, ${f.timeout} timed out, ${f.survived} survived, ${f.noCoverage} run by no test; ` +
    `${f.equivalent} more are equivalent, ${f.ignored} static ones not run, ${f.invalid} invalid) by the per-check ` +
    `unit tests, over the checks' code and the helpers they judge with; the survivors and why each survives: ` +
    `[\`docs/mutation.md\`](docs/mutation.md).\n`
  );
}

/**
 * Both scores in one line: Stryker's own (killed or timed out over every valid mutant: those that ran or had no
 * test, as its clear-text and HTML reports print it) and, beside it, the score with the equivalent mutants set apart.
 */
export function scoresLine(f: MutationFigures): string {
  const valid = f.killed + f.timeout + f.survived + f.noCoverage;
  return (
    `Stryker's score: ${f.rawScore.toFixed(1)} % (${f.killed + f.timeout} killed or timed out of ${valid} valid ` +
    `mutants); with the ${f.equivalent} equivalent ones set apart: ${f.score.toFixed(1)} % ` +
    `(${f.killed + f.timeout} of ${valid - f.equivalent}).`
  );
}

/** Markdown table cell text: a code span that cannot break the table (pipes escaped, long text cut). */
function cell(text: string, max = 70): string {
  const cut = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return `\`${cut.replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
}

/** The survivors' page's generated list: each survivor with where it is, what it changes, and its verdict. */
export function survivorsMarkdown(f: MutationFigures, verdicts: Map<string, Verdict>): string {
  const rows = f.survivors.map((s) => {
    const v = verdicts.get(s.key);
    const status = s.status === 'NoCoverage' ? ' (no test runs it)' : '';
    return `| \`${s.key}\` | ${s.file}:${s.line} | ${s.mutator}${status} | ${cell(s.original)} | ${cell(s.replacement)} | ${v?.kind ?? '**no verdict**'} |`;
  });
  const unjudged = f.survivors.filter((s) => !verdicts.has(s.key)).length;
  return [
    scoresLine(f),
    '',
    `${f.survivors.length} survivors (${f.survived} survived, ${f.noCoverage} run by no test); ` +
      `${f.equivalent} equivalent, ${f.survivors.length - f.equivalent - unjudged} gaps, ${unjudged} without a verdict.`,
    '',
    '| key | where | mutator | original | replacement | verdict |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/**
 * After `stryker run` (`npm run mutation`): writes the score into the README and the survivors into
 * docs/mutation.md, from Stryker's report and the page's own verdicts; returns what it wrote, for the terminal.
 */
export function writeMutationResults(root: string, reportPath = join(root, STRYKER_REPORT)): string {
  const doc = join(root, MUTATION_DOC);
  const verdicts = readVerdicts(readFileSync(doc, 'utf8'));
  const figures = mutationFigures(readStrykerReport(reportPath), verdicts);
  const score = strykerScoreMarkdown(figures);
  writeStrykerScoreBlock(root, score);
  writeBlock(doc, 'survivors', survivorsMarkdown(figures, verdicts));
  return score;
}
