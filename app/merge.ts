import { commandArgs } from './command-args.js';
import { mkdirSync } from 'node:fs';
import { writeOutputFile } from './output-file.js';
import { basename, dirname, resolve } from 'node:path';
import { ConfigError } from '../core/config/config.js';
import { readReport, reportFileOf } from './diff.js';
import {
  OUTCOME_ORDER,
  OUTCOMES,
  summarize,
  VERDICT_ORDER,
  VERDICT_WORD,
  type CatalogueEntry,
  type CheckRecord,
  type Counts,
  type Outcome,
  type Report,
  type Verdict,
} from '../core/model/report.js';
import { tool } from '../core/base/paths.js';
import { oneLine } from '../reporters/terminal.js';
import { counted } from '../core/base/counted.js';
import { rejudge } from './rejudge.js';
import { loadCheckHeads } from './check-heads.js';

/**
 * `conformance merge reports/*\/report.json [--out merged.json]`: many targets are many processes (one per target,
 * e.g. a CI matrix job each); this folds their report.json files into one summary — a verdict per target and, per
 * check, where it failed. Each target's verdict and exit code are what its checks give (rejudge), never its report's
 * verdict or exit_code fields. The merged verdict is the worst of the targets' (VERDICT_ORDER); the exit code is the
 * worst of theirs: 3 when one could not judge, else 1 when one is not conformant, else 0.
 */
export interface MergedTarget {
  label: string;
  file: string;
  base_url: string;
  tool_version: string;
  started_at: string;
  duration_ms: number;
  verdict: Report['verdict'];
  exit_code: Report['exit_code'];
  fuzz: Report['fuzz'];
  /** Checks per outcome. */
  summary: Counts;
  /** Checks in the report. */
  checks: number;
}

/** One check across every merged target: its outcome on each, and where it failed. */
export interface MergedCheck {
  id: string;
  title: string;
  level: CheckRecord['level'];
  spec: string;
  area: CheckRecord['area'];
  /** Outcome per target label; a target whose report lacks the check (another --only, another suite version) is absent. */
  outcome: Record<string, Outcome>;
  /** Targets where it is a finding (known failures aside) or did not finish, with the message of each. */
  failed_on: Array<{ target: string; outcome: Outcome; message: string }>;
}

/** What `conformance merge --out` writes: a verdict per target and the checks that failed anywhere. */
export interface MergedReport {
  tool: { name: string; version: string };
  merged_at: string;
  verdict: Verdict;
  exit_code: 0 | 1 | 3;
  /** How many targets, and how many of them got each verdict. */
  summary: { targets: number } & Record<VerdictKey, number>;
  targets: MergedTarget[];
  checks: MergedCheck[];
  notes: string[];
}

/** A verdict as a JSON key: "not conformant" → not_conformant. */
type VerdictKey = { [V in Verdict]: V extends `${infer A} ${infer B}` ? `${A}_${B}` : V }[Verdict];
const verdictKey = (v: Verdict): VerdictKey => v.replace(/ /g, '_') as VerdictKey;

/** Worth listing per target: a finding other than a known failure, or a check that did not finish. */
const listed = (o: Outcome): boolean => (OUTCOMES[o].finding && o !== 'known') || o === 'error' || o === 'incomplete';

/** A report file's label: its directory for reports/<target>/report.json (the CI layout), else its file name. */
function labelOf(file: string): string {
  return basename(file) === 'report.json' ? basename(dirname(resolve(file))) : basename(file).replace(/\.json$/, '');
}

/** The counts of outcomes alone (summarize also counts by level and by area). */
function outcomeCounts(checks: CheckRecord[]): Counts {
  const all = summarize(checks);
  return Object.fromEntries(OUTCOME_ORDER.map((o) => [o, all[o]])) as Counts;
}

