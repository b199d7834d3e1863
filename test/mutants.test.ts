import { describe, expect, test } from 'vitest';
import { expectNoProcessWarnings } from './helpers/process-warnings.js';
import { MUTANTS, type Mutant } from '../reference/mutants/index.js';
import { ALL_CHECKS } from '../suites/index.js';
import { recordCheck, runEveryCheck } from '../app/check-recordings.js';
import { buildReport } from '../core/model/report.js';
import { failsOf, recordingsOf } from './checks/replay.js';

const gated = ALL_CHECKS.filter((c) => c.level !== 'INFO');
const exclusive = (id: string): boolean => MUTANTS.some((m) => m.kills.length === 1 && m.kills[0] === id);
// A mutant meant for a check that requires https (TRANS-03: the plain http:// origin of an https base URL) runs over
// HTTPS; every other one over plain HTTP. TLS is undici's and Node's, under every check alike: over HTTP each run
// fails exactly the same checks (all 214 such mutants, compared once) for about two thirds of the CPU, and
// test/tls.test.ts, the latitude and the CLI tests run the checks over HTTPS.
const needsHttps = (m: Mutant): boolean =>
  m.kills.some((id) => ALL_CHECKS.find((c) => c.id === id)?.requires?.includes('https'));

// Through the one engine the CLI runs (core/engine/engine.ts), in this process: the same checks, config and records as
// a CLI run against the mutant, without a process, Vitest and a worker started for each of over a hundred mutants.
// The preflight runs first, as in the CLI; the exit code is the report model's, as the CLI's is; the reports around them
// are tested on their own (cli, verdict tests).
describe.concurrent('each mutant of the reference server is caught by exactly the checks meant for it', () => {
  expectNoProcessWarnings();
  for (const m of MUTANTS) {
    test(`${m.name}: ${m.description}`, async () => {
      // As the CLI: the preflight's /auth first, then the checks, at the settings the recordings use (targetArgs':
      // 30 fuzz runs, seed 12345).
      const { records, errors, config } = await runEveryCheck([m], { https: needsHttps(m) });
      expect(errors).toEqual([]);
      // The verdict the CLI would exit with: 1 when a MUST check failed, else 0 (a SHOULD finding never gates).
      const report = buildReport({
        checks: records,
        baseUrl: config.base_url,
        startedAt: new Date(),
        durationMs: 0,
        strict: false,
        catalogue: ALL_CHECKS,
        fuzz: config.fuzz,
        config: {},
        errors,
      });
      expect(report.exit_code).toBe(records.some((r) => r.level === 'MUST' && r.status === 'failed') ? 1 : 0);
      const failed = records
        .filter((r) => r.status === 'failed' || r.status === 'error')
        .map((r) => `${r.id}${r.status === 'error' ? ` (error: ${r.message})` : ''}`)
        .sort();
      expect(failed).toEqual([...m.kills].sort());
    });
  }
});

// #27: the unit tests replay each check's fail recordings (one per mutant of the check), so a recording must still be
// what its mutant does. Each is re-recorded live (one check against its named mutant, as `npm run recordings` captures
// it) and compared by status and fingerprints: a mutant changed since its recording, or a check that no longer fails
// it, shows here. All of them, every run: the 150 cost about 5 s in all (one server and one check each), so no subset
// is needed.
describe.concurrent('each fail recording is what its mutant does now (re-recorded live)', () => {
  for (const check of ALL_CHECKS) {
    const rec = recordingsOf(check.id);
    for (const fail of failsOf(rec))
      test(`${check.id} against ${fail.variant}`, async () => {
        const variants = fail.variant.split('+').map((name) => MUTANTS.find((m) => m.name === name));
        const stale = `recordings/${check.id}.json: run \`npm run recordings -- ${check.id}\``;
        expect(variants.every(Boolean), `${fail.variant} is no mutant any more; ${stale}`).toBe(true);
        const now = await recordCheck(check, variants as Mutant[]);
        expect({ status: now.status, fingerprints: now.fingerprints }, stale).toEqual({
          status: fail.status,
          fingerprints: fail.fingerprints,
        });
      });
  }
});

describe('mutation coverage (static, over MUTANTS)', () => {
  test('every mutant names checks that exist, at MUST or SHOULD level', () => {
    const byId = new Map(ALL_CHECKS.map((c) => [c.id, c]));
    for (const m of MUTANTS) {
      for (const id of m.kills) expect(byId.get(id)?.level, `${m.name} kills ${id}`).toMatch(/MUST|SHOULD/);
    }
  });

  test('mutant names are unique', () => {
    const seen = new Set<string>();
    const twice = MUTANTS.map((m) => m.name).filter((n) => seen.size === seen.add(n).size);
    expect(twice, 'mutant names used twice').toEqual([]);
  });

  test('every MUST and SHOULD check has a mutant that only it catches (kills exactly [that id])', () => {
    const missing = gated.filter((c) => !exclusive(c.id)).map((c) => `${c.id} (${c.title})`);
    const how =
      'add one to reference/mutants/<area>.ts (prefer a Variant.render-style change of one rendered thing, ' +
      'so no other check notices)';
    expect(missing, `checks without a mutant that only they catch: ${how}: ${missing.join('; ')}`).toEqual([]);
  });
});
