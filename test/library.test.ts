import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot, tool } from '../core/paths.js';
import type { Report } from '../core/report.js';
import { ALL_CHECKS } from '../suites/index.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { withServer } from './helpers/target.js';
import { failedIds } from './helpers/cli.js';

const EXAMPLE = join(packageRoot, 'examples', 'vitest-library');
const VITEST = join(packageRoot, 'node_modules', 'vitest', 'vitest.mjs');

/**
 * The example project as a vendor would have it: its own folder, the package and Vitest under node_modules (linked
 * to this checkout's build and Vitest), run with `vitest run` and its own config.
 */
function exampleProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-library-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(packageRoot, join(dir, 'node_modules', tool.name), 'dir');
  symlinkSync(join(packageRoot, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir');
  return dir;
}

function vitestRun(
  dir: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<{ code: number | null; out: string; report?: Report }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const file = join(dir, 'conformance-report', 'report.json');
      resolve({ code, out, ...(existsSync(file) ? { report: JSON.parse(readFileSync(file, 'utf8')) as Report } : {}) });
    });
  });
}

describe("library mode: conformanceSuite in a project's own Vitest (examples/vitest-library)", () => {
  test("against the server its test starts: every check passes, exit 0, and the reporter writes the CLI's report", async () => {
    const dir = exampleProject();
    const run = await vitestRun(dir);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('Conformance: CONFORMANT');
    const r = run.report!;
    expect(r.verdict).toBe('conformant');
    expect(r.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
    expect(r.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.fuzz).toEqual({ seed: 12345, runs: 20 });
    expect(existsSync(join(dir, 'conformance-report', 'junit.xml'))).toBe(true);
    // The fixture's key pairs are redacted in the report, as in a CLI run.
    expect(JSON.stringify(r)).not.toContain('sk_test_golden_dragon_Vb81mZ');
  });

  test('against a broken server: the same checks fail as in the CLI (a MUST failure fails the Vitest run), a SHOULD failure only warns', async () => {
    const must = MUTANTS.find((m) => m.name === 'status-lowercase')!;
    const should = MUTANTS.find((m) => m.name === 'device-field-table-only')!; // ORD-02, SHOULD (ENV-02 is MUST since issue 11)
    expect(must.kills.length).toBeGreaterThan(0);
    await withServer([must], async (srv) => {
      const run = await vitestRun(exampleProject(), { TARGET_URL: srv.baseUrl, TARGET_CA_FILE: srv.caFile! });
      expect(run.code, run.out).toBe(1);
      expect(failedIds(run.report)).toEqual([...must.kills].sort());
      expect(run.report!.verdict).toBe('not conformant');
      for (const id of must.kills) expect(run.out).toContain(id);
    });
    await withServer([should], async (srv) => {
      const run = await vitestRun(exampleProject(), { TARGET_URL: srv.baseUrl, TARGET_CA_FILE: srv.caFile! });
      expect(run.code, run.out).toBe(0);
      expect(failedIds(run.report)).toEqual(should.kills);
      expect(run.report!.verdict).toBe('conformant');
    });
  });

  test("Vitest's blob reports merged with --merge-reports give the same conformance report (the reporter reads the tests' meta)", async () => {
    const dir = exampleProject();
    const shard = await vitestRun(dir, {}, ['--shard=1/1', '--reporter=blob']);
    expect(shard.code, shard.out).toBe(0);
    expect(shard.report).toBeUndefined();
    const merged = await vitestRun(dir, {}, ['--merge-reports']);
    expect(merged.code, merged.out).toBe(0);
    expect(merged.report!.verdict).toBe('conformant');
    expect(merged.report!.checks.map((c) => c.id).sort()).toEqual(ALL_CHECKS.map((c) => c.id).sort());
    expect(merged.report!.fuzz).toEqual({ seed: 12345, runs: 20 });
  });
});