/** Merges the reports of many targets; each target is labelled by its file's folder, made unique. */
export function mergeReports(
  inputs: Array<{ file: string; report: Report }>,
  now = new Date(),
  /** This version's catalogue, for the reports of this version (rejudge). */
  heads?: readonly CatalogueEntry[],
): MergedReport {
  const used = new Map<string, number>();
  const notes: string[] = [];
  // Each target's verdict and exit code as its checks give them, never as its verdict or exit_code fields say.
  const judged = inputs.map(({ report }) => rejudge(report, heads));
  const targets: MergedTarget[] = inputs.map(({ file, report: r }, i) => {
    const j = judged[i]!;
    let label = labelOf(file);
    const n = (used.get(label) ?? 0) + 1;
    used.set(label, n);
    if (n > 1) label = `${label}#${n}`;
    return {
      label,
      file,
      base_url: r.target.base_url,
      tool_version: r.tool.version,
      started_at: r.started_at,
      duration_ms: r.duration_ms,
      verdict: j.verdict,
      exit_code: j.exit_code,
      fuzz: r.fuzz,
      summary: outcomeCounts(j.checks),
      checks: r.checks.length,
    };
  });

  targets.forEach((t, i) => {
    const r = inputs[i]!.report;
    if (r.verdict !== t.verdict || r.exit_code !== t.exit_code)
      notes.push(
        `${t.label}: its report says ${VERDICT_WORD[r.verdict] ?? 'another verdict'} (exit ${JSON.stringify(r.exit_code)?.slice(0, 20) ?? 'none'}), but its checks give ${VERDICT_WORD[t.verdict]} (exit ${t.exit_code}): merged as its checks say`,
      );
  });

  // One row per check id, in the order of first appearance (each report is already in area order).
  const checks = new Map<string, MergedCheck>();
  judged.forEach((report, i) => {
    const label = targets[i]!.label;
    for (const c of report.checks) {
      let m = checks.get(c.id);
      if (!m) {
        m = { id: c.id, title: c.title, level: c.level, spec: c.spec, area: c.area, outcome: {}, failed_on: [] };
        checks.set(c.id, m);
      }
      m.outcome[label] = c.outcome;
      if (listed(c.outcome)) m.failed_on.push({ target: label, outcome: c.outcome, message: c.message });
    }
  });

  const versions = [...new Set(targets.map((t) => t.tool_version))];
  if (versions.length > 1)
    notes.push(`the reports come from different suite versions (${versions.join(', ')}): their check sets may differ`);
  const missing = [...checks.values()].filter((c) => Object.keys(c.outcome).length < targets.length);
  if (missing.length)
    notes.push(
      `${counted(missing.length, 'check')} ${missing.length === 1 ? 'is' : 'are'} missing from some reports (another --only or suite version): ${missing
        .slice(0, 5)
        .map((c) => c.id)
        .join(', ')}${missing.length > 5 ? ', …' : ''}`,
    );

  const summary = { targets: targets.length } as MergedReport['summary'];
  for (const v of VERDICT_ORDER) summary[verdictKey(v)] = targets.filter((t) => t.verdict === v).length;
  // The worst verdict of all targets: a run that could not judge weighs most, as it says nothing either way.
  const verdict = VERDICT_ORDER.find((v) => summary[verdictKey(v)] > 0) ?? 'nothing judged';
  const codes = new Set(targets.map((t) => t.exit_code));
  const exit_code: 0 | 1 | 3 = codes.has(3) ? 3 : codes.has(1) ? 1 : 0;
  return {
    tool,
    merged_at: now.toISOString(),
    verdict,
    exit_code,
    summary,
    targets,
    checks: [...checks.values()],
    notes,
  };
}

