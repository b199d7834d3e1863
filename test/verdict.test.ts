import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { LARGE } from '../reference/fixtures.js';
import { startReferenceServer, type RunningServer, type Variant } from '../reference/server.js';
import { validate } from '../core/spec/schemas.js';

/**
 * The verdict is the product (issue 10): a run that could not judge never says CONFORMANT or NOT CONFORMANT, a setup
 * mistake is never the server's fault, CONFORMANT claims no more than was checked, and every output agrees.
 */

const withoutOtherApp = { ...targetEnv, CONFORMANCE_OTHER_SECRET: '', CONFORMANCE_OTHER_KEY: '' };

/** Every response of the server comes `ms` later (a server far away, or a slow one). */
function slowDown(srv: RunningServer, ms: number): void {
  const [handler] = srv.server.listeners('request') as Array<(...a: unknown[]) => void>;
  srv.server.removeAllListeners('request');
  srv.server.on('request', (req, res) => {
    setTimeout(() => handler!.call(srv.server, req, res), ms);
  });
}

/** Counts the requests the server receives. */
function counter(): Variant & { count: number } {
  const v = {
    name: 'count',
    description: 'counts requests',
    count: 0,
    handle: (_req: unknown, next: () => never) => {
      v.count++;
      return next();
    },
  };
  return v as unknown as Variant & { count: number };
}

const lines = (s: string): string[] => s.split('\n').filter(Boolean);

