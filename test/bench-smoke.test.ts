import { tempDir } from './helpers/temp-dirs.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { packageRoot } from '../core/base/paths.js';
import type { BenchResult, Row } from '../bench/lib.js';

/**
 * The benchmark is a measurement, not a test (npm run bench); this runs its machinery small — fixture size, one run,
 * no Dredd — and checks the table and the JSON it writes, so the bench cannot rot unnoticed.
 */
test('npm run bench machinery: fixture size, one run, table and JSON', () => {
  const out = join(tempDir('bench-smoke-'), 'latest.json');
  const r = spawnSync(
    process.execPath,
    [
      join(packageRoot, 'dist', 'bench', 'bench.js'),
      '--sizes',
      'fixture',
      '--runs-fixture',
      '1',
      '--latency',
      '20',
      '--chain-latency',
      '50',
      '--no-dredd',
      '--out',
      out,
    ],
    { cwd: packageRoot, encoding: 'utf8', timeout: 100_000 },
  );
  expect(r.status, r.stderr).toBe(0);

  const result = JSON.parse(readFileSync(out, 'utf8')) as BenchResult;
  expect(result.settings).toMatchObject({
    concurrency: 8,
    seed: 1,
    sizes: ['fixture'],
    runs: { fixture: 1 },
    latencies_ms: [20],
    chain_latency_ms: 50,
  });
  expect(result.rows.map((x) => [x.size, x.tool, x.latency_ms])).toEqual([
    ['fixture', 'floor', undefined],
    ['fixture', 'suite', undefined],
    ['n/a', 'empty', undefined],
    ['n/a', 'vitest', undefined],
    ['fixture', 'unbounded', 50],
    ['fixture', 'physical', 20],
    ['fixture', 'dependency', 20],
    ['fixture', 'suite', 20],
    ['fixture', 'default', 20],
  ]);
  const [floor, suite, empty, vitest, unbounded, physical, dependency, far, defaults] = result.rows as [
    Row,
    Row,
    Row,
    Row,
    Row,
    Row,
    Row,
    Row,
    Row,
  ];
  // The floor replays exactly the requests the suite sent (the server counted both).
  expect(suite.requests).toBeGreaterThan(50);
  expect(floor.requests).toBe(suite.requests);
  expect(floor.exit_codes).toEqual([0]);
  expect(suite.exit_codes).toEqual([0]);
  expect(vitest.exit_codes).toEqual([0]);
  expect(floor.note).toBeUndefined();
  // The preflight's /auth of each configured application, and AUTH-01's own token request.
  expect(empty.requests).toBe(3);
  // At +20 ms: the physical floor is the arithmetic of the issue (requests × round trip ÷ concurrency + the replay's
  // time), the exhaustive run is measured against it, and the defaults' run gets its verdict.
  expect(physical.runs).toBe(0);
  expect(physical.requests).toBe(far.requests);
  expect(physical.wall_ms).toBe(Math.round((far.requests * 20) / 8 + floor.wall_ms));
  // The dependency floor: the chain counted in the run that never waits for a slot (as wide as the run is long, at
  // the chain's own round trip), × the row's round trip; the chain is at least token → list → detail, and the run is
  // measured against the larger floor.
  // As wide as the run, up to the CLI's largest --concurrency (256; a default run sends more requests since #35).
  expect(unbounded.label).toContain(`--concurrency ${Math.min(suite.requests, 256)}`);
  expect(unbounded.ratio).toBeCloseTo(unbounded.wall_ms / (unbounded.chain! * 50), 1);
  expect(unbounded.exit_codes).toEqual([0]);
  expect(dependency.chain).toBe(unbounded.chain);
  expect(dependency.chain).toBeGreaterThanOrEqual(3);
  expect(dependency.chain).toBeLessThan(unbounded.requests);
  expect(dependency.wall_ms).toBe(dependency.chain! * 20);
  expect(unbounded.samples[0]!.chain_exchanges).toHaveLength(dependency.chain!);
  expect(unbounded.samples[0]!.chain_exchanges![0]).toBe('GET /open/auth');
  expect(far.ratio).toBeCloseTo(far.wall_ms / Math.max(physical.wall_ms, dependency.wall_ms), 1);
  expect(far.exit_codes).toEqual([0]);
  expect(defaults.exit_codes).toEqual([0]);
  for (const x of result.rows.filter((r) => r.tool !== 'physical' && r.tool !== 'dependency')) {
    expect(x.runs).toBe(1);
    expect(x.wall_ms).toBeGreaterThan(0);
    expect(x.peak_rss_mib).toBeGreaterThan(10);
  }
  expect(suite.ratio).toBeCloseTo(suite.wall_ms / floor.wall_ms, 1);
  expect(suite.req_per_s).toBe(Math.round(suite.requests / (suite.wall_ms / 1000)));
  expect(result.targets.map((t) => t.name)).toEqual(['fixture: whole CLI run ≤ 1.5 × its request floor']);
  expect(result.dredd).toMatchObject({ available: false });

  // The printed table: a header, one line per row, the targets, where the JSON went.
  expect(r.stdout).toContain('| size | what | runs | requests | wall (median) | suite/floor | req/s | peak RSS |');
  expect(r.stdout).toMatch(
    new RegExp(
      `\\| fixture \\| suite: whole CLI run \\(bin/conformance\\.js\\) \\| 1 \\| ${suite.requests} \\| ${suite.wall_ms} ms \\| ${suite.ratio!.toFixed(2)} × \\|`,
    ),
  );
  expect(r.stdout).toMatch(/Targets:\n- (MET|NOT MET): fixture: whole CLI run/);
  expect(r.stdout).toContain(
    `| fixture +20 ms | throughput floor: requests × 20 ms ÷ 8 + transfer (the replay at 0 ms) | 0 | ${physical.requests} | ${physical.wall_ms} ms |`,
  );
  expect(r.stdout).toContain(
    `| fixture +20 ms | dependency floor: the longest chain, ${dependency.chain} round trips, × 20 ms (counted in the unbounded run) | 0 | ${dependency.requests} | ${dependency.wall_ms} ms |`,
  );
  expect(r.stdout).toContain(`Written: ${out}`);
  // The request count before issue 35 (231) beside this run's.
  expect(r.stdout).toContain(`requests: 231 before issue 35's probes, ${suite.requests} in this run`);

  // The table again from the saved results, nothing measured (what the coordinator reruns after a merge): the same
  // table, and the same targets.
  const again = spawnSync(process.execPath, [join(packageRoot, 'dist', 'bench', 'bench.js'), '--from', out], {
    cwd: packageRoot,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(again.status, again.stderr).toBe(0);
  const table = (s: string): string =>
    s
      .slice(s.indexOf('| size |'))
      .replace(/Written: .*\n/, '')
      .trim();
  expect(table(again.stdout)).toBe(table(r.stdout));
}, 120_000);
