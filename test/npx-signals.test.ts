import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, tool } from '../core/base/paths.js';
import type { Report } from '../core/model/report.js';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { targetArgs, targetEnv } from './helpers/target.js';

/**
 * Issue 38 item 6: `npx conformance` runs the CLI through `sh -c`, and npm passes a SIGINT or SIGTERM on to that shell
 * only (CI runners and `timeout` signal npx alone). The run still ends within a second with its report.
 */

/** A project with the package installed as npm links it: node_modules/<name> and node_modules/.bin/conformance. */
function npxProject(): string {
  const dir = tempDir('conformance-npx-');
  writeFileSync(join(dir, 'package.json'), '{"name":"npx-signals","private":true}\n');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(packageRoot, join(dir, 'node_modules', tool.name), 'dir');
  symlinkSync(join('..', tool.name, 'bin', 'conformance.js'), join(dir, 'node_modules', '.bin', 'conformance'));
  return dir;
}

/** Every request held back `ms`, and when each arrived. */
function slowDown(srv: RunningServer, ms: number): number[] {
  const seen: number[] = [];
  const [handler] = srv.server.listeners('request') as Array<(...a: unknown[]) => void>;
  srv.server.removeAllListeners('request');
  srv.server.on('request', (req, res) => {
    seen.push(performance.now());
    setTimeout(() => handler!.call(srv.server, req, res), ms);
  });
  return seen;
}

/**
 * Runs `npx --no-install conformance …` and sends `signal` to the npx process alone a second into the checks; resolves
 * once npx has exited and the report is written (or 5 s have passed), with when each happened.
 */
async function signalNpx(
  signal: NodeJS.Signals,
  srv: RunningServer,
  group = false,
  scriptShell?: string,
): Promise<{
  npxExit: { code: number | null; signal: NodeJS.Signals | null };
  sentAt: number;
  reportAt?: number;
  report?: Report;
  stdout: string;
  stderr: string;
}> {
  const dir = npxProject();
  const reportFile = join(dir, 'conformance-report', 'report.json');
  const child = spawn('npx', ['--no-install', 'conformance', ...targetArgs(srv)], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...targetEnv,
      // npm's script shell (`script-shell`): the default is sh, on Debian dash, which waits for the CLI.
      ...(scriptShell !== undefined ? { npm_config_script_shell: scriptShell } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a terminal's foreground job: a real Ctrl-C signals every process of it.
    detached: group,
  });
  let out = '';
  let stderr = '';
  let sentAt = 0;
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (sentAt === 0 && out.includes(': checking ')) {
      sentAt = -1;
      setTimeout(() => {
        sentAt = performance.now();
        process.kill(group ? -child.pid! : child.pid!, signal);
      }, 1000);
    }
  });
  const npxExit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, s) => resolve({ code, signal: s })),
  );
  // The report once written whole (it may be seen while it is being written).
  let reportAt: number | undefined;
  let report: Report | undefined;
  for (let i = 0; i < 100 && report === undefined; i++) {
    try {
      if (existsSync(reportFile)) {
        const at = performance.now();
        report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
        reportAt = at;
      }
    } catch {
      /* not whole yet */
    }
    if (report === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  return {
    npxExit,
    sentAt,
    ...(reportAt !== undefined && report !== undefined ? { reportAt, report } : {}),
    stdout: out,
    stderr,
  };
}

describe('signals sent to npx alone (issue 38 item 6)', () => {
  test('a real Ctrl-C (SIGINT to the whole process group): the report of what finished, and no harness error', async () => {
    const srv = await startReferenceServer({ https: true });
    slowDown(srv, 150);
    try {
      const r = await signalNpx('SIGINT', srv, true);
      expect(r.report, r.stderr).toBeDefined();
      expect(r.reportAt! - r.sentAt).toBeLessThan(1000);
      expect(r.report!.verdict).toBe('incomplete');
      expect(r.report!.errors.join(' ')).toMatch(/the run was interrupted \(SIGINT\)/);
      // One signal: no second-signal exit, no checks' process that died of it, no unhandled error.
      expect(r.report!.errors.join(' ')).not.toMatch(/checks' process stopped/);
      expect(r.stderr).not.toMatch(/unhandled error|Worker emitted error|HARNESS/);
      // The summary names the interruption after the run, not as a fault of the suite.
      expect(r.stdout).toMatch(/^  RUN: the run was interrupted \(SIGINT\): \d+ of \d+ checks did not finish$/m);
    } finally {
      await srv.close();
    }
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    test(`${signal} to npx: the run stops within a second with its report of what finished (INCOMPLETE), and sends nothing more`, async () => {
      const srv = await startReferenceServer({ https: true });
      const seen = slowDown(srv, 150);
      try {
        const r = await signalNpx(signal, srv);
        expect(r.sentAt).toBeGreaterThan(0);
        // npx ends as a process that got the signal (a shell says 130 or 143); the report says INCOMPLETE, exit 3.
        expect(r.npxExit.signal ?? r.npxExit.code).toBe(signal);
        expect(r.report, r.stderr).toBeDefined();
        expect(r.reportAt! - r.sentAt).toBeLessThan(1000);
        expect(r.report!.verdict).toBe('incomplete');
        expect(r.report!.exit_code).toBe(3);
        expect(r.report!.errors.join(' ')).toMatch(/the run was interrupted \(/);
        expect(r.stderr).toMatch(/stopping, writing the report of what finished/);
        expect(r.stderr).not.toMatch(/unhandled error|Worker emitted error/);
        // Nothing is sent once the report is written.
        await new Promise((res) => setTimeout(res, 1000));
        expect(seen.filter((t) => t > r.reportAt! + 300)).toEqual([]);
      } finally {
        await srv.close();
      }
    });

  // Where npm's script shell runs its command in place of itself (bash, macOS's /bin/sh), the CLI is npm's own child
  // and npm passes the signal on to it: no watch of the parent is needed, on any system. npx then ends with the CLI's
  // exit code, 3.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    test(`${signal} to npx when npm's script shell is bash: the CLI gets the signal itself and ends the same way`, async () => {
      const srv = await startReferenceServer({ https: true });
      const seen = slowDown(srv, 150);
      try {
        const r = await signalNpx(signal, srv, false, '/bin/bash');
        expect(r.sentAt).toBeGreaterThan(0);
        expect(r.report, r.stderr).toBeDefined();
        expect(r.reportAt! - r.sentAt).toBeLessThan(1000);
        expect(r.report!.verdict).toBe('incomplete');
        expect(r.report!.exit_code).toBe(3);
        // Its own signal, named: not the parent watch's words.
        expect(r.report!.errors.join(' ')).toContain(`the run was interrupted (${signal})`);
        expect(r.npxExit).toEqual({ code: 3, signal: null });
        expect(r.stderr).not.toMatch(/unhandled error|Worker emitted error/);
        await new Promise((res) => setTimeout(res, 1000));
        expect(seen.filter((t) => t > r.reportAt! + 300)).toEqual([]);
      } finally {
        await srv.close();
      }
    });
});
