/**
 * The recordings the checks' unit tests read (test/checks/): for each check, the exchanges it makes against the
 * conforming reference server (its pass) and against a mutant that breaks its rule (its fail), captured once with
 * `npm run recordings` and replayed by the tests through core/session/recorded-source.ts, with no server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check, Status } from '../core/model/check.js';
import type { Config } from '../core/config/config.js';
import { clientFor } from '../core/engine/run.js';
import { runChecks } from '../core/engine/engine.js';
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

/** The mutants that break a check's rule, those that break the fewest other rules first. */
export function mutantsFor(id: string): Mutant[] {
  return MUTANTS.filter((m) => m.kills.includes(id)).sort((a, b) => a.kills.length - b.kills.length);
}

/** Captures the pass and the fail recording of every check (only the pass of an INFO check: it never fails). */
export async function recordAll(dir: string, only?: (c: Check) => boolean): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (const check of ALL_CHECKS.filter(only ?? (() => true))) {
    const pass = await recordCheck(check, []);
    let fail: CheckRecording | undefined;
    // The first mutant the check alone fails against (some only show in the company of other checks' requests).
    for (const m of check.level === 'INFO' ? [] : mutantsFor(check.id)) {
      fail = await recordCheck(check, [m]);
      if (fail.status === 'failed') break;
    }
    writeFileSync(join(dir, `${check.id}.json`), `${JSON.stringify({ pass, ...(fail ? { fail } : {}) }, null, 1)}\n`);
    lines.push(
      `${check.id}: pass ${pass.status} (${pass.exchanges.length} exchanges)${fail ? `, fail ${fail.status} against ${fail.variant} (${fail.exchanges.length} exchanges)` : ''}`,
    );
  }
  return lines;
}
