import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { packageRoot } from '../core/paths.js';
import type { BenchResult } from '../bench/lib.js';

/**
 * The benchmark is a measurement, not a test (npm run bench); this runs its machinery small — fixture size, one run,
 * no Dredd — and checks the table and the JSON it writes, so the bench cannot rot unnoticed.
 */
test('npm run bench machinery: fixture size, one run, table and JSON', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'bench-smoke-')), 'latest.json');
  const r = spawnSync(process.execPath, [join(packageRoot, 'dist', 'bench', 'bench.js'), '--sizes', 'fixture', '--runs-fixture', '1', '--no-dredd', '--out', out],
    { cwd: packageRoot, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);

  const result = JSON.parse(readFileSync(out, 'utf8')) as BenchResult;
  expect(result.settings).toMatchObject({ concurrency: 8, seed: 1, sizes: ['fixture'], runs: { fixture: 1 } });
  expect(result.rows.map((x) => [x.size, x.tool])).toEqual([['fixture', 'floor'], ['fixture', 'suite'], ['n/a', 'empty'], ['n/a', 'vitest']]);
  const [floor, suite, empty, vitest] = result.rows as [BenchResult['rows'][number], BenchResult['rows'][number], BenchResult['rows'][number], BenchResult['rows'][number]];
  // The floor replays exactly the requests the suite sent (the server counted both).
  expect(suite.requests).toBeGreaterThan(50);
  expect(floor.requests).toBe(suite.requests);
  expect(floor.exit_codes).toEqual([0]);
  expect(suite.exit_codes).toEqual([0]);
  expect(vitest.exit_codes).toEqual([0]);
  expect(floor.note).toBeUndefined();
  // The preflight's /auth of each configured application, and AUTH-01's own token request.
  expect(empty.requests).toBe(3);
  for (const x of result.rows) {
    expect(x.runs).toBe(1);
    expect(x.wall_ms).toBeGreaterThan(0);
    expect(x.peak_rss_mib).toBeGreaterThan(10);
  }
  expect(suite.ratio).toBeCloseTo(suite.wall_ms / floor.wall_ms, 1);
  expect(suite.req_per_s).toBe(Math.round(suite.requests / (suite.wall_ms / 1000)));
  expect(result.targets.map((t) => t.name)).toEqual(['fixture: whole CLI run ≤ 1.5 × (Vitest trivial start + floor)']);
  expect(result.dredd).toMatchObject({ available: false });

  // The printed table: a header, one line per row, the targets, where the JSON went.
  expect(r.stdout).toContain('| size | what | runs | requests | wall (median) | suite/floor | req/s | peak RSS |');
  expect(r.stdout).toMatch(new RegExp(`\\| fixture \\| suite: whole CLI run \\(bin/conformance\\.js\\) \\| 1 \\| ${suite.requests} \\| ${suite.wall_ms} ms \\| ${suite.ratio!.toFixed(2)} × \\|`));
  expect(r.stdout).toMatch(/Targets:\n- (MET|MISSED): fixture: whole CLI run/);
  expect(r.stdout).toContain(`Written: ${out}`);
}, 90_000);
