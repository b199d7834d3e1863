import type { Area, CheckResult, Level, Status } from './check.js';
import { AREAS } from './check.js';
import { tool } from './paths.js';

export interface CheckRecord extends CheckResult {
  id: string;
  title: string;
  level: Level;
  spec: string;
  area: Area;
  /** Set by a baseline: a known failure (does not gate), or a stale entry (now passes; gates until removed). */
  baseline?: { state: 'known' | 'stale' | 'expired'; reason: string; expires?: string };
}

export type Counts = Record<Status, number>;

export interface Report {
  tool: { name: string; version: string };
  target: { base_url: string };
  started_at: string;
  duration_ms: number;
  verdict: 'conformant' | 'not conformant' | 'incomplete';
  exit_code: 0 | 1 | 3;
  summary: Counts & { by_level: Record<Level, Counts>; by_area: Partial<Record<Area, Counts>> };
  checks: CheckRecord[];
  fuzz: { seed: number; runs: number };
  config: Record<string, unknown>;
  /** Problems of the harness outside any single check (a worker crash, an unhandled error). */
  errors: string[];
}

export const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0, incomplete: 0, error: 0 });

/**
 * The verdict rule: 3 when the run did not fully happen (a harness error), 1 when a MUST check failed outside
 * the baseline or a baseline entry is stale or expired, else 0. SHOULD failures warn and never gate.
 */
export function exitCodeOf(checks: CheckRecord[], harnessErrors: string[]): 0 | 1 | 3 {
  if (harnessErrors.length || checks.some((c) => c.status === 'error')) return 3;
  const gating = checks.some((c) =>
    (c.level === 'MUST' && c.status === 'failed' && c.baseline?.state !== 'known') ||
    c.baseline?.state === 'stale' || c.baseline?.state === 'expired');
  return gating ? 1 : 0;
}

export function summarize(checks: CheckRecord[]): Report['summary'] {
  const total = zero();
  const by_level: Record<Level, Counts> = { MUST: zero(), SHOULD: zero(), INFO: zero() };
  const by_area: Partial<Record<Area, Counts>> = {};
  for (const c of checks) {
    total[c.status]++;
    by_level[c.level][c.status]++;
    (by_area[c.area] ??= zero())[c.status]++;
  }
  return { ...total, by_level, by_area };
}

export function buildReport(args: {
  checks: CheckRecord[]; baseUrl: string; startedAt: Date; durationMs: number;
  fuzz: { seed: number; runs: number }; config: Record<string, unknown>; errors: string[];
}): Report {
  const checks = [...args.checks].sort((a, b) => AREAS.indexOf(a.area) - AREAS.indexOf(b.area));
  const exit_code = exitCodeOf(checks, args.errors);
  return {
    tool,
    target: { base_url: args.baseUrl },
    started_at: args.startedAt.toISOString(),
    duration_ms: Math.round(args.durationMs),
    verdict: exit_code === 0 ? 'conformant' : exit_code === 1 ? 'not conformant' : 'incomplete',
    exit_code,
    summary: summarize(checks),
    checks,
    fuzz: args.fuzz,
    config: args.config,
    errors: args.errors,
  };
}
