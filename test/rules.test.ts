import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { rulesMarkdown, RULES_DOC } from '../app/rules-doc.js';
import { packageRoot } from '../core/base/paths.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { LATITUDE_VARIANTS } from '../reference/variants.js';
import { ALL_CHECKS } from '../suites/index.js';
import {
  APP_WAYS,
  appFor,
  BARE_WAYS,
  CARRIER_WAYS,
  PATH_WAYS,
  placeIndex,
  REQUEST_BUDGET,
  VALUE_WAYS,
} from '../suites/support/token-probes.js';
import { runCli } from './helpers/cli.js';
import { DATA_ENDPOINTS } from '../core/spec/endpoints.js';
import { AUTH_SCHEME } from '../core/spec/auth-scheme.js';
import { APPS, CELLS, cellsOf, RULES, WAYS, type Proof } from '../suites/rules/index.js';
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

  test('the token rule follows the probes: every way at every place in every run, from the application appFor gives', () => {
    const token = RULES.find((r) => r.id === '§4 rule 4, §5.4')!;
    const cells = cellsOf(token);
    let checked = 0;
    APP_WAYS.forEach((w, k) =>
      DATA_ENDPOINTS.forEach((ep, i) =>
        [
          { path: ep.path, index: placeIndex(i) },
          ...PATH_WAYS.map((p, v) => ({ path: p.path(ep.path).replace(/:ID$/, ':id'), index: placeIndex(i, v) })),
        ].forEach(({ path, index }) => {
          const how = w.kind === 'carrier' ? w.name : `${w.name}, in ${AUTH_SCHEME.carrierName}`;
          const sent = appFor(APPS, k, index);
          for (const app of APPS) {
            const cell = cells.find((c) => c.how === how && c.place === `GET ${path}` && c.app === app);
            expect(cell?.outcome?.kind, `${w.name} at ${path} for ${app}`).toBe('probed');
            if (cell?.outcome?.kind !== 'probed') continue;
            // Never only from a longer run; the cell's own request goes out from the design's application.
            expect(cell.outcome.scope ?? '', `${w.name} at ${path}`).not.toContain('--fuzz-runs');
            expect(cell.outcome.via === undefined, `${w.name} at ${path} for ${app}`).toBe(app === sent);
            checked++;
          }
        }),
      ),
    );
    expect(checked).toBe(APP_WAYS.length * 30 * 3);
    // No cell of the matrix is probed only from a longer run.
    expect(CELLS.filter((c) => c.outcome?.kind === 'probed' && c.outcome.scope?.includes('--fuzz-runs'))).toEqual([]);
  });

  test('the ways that need no token are probed at every place for every application', () => {
    const token = RULES.find((r) => r.id === '§4 rule 4, §5.4')!;
    const bare = cellsOf(token).filter(
      (c) => BARE_WAYS.some((w) => c.how.startsWith(`${w.name}:`)) && !c.place.startsWith('HEAD'),
    );
    expect(bare.length).toBe(BARE_WAYS.length * 30 * 3);
    expect(bare.filter((c) => c.outcome?.kind !== 'probed')).toEqual([]);
  });

  test('every not-applicable cell quotes a sentence of the spec or an RFC', () => {
    const na = CELLS.flatMap((c) => (c.outcome?.kind === 'not applicable' ? [c.outcome] : []));
    expect(na.length).toBeGreaterThan(0);
    for (const o of na) {
      expect(o.quote.length, o.why).toBeGreaterThan(10);
      expect(o.source, o.quote).toMatch(/§|RFC/);
    }
  });

  test(`a default run stays within its request budget (at most ${REQUEST_BUDGET.max}; ${REQUEST_BUDGET.before} before #35)`, async () => {
    const run = await runCli(['--demo', '--seed', String(REQUEST_BUDGET.seed), '--record-har', 'run.har']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const har = JSON.parse(readFileSync(join(run.dir, 'run.har'), 'utf8')) as { log: { entries: unknown[] } };
    const sent = har.log.entries.length;
    expect(sent, `the demo run with seed ${REQUEST_BUDGET.seed} sent ${sent} requests`).toBeLessThanOrEqual(
      REQUEST_BUDGET.max,
    );
    // Not vacuous: the run did send the fixture's requests (the budget is for a whole run).
    expect(sent).toBeGreaterThan(REQUEST_BUDGET.before);
  }, 60_000);
});
