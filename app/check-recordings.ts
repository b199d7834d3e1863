/**
 * The recordings the checks' unit tests read (test/checks/): for each check, the exchanges it makes against the
 * conforming reference server (its pass) and against each mutant that breaks its rule (its fail, and one more per
 * further mutant: each way of failing that a mutant proves), captured once with `npm run recordings` and replayed by
 * the tests through core/session/recorded-source.ts, with no server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check, Status } from '../core/model/check.js';
import type { Config } from '../core/config/config.js';
import { clientFor } from '../core/engine/run.js';
import { runChecks, type EngineResult } from '../core/engine/engine.js';
import { redactorFor } from '../core/redact/redact.js';
import { preflight } from './preflight.js';
import { Recorder, type RecordedExchange } from '../core/session/recorded-source.js';
import { demoConfig, startReferenceServer } from './demo.js';
import { MUTANTS, type Mutant } from '../reference/mutants/index.js';
import type { Variant } from '../reference/server.js';
import { ALL_CHECKS } from '../suites/index.js';

/** One check's recording: the config it ran with (the fixture's public test credentials) and what it exchanged. */
export interface CheckRecording {
  check: string;
  variant: string;
  status: Status;
  message: string;
  fingerprints?: string[];
  config: Config;
  exchanges: RecordedExchange[];
}

/** Settings of a capture: the mutation test's fuzz runs, and a fixed seed so the fuzz check's requests replay. */
export const RECORDING_SETTINGS = { fuzz: { runs: 30, seed: 12345 } };

/** Runs one check against the reference server with the variants given, keeping every exchange whole. */
export async function recordCheck(check: Check, variants: Variant[]): Promise<CheckRecording> {
  const server = await startReferenceServer({ https: true, variants });
  const cfg = demoConfig(server, RECORDING_SETTINGS);
  let recorder: Recorder | undefined;
  try {
    const {
      records: [result],
    } = await runChecks(cfg, [check], (r) => (recorder = new Recorder(clientFor(cfg, r))));
    return {
      check: check.id,
      variant: variants.map((v) => v.name).join('+') || 'reference',
      status: result!.status,
      message: result!.message,
      ...(result!.fingerprints ? { fingerprints: result!.fingerprints } : {}),
      config: { ...cfg, tls: { insecure: false } },
      // Without their times: a recording changes only when what was exchanged did.
      exchanges: recorder!.exchanges.map(({ started_at: _t, ...x }) => x),
    };
  } finally {
    await server.close();
  }
}

/**
 * Every check against the reference server with the variants given, as a CLI run goes: the preflight's /auth first
 * (a mutant may misbehave from the second /auth on), then the engine, at the recordings' settings. The mutants test
 * and `npm run ways` run each mutant so. Over HTTPS unless `https: false` (the mutants test, for a mutant no check
 * that requires https is meant to catch: the same records, at two thirds of the CPU).
 */
export async function runEveryCheck(
  variants: Variant[],
  { https = true }: { https?: boolean } = {},
): Promise<EngineResult & { config: Config }> {
  const server = await startReferenceServer({ https, variants });
  try {
    const config = demoConfig(server, RECORDING_SETTINGS);
    await preflight(config, redactorFor(config));
    return { ...(await runChecks(config, ALL_CHECKS)), config };
  } finally {
    await server.close();
  }
}

/** The mutants that break a check's rule, those that break the fewest other rules first. */
export function mutantsFor(id: string): Mutant[] {
  return MUTANTS.filter((m) => m.kills.includes(id)).sort((a, b) => a.kills.length - b.kills.length);
}

/** What a check's recordings file holds (test/checks/recordings/<id>.json). */
export interface CheckRecordings {
  pass: CheckRecording;
  /** Against the mutant that breaks the fewest other rules. */
  fail?: CheckRecording;
  /** Against each further mutant of the check, one recording each: every way a mutant proves has its failing run. */
  others?: CheckRecording[];
  /** The check's mutants it does not fail alone (they show only in the company of other checks' requests). */
  notAlone?: string[];
}

/**
 * Captures the pass and a fail recording per mutant of every check (only the pass of an INFO check: it never fails).
 * A mutant that the check alone does not fail (its fault shows only in the company of other checks' requests) gets no
 * recording, and the line says so.
 */
export async function recordAll(dir: string, only?: (c: Check) => boolean): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (const check of ALL_CHECKS.filter(only ?? (() => true))) {
    const pass = await recordCheck(check, []);
    const fails: CheckRecording[] = [];
    const alone: string[] = [];
    for (const m of check.level === 'INFO' ? [] : mutantsFor(check.id)) {
      const r = await recordCheck(check, [m]);
      if (r.status === 'failed') fails.push(r);
      else alone.push(m.name);
    }
    const [fail, ...others] = fails;
    const file: CheckRecordings = {
      pass,
      ...(fail ? { fail } : {}),
      ...(others.length ? { others } : {}),
      ...(alone.length ? { notAlone: alone } : {}),
    };
    writeFileSync(join(dir, `${check.id}.json`), `${JSON.stringify(file, null, 1)}\n`);
    lines.push(
      `${check.id}: pass ${pass.status} (${pass.exchanges.length} exchanges)` +
        fails.map((f) => `, fail against ${f.variant} (${f.exchanges.length} exchanges)`).join('') +
        (alone.length ? `; not failed by the check alone: ${alone.join(', ')}` : ''),
    );
  }
  return lines;
}
