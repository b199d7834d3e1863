import { commandArgs } from './command-args.js';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../core/config.js';
import { readReport } from './diff.js';
import {
  OUTCOMES,
  summarize,
  VERDICT_WORD,
  type CheckRecord,
  type Counts,
  type Outcome,
  type Report,
  type Verdict,
} from '../core/report.js';
import { tool } from '../core/paths.js';
import { oneLine } from '../reporters/terminal.js';

/**
 * `conformance merge reports/*\/report.json [--out merged.json]`: many targets are many processes (one per target,
 * e.g. a CI matrix job each); this folds their report.json files into one summary — a verdict per target and, per
 * check, where it failed. Exit 0 when every target is conformant, 1 when one is not, 3 when a run was incomplete.
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
}

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

export interface MergedReport {
  tool: { name: string; version: string };
  merged_at: string;
  verdict: Verdict;
  exit_code: 0 | 1 | 3;
  summary: { targets: number; conformant: number; partial: number; not_conformant: number; incomplete: number };
  targets: MergedTarget[];
  checks: MergedCheck[];
  notes: string[];
}

/** Worth listing per target: a finding other than a known failure, or a check that did not finish. */
const listed = (o: Outcome): boolean => (OUTCOMES[o].finding && o !== 'known') || o === 'error' || o === 'incomplete';

/** A report file's label: its directory for reports/<target>/report.json (the CI layout), else its file name. */
function labelOf(file: string): string {
  return basename(file) === 'report.json' ? basename(dirname(resolve(file))) : basename(file).replace(/\.json$/, '');
}

export function mergeReports(inputs: Array<{ file: string; report: Report }>, now = new Date()): MergedReport {
  const used = new Map<string, number>();
  const targets: MergedTarget[] = inputs.map(({ file, report: r }) => {
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
      verdict: r.verdict,
      exit_code: r.exit_code,
      fuzz: r.fuzz,
      summary: summarize(r.checks),
    };
  });

  // One row per check id, in the order of first appearance (each report is already in area order).
  const checks = new Map<string, MergedCheck>();
  inputs.forEach(({ report }, i) => {
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

  const notes: string[] = [];
  const versions = [...new Set(targets.map((t) => t.tool_version))];
  if (versions.length > 1)
    notes.push(`the reports come from different suite versions (${versions.join(', ')}): their check sets may differ`);
  const missing = [...checks.values()].filter((c) => Object.keys(c.outcome).length < targets.length);
  if (missing.length)
    notes.push(
      `${missing.length} check(s) are missing from some reports (another --only or suite version): ${missing
        .slice(0, 5)
        .map((c) => c.id)
        .join(', ')}${missing.length > 5 ? ', …' : ''}`,
    );

  const count = (v: Verdict): number => targets.filter((t) => t.verdict === v).length;
  const summary = {
    targets: targets.length,
    conformant: count('conformant'),
    partial: count('partial'),
    not_conformant: count('not conformant'),
    incomplete: count('incomplete'),
  };
  // The worst verdict of all targets: a run that could not judge weighs most, as it says nothing either way.
  const verdict: Verdict = summary.incomplete
    ? 'incomplete'
    : summary.not_conformant
      ? 'not conformant'
      : summary.partial
        ? 'partial'
        : 'conformant';
  const exit_code: 0 | 1 | 3 =
    verdict === 'incomplete' || targets.some((t) => t.exit_code === 3) ? 3 : verdict === 'not conformant' ? 1 : 0;
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
  const out: string[] = [`Merged ${m.summary.targets} report(s):`, ''];
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
        String(Object.values(t.summary).reduce((a, b) => a + b, 0)),
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
    out.push('No check failed on any target.', '');
  }
  for (const n of m.notes) out.push(`Note: ${n}`);
  out.push(
    `${VERDICT_WORD[m.verdict]}: ${m.summary.conformant} conformant, ${m.summary.partial} partial, ${m.summary.not_conformant} not conformant, ${m.summary.incomplete} incomplete (of ${m.summary.targets})`,
  );
  return `${out.join('\n')}\n`;
}

export const MERGE_USAGE = `Usage: conformance merge <report.json | report dir>... [--out merged.json]
Merges the report.json files of many targets (e.g. one CI matrix job per target) into one summary: a verdict per
target and every check that failed anywhere. Exit 0 when all are conformant, 1 when one is not, 3 when a run was
incomplete, 2 for usage errors.
`;

/** `conformance merge …`: prints the merged summary, writes it as JSON with --out. */
export function mergeCommand(argv: string[], out: (s: string) => void): number {
  const parsed = commandArgs(
    {
      args: argv,
      options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    },
    (m) => `${m} (see conformance merge --help)`,
  );
  if (parsed.values.help) {
    out(MERGE_USAGE);
    return 0;
  }
  if (!parsed.positionals.length)
    throw new ConfigError('usage: conformance merge reports/*/report.json [--out merged.json]');
  const files = parsed.positionals.map((p) =>
    existsSync(p) && statSync(p).isDirectory() ? join(p, 'report.json') : p,
  );
  const merged = mergeReports(files.map((file) => ({ file, report: readReport(file) })));
  out(mergedText(merged));
  if (parsed.values.out) {
    const target = resolve(parsed.values.out);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(merged, null, 2)}\n`);
    out(`Merged report: ${oneLine(target)}\n`);
  }
  return merged.exit_code;
}