describe.concurrent('verdicts you can trust', () => {
  test('a large merchant with a short deadline: INCOMPLETE, exit 3, a report of what finished, no failure', async () => {
    const srv = await startReferenceServer({ https: true, size: LARGE });
    try {
      const run = await runCli(targetArgs(srv, ['--deadline-ms', '3000', '--max-details', 'all']), {
        env: targetEnv,
        timeoutMs: 60_000,
      });
      const r = run.report!;
      expect(run.code).toBe(3);
      expect(r.verdict).toBe('incomplete');
      expect(r.exit_code).toBe(3);
      // The deadline is not the server's failure: nothing failed, the unfinished checks say why.
      expect(
        r.checks.filter((c) => c.outcome === 'failed' || c.outcome === 'warned').map((c) => `${c.id}: ${c.message}`),
      ).toEqual([]);
      const unfinished = r.checks.filter((c) => c.outcome === 'incomplete');
      expect(unfinished.length).toBeGreaterThan(0);
      expect(unfinished.every((c) => /deadline|not finished/.test(c.message))).toBe(true);
      // Honoured within a second: the suite's own run time stays within the deadline plus its grace.
      expect(r.duration_ms).toBeLessThan(3000 + 1500);
      expect(run.stdout).toMatch(/^INCOMPLETE: /m);
      expect(run.stdout).toMatch(/Not finished/);
      const junit = readFileSync(join(run.dir, 'conformance-report', 'junit.xml'), 'utf8');
      expect(junit).toMatch(/<testsuites [^>]*failures="0"/);
      expect(junit).toContain('<property name="conformance.verdict" value="incomplete"/>');
      expect(validate('report', r)).toEqual([]);
    } finally {
      await srv.close();
    }
  });

  test('a wrong secret key stops before any check: one line naming the key settings, exit 3, a report of nothing judged', async () => {
    // Vitest is created while the preflight runs (here a slow one) and started only once it passed: none of the
    // checks' requests may go out.
    const seen: string[] = [];
    const counter: Variant = {
      name: 'request-log',
      description: 'logs the path of every request; /auth answers after 1.5 s',
      delayMs: (req) => {
        seen.push(req.path);
        return req.path === '/auth' ? 1500 : 0;
      },
    };
    await withServer(
      [counter],
      async (srv) => {
        const run = await runCli(targetArgs(srv, ['--key', 'sk_wrong']), { env: targetEnv });
        expect(seen.every((p) => p === '/auth')).toBe(true);
        // Both applications' /auth, and app's refused pair asked once more with an open-token header (§4 rule 3).
        expect(seen.length).toBeLessThanOrEqual(3);
        expect(run.code).toBe(3);
        expect(run.stdout).toBe('');
        expect(lines(run.stderr)).toHaveLength(1);
        expect(run.stderr).toMatch(
          /refused the key pair of app: .*code 401.*Check app\.secret \/ app\.key \(CONFORMANCE_SECRET \/ CONFORMANCE_KEY.*if it is right, the server is at fault/,
        );
        expect(run.stderr).not.toContain('sk_wrong');
        // The report says why and judges nothing (test/preflight.test.ts reads it whole).
        expect(run.report?.verdict).toBe('nothing judged');
      },
      { https: false },
    );
  });

  test('a wrong key of other_app is named as other_app', async () => {
    await withServer(
      [],
      async (srv) => {
        const run = await runCli(targetArgs(srv, ['--other-key', 'sk_nope']), { env: targetEnv });
        expect(run.code).toBe(3);
        expect(run.stderr).toMatch(
          /refused the key pair of other_app: .*CONFORMANCE_OTHER_SECRET \/ CONFORMANCE_OTHER_KEY/,
        );
      },
      { https: false },
    );
  });

  test('a base URL with the wrong path prefix stops before any check, naming base_url, exit 3', async () => {
    await withServer(
      [],
      async (srv) => {
        const run = await runCli(['--base-url', `${srv.url}/api/v1`, '--seed', '1'], { env: targetEnv });
        expect(run.code).toBe(3);
        expect(lines(run.stderr)).toHaveLength(1);
        expect(run.stderr).toMatch(
          /no \/auth endpoint at .*\/api\/v1: .*Check base_url \(--base-url, CONFORMANCE_BASE_URL\)/,
        );
        expect(run.report?.verdict_reason).toBe(run.stderr.replace(/^conformance: |\n$/g, ''));
      },
      { https: false },
    );
  });

  test('other_app of the same merchant stops the run naming other_app; the same key pair twice is a usage error', async () => {
    const sameMerchant: Variant = {
      name: 'second-app-of-merchant-1',
      description: 'a second application of merchant 1',
      fixtures: (f) => {
        f.apps.push({
          name: 'Second POS',
          secret: 'pk_second_pos',
          key: 'sk_second_pos',
          merchant: 1,
          disabled: false,
          tokens: [],
        });
      },
    };
    await withServer(
      [sameMerchant],
      async (srv) => {
        const run = await runCli(targetArgs(srv), {
          env: { ...targetEnv, CONFORMANCE_OTHER_SECRET: 'pk_second_pos', CONFORMANCE_OTHER_KEY: 'sk_second_pos' },
        });
        expect(run.code).toBe(3);
        expect(run.stderr).toMatch(/other_app authenticates as the same merchant as app.*Check other_app\.secret/);
        const twice = await runCli(targetArgs(srv), {
          env: {
            ...targetEnv,
            CONFORMANCE_OTHER_SECRET: targetEnv.CONFORMANCE_SECRET!,
            CONFORMANCE_OTHER_KEY: targetEnv.CONFORMANCE_KEY!,
          },
        });
        expect(twice.code).toBe(2);
        expect(twice.stderr).toMatch(/other_app has the same public key as app/);
      },
      { https: false },
    );
  });

  test('without other_app: PASSED, PARTIAL in every output, exit 0; --strict exits 3', async () => {
    await withServer([], async (srv) => {
      const dir = tempDir('partial-');
      const summary = join(dir, 'summary.md');
      const run = await runCli(targetArgs(srv), {
        env: { ...withoutOtherApp, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
        cwd: dir,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const r = run.report!;
      expect(r.verdict).toBe('partial');
      expect(r.coverage.complete).toBe(false);
      expect(r.coverage.not_run.map((n) => n.id).sort()).toEqual(['ISO-01', 'ISO-02', 'ISO-03', 'ISO-04']);
      // And the cells of the rule matrix other_app's cells and the skipped checks leave unprobed (#35).
      expect(run.stdout).toMatch(
        /^PASSED, PARTIAL: 4 MUST checks not run or not run in full \(4 need other_app\); \d+ of the rule matrix's \d+ applicable cells not probed$/m,
      );
      expect(readFileSync(summary, 'utf8')).toMatch(/Conformance: PASSED, PARTIAL/);
      const junit = readFileSync(join(dir, 'conformance-report', 'junit.xml'), 'utf8');
      expect(junit).toContain('<property name="conformance.verdict" value="partial"/>');
      expect(junit).toMatch(/<testsuites [^>]*failures="0" errors="0"/);
      expect(readFileSync(join(dir, 'conformance-report', 'report.html'), 'utf8')).toContain('PASSED, PARTIAL');
      const strict = await runCli(targetArgs(srv, ['--strict']), { env: withoutOtherApp });
      expect(strict.code).toBe(3);
      expect(strict.report!.verdict).toBe('partial');
      expect(strict.report!.verdict_reason).toMatch(/--strict/);
    });
  });

  test('--only NOPE-99 is a usage error naming the closest ids: no request, the report directory untouched', async () => {
    const spy = counter();
    await withServer([spy], async (srv) => {
      const dir = tempDir('only-');
      mkdirSync(join(dir, 'conformance-report'));
      writeFileSync(join(dir, 'conformance-report', 'report.json'), '{"previous": "run"}');
      const run = await runCli(targetArgs(srv, ['--only', 'NOPE-99']), { env: targetEnv, cwd: dir });
      expect(run.code).toBe(2);
      expect(lines(run.stderr)).toEqual([
        'conformance: --only NOPE-99 matches no check (conformance catalogue lists them)',
      ]);
      const typo = await runCli(targetArgs(srv, ['--skip', 'ISO-1']), { env: targetEnv, cwd: dir });
      expect(typo.code).toBe(2);
      expect(typo.stderr).toMatch(/--skip ISO-1 matches no check \(did you mean ISO-01/);
      expect(spy.count).toBe(0);
      expect(readFileSync(join(dir, 'conformance-report', 'report.json'), 'utf8')).toBe('{"previous": "run"}');
    });
  });

  test('--only ISO-01 is PARTIAL, not CONFORMANT', async () => {
    await withServer([], async (srv) => {
      const run = await runCli(targetArgs(srv, ['--only', 'ISO-01']), { env: targetEnv });
      expect(run.code).toBe(0);
      expect(run.report!.verdict).toBe('partial');
      expect(run.stdout).toMatch(/Selection: 1 of \d+ checks/);
      expect(run.stdout).toMatch(/PASSED, PARTIAL: \d+ MUST checks not run or not run in full \(\d+ not selected\)/);
    });
  });

  test('a baselined failure exits 0 with failures="0"; a baseline written on one defect does not hide another of the same check', async () => {
    const dir = tempDir('fingerprint-');
    const oneSeat: Variant = {
      name: 'one-seat-wrong-user',
      description: 'seat 11 carries user_id 999',
      render: { seat: (s) => (s.id === 11 ? { ...s, user_id: 999 } : { ...s }) },
    };
    const dishes: Variant = {
      name: 'dishes-wrong-user',
      description: 'even dishes carry user_id 999',
      render: { dish: (d) => (Number(d.id) % 2 === 0 ? { ...d, user_id: 999 } : { ...d }) },
    };
    await withServer([oneSeat], async (srv) => {
      const first = await runCli(targetArgs(srv), { env: targetEnv, cwd: dir });
      expect(first.code).toBe(1);
      // Every copy of seat 11 the run reads (#35: its list record, its detail, order 5001's seat).
      expect(first.report!.checks.find((c) => c.id === 'CONS-05')!.fingerprints).toEqual([
        'detail:seat:11:user_id',
        'order:5001:seat:user_id',
        'seat:11:user_id',
      ]);
      execFileSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'conformance.js'), 'baseline'], {
        cwd: dir,
      });
      expect(readFileSync(join(dir, 'known-failures.yaml'), 'utf8')).toMatch(/\n\s+- seat:11:user_id/);
      const known = await runCli(targetArgs(srv, ['--baseline', 'known-failures.yaml']), { env: targetEnv, cwd: dir });
      expect(known.code).toBe(0);
      expect(known.report!.checks.find((c) => c.id === 'CONS-05')!.outcome).toBe('known');
      const junit = readFileSync(join(dir, 'conformance-report', 'junit.xml'), 'utf8');
      expect(junit).toMatch(/<testsuites [^>]*failures="0" errors="0"/);
      expect(junit).toMatch(/CONS-05[^>]*><system-out>KNOWN \(does not fail the run\)/);
    });
    await withServer([dishes], async (srv) => {
      const other = await runCli(targetArgs(srv, ['--baseline', 'known-failures.yaml']), { env: targetEnv, cwd: dir });
      expect(other.code).toBe(1);
      const c = other.report!.checks.find((x) => x.id === 'CONS-05')!;
      expect(c.outcome).toBe('failed');
      expect(c.baseline?.state).toBe('new');
      expect(
        c.baseline?.new_fingerprints?.every((f) => /^(other_app:)?(detail:|order:\d+:)?dish:\d+:user_id$/.test(f)),
      ).toBe(true);
      expect(other.stdout).toMatch(/FAIL\s+CONS-05/);
      expect(other.stdout).toMatch(/new now: (detail:|order:\d+:)?dish:\d+:user_id/);
    });
  });

  test('the report directory holds one run: files of formats not written this time are removed, others kept', async () => {
    await withServer(
      [],
      async (srv) => {
        const dir = tempDir('onerun-');
        const full = await runCli(targetArgs(srv, ['--only', 'AUTH-*']), { env: targetEnv, cwd: dir });
        expect(full.code).toBe(0);
        writeFileSync(join(dir, 'conformance-report', 'notes.txt'), 'mine');
        const json = await runCli(targetArgs(srv, ['--only', 'AUTH-*', '--reporter', 'json']), {
          env: targetEnv,
          cwd: dir,
        });
        expect(json.code).toBe(0);
        const files = ['report.json', 'junit.xml', 'report.html', 'notes.txt'].filter((f) =>
          existsSync(join(dir, 'conformance-report', f)),
        );
        expect(files).toEqual(['report.json', 'notes.txt']);
      },
      { https: false },
    );
  });

  test('Ctrl-C (SIGINT) ends the run with a report of what finished, INCOMPLETE, exit 3', async () => {
    const srv = await startReferenceServer({ https: true });
    slowDown(srv, 150);
    try {
      let pid = 0;
      let out = '';
      let sent = false;
      // Interrupted while checks run (a second after the run's first line), as a person pressing Ctrl-C would.
      const running = runCli(targetArgs(srv), {
        env: targetEnv,
        onSpawn: (p) => {
          pid = p;
        },
        onStdout: (chunk) => {
          out += chunk;
          if (!sent && out.includes(': checking ')) {
            sent = true;
            setTimeout(() => process.kill(pid, 'SIGINT'), 1500);
          }
        },
      });
      const run = await running;
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/SIGINT: stopping, writing the report of what finished/);
      const r = run.report!;
      expect(r.verdict).toBe('incomplete');
      expect(r.errors.join(' ')).toMatch(/interrupted \(SIGINT\)/);
      expect(r.checks.length).toBeGreaterThan(40);
      expect(r.checks.some((c) => c.outcome === 'incomplete')).toBe(true);
      expect(r.checks.some((c) => c.outcome === 'failed')).toBe(false);
      // The reason says the count once: the stop's own words carry it, the ids follow them.
      expect(r.verdict_reason.match(/checks? did not finish/g)).toHaveLength(1);
      expect(r.verdict_reason).toMatch(
        /^the run was interrupted \(SIGINT\): \d+ of \d+ checks did not finish \([A-Z][^)]*\); the first: /,
      );
      // One count of unfinished checks everywhere it is said: the harness line, the verdict's reason, the list.
      const n = r.checks.filter((c) => c.outcome === 'incomplete' || c.outcome === 'error').length;
      const counts = [
        ...`${r.errors.join('\n')}\n${r.verdict_reason}\n${run.stdout}`.matchAll(
          /(\d+)(?: of \d+)? checks? did not finish/g,
        ),
      ].map((m) => Number(m[1]));
      expect(counts.length).toBeGreaterThanOrEqual(3);
      expect(new Set(counts)).toEqual(new Set([n]));
      const list = run.stdout
        .split("Not finished (no verdict on these; never the server's failure):\n")[1]!
        .split('\n\n')[0]!;
      expect(list.split('\n').filter((l) => !l.startsWith('  RUN: '))).toHaveLength(n);
    } finally {
      await srv.close();
    }
  });

  test('a checking worker that dies is a harness error: exit 3, the report of what finished, no stack trace', async () => {
    const srv = await startReferenceServer({ https: true });
    slowDown(srv, 150);
    try {
      let pid = 0;
      let checking = false;
      const running = runCli(targetArgs(srv), {
        env: targetEnv,
        onSpawn: (p) => {
          pid = p;
        },
        // The checks' process starts early (bin/conformance.js): it runs checks once the CLI says it is checking.
        onStdout: (s) => {
          checking ||= s.includes(': checking ');
        },
      });
      let child = '';
      for (let i = 0; i < 100 && !(child && checking); i++) {
        await new Promise((r) => setTimeout(r, 100));
        try {
          child =
            execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
              .trim()
              .split('\n')[0] ?? '';
        } catch {
          /* not yet */
        }
      }
      expect(child).not.toBe('');
      await new Promise((r) => setTimeout(r, 1000));
      process.kill(Number(child), 'SIGKILL');
      const run = await running;
      expect(run.code).toBe(3);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      const r = run.report!;
      expect(r.verdict).toBe('incomplete');
      expect(r.errors.length).toBeGreaterThan(0);
      expect(r.checks.some((c) => c.outcome === 'failed')).toBe(false);
      expect(existsSync(join(run.dir, 'conformance-report', 'junit.xml'))).toBe(true);
    } finally {
      await srv.close();
    }
  });

  test('Ctrl-C during the preflight: no check starts, NOTHING JUDGED and why, exit 3', async () => {
    const srv = await startReferenceServer({ https: true });
    const seen: string[] = [];
    let pid = 0;
    const [handler] = srv.server.listeners('request') as Array<(...a: unknown[]) => void>;
    srv.server.removeAllListeners('request');
    // The preflight's first /auth is answered a second late; the CLI is interrupted as it arrives.
    srv.server.on('request', (req: { url?: string }, res: unknown) => {
      seen.push(req.url ?? '');
      if (seen.length === 1) process.kill(pid, 'SIGINT');
      setTimeout(() => handler!.call(srv.server, req, res), seen.length === 1 ? 1000 : 0);
    });
    const run = await runCli(targetArgs(srv), { env: targetEnv, onSpawn: (p) => (pid = p) }).finally(() => srv.close());
    expect(run.code).toBe(3);
    expect(run.report!.verdict).toBe('nothing judged');
    expect(run.report!.verdict_reason).toBe('the run was interrupted (SIGINT) before any check started');
    expect(run.report!.checks).toEqual([]);
    // The preflight's /auth of each application, and nothing after it.
    expect(seen.length).toBeLessThanOrEqual(2);
    expect(seen.every((u) => u.includes('/auth'))).toBe(true);
  });

  // The checks start in their own process as soon as the preflight passed (app/checks-process.ts): a CLI killed outright
  // (no signal handler runs, no report) must not leave that process sending requests to the server.
  test('a CLI killed with SIGKILL leaves no checks process sending requests', async () => {
    const srv = await startReferenceServer({ https: true });
    const seen: number[] = [];
    const [handler] = srv.server.listeners('request') as Array<(...a: unknown[]) => void>;
    srv.server.removeAllListeners('request');
    srv.server.on('request', (req, res) => {
      seen.push(performance.now());
      setTimeout(() => handler!.call(srv.server, req, res), 150);
    });
    try {
      let pid = 0;
      let killedAt = 0;
      let armed = false;
      const running = runCli(targetArgs(srv), {
        env: targetEnv,
        onSpawn: (p) => {
          pid = p;
        },
        onStdout: (s) => {
          if (armed || !s.includes(': checking ')) return;
          armed = true;
          // Killed while its checks are sending: once the server has seen the engine's first requests (the two
          // preflight ones and six more), whatever the machine's load makes of the checks' start.
          const kill = (): void => {
            if (seen.length < 8) return void setTimeout(kill, 10);
            killedAt = performance.now();
            process.kill(pid, 'SIGKILL');
          };
          kill();
        },
      });
      while (!killedAt || performance.now() < killedAt + 1200) await new Promise((r) => setTimeout(r, 50));
      const during = seen.filter((t) => t < killedAt).length;
      // Requests already on their way may land just after the kill; none is sent once the process has seen it.
      expect(during).toBeGreaterThan(5);
      expect(seen.filter((t) => t > killedAt + 200)).toEqual([]);
      // The checks' process holds the CLI's stdout and stderr: they close once it is gone.
      expect((await running).code).toBeNull();
    } finally {
      await srv.close();
    }
  });
});
