import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { rulesMarkdown, RULES_DOC } from '../app/rules-doc.js';
import { packageRoot } from '../core/base/paths.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { LATITUDE_VARIANTS } from '../reference/variants.js';
import { ALL_CHECKS } from '../suites/index.js';
import {
  CARRIER_WAYS,
  PATH_WAYS,
  probeRequests,
  REQUEST_BUDGET,
  VALUE_WAYS,
  waysAt,
} from '../suites/support/token-probes.js';
import { runCli } from './helpers/cli.js';
import { DEFAULTS } from '../core/config/config.js';
import { DATA_ENDPOINTS } from '../core/spec/endpoints.js';
import { CELLS, cellsOf, RULES, WAYS, type Proof } from '../suites/rules/index.js';
import { MUTANTS_OF_WAY } from '../suites/rules/tokens.js';

const proofs: Proof[] = CELLS.flatMap((c) => (c.outcome?.kind === 'probed' ? c.outcome.by : []));
const checks = new Map(ALL_CHECKS.map((c) => [c.id, c]));
const mutants = new Map(MUTANTS.map((m) => [m.name, m]));

describe('the rule matrix (suites/rules/)', () => {
  test('docs/rules.md is what the matrix generates (npm run rules writes it)', () => {
    const onDisk = readFileSync(join(packageRoot, RULES_DOC), 'utf8');
    expect(onDisk === rulesMarkdown(), `${RULES_DOC} is stale: run npm run rules`).toBe(true);
  });

  test('every cell is probed or says why not', () => {
    const holes = CELLS.filter((c) => !c.outcome).map((c) => `${c.rule} / ${c.how} / ${c.place} / ${c.app}`);
    expect(holes).toEqual([]);
    for (const c of CELLS)
      if (c.outcome?.kind === 'not probed') expect(c.outcome.why.length, `${c.rule} / ${c.how}`).toBeGreaterThan(10);
  });

  test('every check a cell names exists, and probes at MUST or SHOULD', () => {
    const unknown = proofs.filter((p) => !checks.has(p.check)).map((p) => p.check);
    expect([...new Set(unknown)]).toEqual([]);
    const info = proofs.filter((p) => checks.get(p.check)?.level === 'INFO').map((p) => p.check);
    expect([...new Set(info)]).toEqual([]);
  });

  test('every mutant a cell names exists and is caught by the check the cell names', () => {
    const wrong = proofs.flatMap((p) =>
      p.mutants
        .filter((m) => !mutants.get(m)?.kills.includes(p.check))
        .map((m) => `${m} ${mutants.has(m) ? `does not kill ${p.check}` : 'is no mutant'}`),
    );
    expect([...new Set(wrong)]).toEqual([]);
  });

  test('every mutant proves at least one cell (a new mutant is placed in the matrix: suites/rules/)', () => {
    const named = new Set(proofs.flatMap((p) => p.mutants));
    expect(MUTANTS.map((m) => m.name).filter((n) => !named.has(n))).toEqual([]);
  });

  test('a probed cell without a mutant says why none proves it', () => {
    const silent = proofs.filter((p) => !p.mutants.length && !p.unproven?.trim()).map((p) => p.check);
    expect(silent).toEqual([]);
  });

  test('every variant named beside a rule is a conforming variant', () => {
    const names = new Set(LATITUDE_VARIANTS.map((v) => v.name));
    const unknown = RULES.flatMap((r) => r.latitude.flatMap((l) => l.variants)).filter((v) => !names.has(v));
    expect([...new Set(unknown)]).toEqual([]);
  });

  test('every MUST and SHOULD check probes at least one cell', () => {
    const named = new Set(proofs.map((p) => p.check));
    const missing = ALL_CHECKS.filter((c) => c.level !== 'INFO' && !named.has(c.id)).map((c) => c.id);
    expect(missing).toEqual([]);
  });

  test('rule ids are unique and every way is one of the matrix’s ways', () => {
    const ids = RULES.map((r) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const c of CELLS) expect(WAYS).toContain(c.way);
  });

  test('every generated token probe has its mutants listed (an empty list is a stated gap)', () => {
    const names = [...VALUE_WAYS, ...CARRIER_WAYS, ...PATH_WAYS].map((w) => w.name);
    expect(names.filter((n) => !(n in MUTANTS_OF_WAY))).toEqual([]);
    expect(Object.keys(MUTANTS_OF_WAY).filter((n) => !names.includes(n))).toEqual([]);
  });

  test('the token rule follows the probes: a default run probes at each endpoint the ways waysAt gives it', () => {
    const token = RULES.find((r) => r.id === '§4 rule 4, §5.4')!;
    const families = [
      { ways: VALUE_WAYS, how: (name: string) => `${name}, in open-token` },
      { ways: CARRIER_WAYS, how: (name: string) => name },
    ];
    for (const { ways, how } of families)
      for (const w of ways)
        DATA_ENDPOINTS.forEach((ep, i) => {
          const cell = cellsOf(token).find(
            (c) => c.how === how(w.name) && c.place === `GET ${ep.path}` && c.app === 'app',
          );
          expect(cell?.outcome?.kind, `${w.name} at ${ep.path}`).toBe('probed');
          const inDefaultRun = !(cell?.outcome?.kind === 'probed' && cell.outcome.scope?.includes('--fuzz-runs'));
          expect(inDefaultRun, `${w.name} at ${ep.path}`).toBe(
            (waysAt(ways as readonly unknown[], i, DEFAULTS.fuzz_runs) as unknown[]).includes(w),
          );
        });
  });

  test('the generated probes send one request per way of each family in a default run, every way somewhere', () => {
    const ways = VALUE_WAYS.length + CARRIER_WAYS.length + PATH_WAYS.length;
    // Every way once, and a family with fewer ways than endpoints fills every endpoint: no request more.
    const perFamily = [VALUE_WAYS, CARRIER_WAYS, PATH_WAYS].map((w) => Math.max(w.length, DATA_ENDPOINTS.length));
    expect(probeRequests(DEFAULTS.fuzz_runs)).toBe(perFamily.reduce((a, b) => a + b, 0));
    expect(probeRequests(DEFAULTS.fuzz_runs)).toBeGreaterThanOrEqual(ways);
  });

  test(`a default run stays within its request budget (at most ${REQUEST_BUDGET.max}, 10 % over the ${REQUEST_BUDGET.before} before #27)`, async () => {
    const run = await runCli(['--demo', '--seed', String(REQUEST_BUDGET.seed), '--record-har', 'run.har']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const har = JSON.parse(readFileSync(join(run.dir, 'run.har'), 'utf8')) as { log: { entries: unknown[] } };
    const sent = har.log.entries.length;
    expect(sent, `the demo run with seed ${REQUEST_BUDGET.seed} sent ${sent} requests`).toBeLessThanOrEqual(
      REQUEST_BUDGET.max,
    );
    // Not vacuous: the run did send the fixture's requests (the budget is for a whole run).
    expect(sent).toBeGreaterThan(REQUEST_BUDGET.before * 0.9);
  }, 60_000);
});