function table(head: string[], rows: string[][]): string[] {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** The terminal summary: a verdict per target, then every check that failed anywhere, with where. */
export function mergedText(m: MergedReport): string {
  const out: string[] = [`Merged ${counted(m.summary.targets, 'report')}:`, ''];
  out.push(
    ...table(
      [
        'target',
        'base_url',
        'verdict',
        'failed',
        'warned',
        'known',
        'skipped',
        'incomplete',
        'errors',
        'checks',
        'time',
      ],
      m.targets.map((t) => [
        oneLine(t.label),
        oneLine(t.base_url),
        VERDICT_WORD[t.verdict],
        String(t.summary.failed),
        String(t.summary.warned),
        String(t.summary.known),
        String(t.summary.skipped),
        String(t.summary.incomplete),
        String(t.summary.error),
        String(t.checks),
        `${(t.duration_ms / 1000).toFixed(1)} s`,
      ]),
    ).map((l) => `  ${l}`),
  );
  const failing = m.checks.filter((c) => c.failed_on.length);
  out.push('');
  if (failing.length) {
    out.push('Checks that failed on some target:', '');
    out.push(
      ...table(
        ['check', 'level', 'failed on', 'targets'],
        failing.map((c) => [
          c.id,
          c.level,
          `${c.failed_on.length}/${Object.keys(c.outcome).length}`,
          c.failed_on
            .map((f) => `${oneLine(f.target)}${f.outcome === 'failed' ? '' : ` (${OUTCOMES[f.outcome].word})`}`)
            .join(', '),
        ]),
      ).map((l) => `  ${l}`),
    );
    out.push('');
    for (const c of failing) {
      out.push(`  ${c.id} [${c.spec}] ${c.title}`);
      for (const f of c.failed_on.slice(0, 10))
        out.push(`      ${oneLine(f.target)}: ${oneLine(f.message).slice(0, 300)}`);
      if (c.failed_on.length > 10) out.push(`      … and ${c.failed_on.length - 10} more targets`);
    }
    out.push('');
  } else {
    const known = m.checks.flatMap((c) =>
      Object.entries(c.outcome)
        .filter(([, o]) => o === 'known')
        .map(([target]) => `${c.id} on ${target}`),
    );
    out.push(
      known.length
        ? `No check failed on any target outside its baseline; known failures: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''}.`
        : 'No check failed on any target.',
      '',
    );
  }
  for (const n of m.notes) out.push(`Note: ${n}`);
  out.push(
    `${VERDICT_WORD[m.verdict]}: ${m.summary.targets} target${m.summary.targets === 1 ? '' : 's'}: ${VERDICT_ORDER.filter(
      (v) => m.summary[verdictKey(v)],
    )
      .map((v) => `${m.summary[verdictKey(v)]} ${VERDICT_WORD[v]}`)
      .join('; ')} (exit ${m.exit_code})`,
  );
  return `${out.join('\n')}\n`;
}

/** `conformance merge --help`. */
export const MERGE_USAGE = `Usage: conformance merge <report.json | report dir>... [--out merged.json]
Merges the report.json files of many targets (e.g. one CI matrix job per target) into one summary: a verdict per
target and every check that failed anywhere; the merged verdict is the worst of theirs. Exit 0 when every run exited
0 (${VERDICT_WORD.conformant}; ${VERDICT_WORD.partial}; ${VERDICT_WORD['known failures']}), 1 when one is ${VERDICT_WORD['not conformant']}, 3 when one
could not judge (${VERDICT_WORD.incomplete}; ${VERDICT_WORD['nothing judged']}; ${VERDICT_WORD.partial} under --strict), 2 for usage errors.
  --out, -o <file>      Also write the merged summary as JSON to this file
  --help, -h            This help
`;

/** `conformance merge …`: prints the merged summary, writes it as JSON with --out. */
export async function mergeCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const parsed = commandArgs(
    { args: argv, options: { out: { type: 'string', short: 'o' } }, allowPositionals: true },
    (m) => `merge: ${m} (see merge --help)`,
    MERGE_USAGE,
  );
  if (!parsed.positionals.length)
    throw new ConfigError('merge: give the report.json files or report directories to merge (see merge --help)');
  const files = parsed.positionals.map(reportFileOf);
  const reports = files.map((file) => ({ file, report: readReport(file) }));
  const merged = mergeReports(reports, new Date(), await loadCheckHeads());
  out(mergedText(merged));
  if (parsed.values.out) {
    const target = resolve(parsed.values.out);
    try {
      mkdirSync(dirname(target), { recursive: true });
    } catch {
      /* a folder that cannot be made is said by the write below, as a usage error */
    }
    writeOutputFile(target, `${JSON.stringify(merged, null, 2)}\n`);
    out(`Merged report: ${oneLine(target)}\n`);
  }
  return merged.exit_code;
}
