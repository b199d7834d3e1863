import { tempDir } from './helpers/temp-dirs.js';
import { TOKEN_HEADER, tokenOfRequest } from '../core/spec/auth-scheme.js';
import { describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { failedIds, runCli, type CliRun } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { AUTH_NAMES_MERCHANT_1_FOR_OTHER_APP } from '../reference/variants.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import type { Variant } from '../reference/server.js';
import { validate } from '../core/spec/schemas.js';
import { parseRunFault, sandboxVariant } from '../reference/sandbox.js';

/**
 * Issue 23: the preflight stops a run only for what is the setup's (no answer, no API at base_url, a key pair
 * refused, two applications of one merchant), never for what the server does wrong, and a stop leaves a report that
 * says why.
 */

const withoutOtherApp = { ...targetEnv, CONFORMANCE_OTHER_SECRET: '', CONFORMANCE_OTHER_KEY: '' };
const mutant = (name: string): Variant => MUTANTS.find((m) => m.name === name)!;
const lines = (s: string): string[] => s.split('\n').filter(Boolean);
/** What the preflight tells a user whose key pair it blames. */
const BLAMES_KEYS = /check (other_)?app\.secret/i;

/** A run the server is blamed for, not the setup: exit 1, `ids` among the failed checks, no setup line anywhere. */
function serverAtFault(run: CliRun, ids: string[]): void {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(1);
  expect(run.report!.verdict).toBe('not conformant');
  expect(failedIds(run.report)).toEqual(expect.arrayContaining(ids));
  expect(`${run.stdout}${run.stderr}`).not.toMatch(BLAMES_KEYS);
}

describe.concurrent('the preflight blames the setup only for what is the setup’s', () => {
  test('a wrong key pair (401, no token) stops with one line, exit 3, after one probe with an open-token header; report.json, junit.xml, report.html and the job summary say why', async () => {
    const seen: string[] = [];
    const log: Variant = {
      name: 'request-log',
      description: 'logs each request: its path, and whether it carried an open-token header',
      delayMs: (req) => {
        seen.push(`${req.path} ${tokenOfRequest(req.headers) === undefined ? 'without' : 'with'} a token`);
        return 0;
      },
    };
    await withServer(
      [log],
      async (srv) => {
        const summary = join(tempDir('setup-stop-'), 'summary.md');
        const run = await runCli(targetArgs(srv, ['--key', 'sk_wrong']), {
          env: { ...withoutOtherApp, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
        });
        expect(run.code).toBe(3);
        // On GitHub Actions the one line is also the run's one annotation (stdout); the terminal keeps it on stderr.
        expect(lines(run.stdout)).toEqual([
          expect.stringMatching(/^::error title=NOTHING JUDGED::the server refused the key pair of app: /),
        ]);
        expect(lines(run.stderr)).toHaveLength(1);
        expect(run.stderr).toMatch(
          new RegExp(
            `^conformance: the server refused the key pair of app: GET \\S+/auth answered HTTP 401, code 401, status "ERROR", msg "Application authentication error" \\(and again with an ${TOKEN_HEADER} header\\)\\. Check app\\.secret / app\\.key`,
          ),
        );
        // The answer without a token, then the one probe the spec allows (§4 rule 3): no secret is guessed.
        expect(seen).toEqual(['/auth without a token', '/auth with a token']);
        const line = run.stderr.replace(/^conformance: |\n$/g, '');
        const r = run.report!;
        expect(validate('report', r)).toEqual([]);
        expect(r).toMatchObject({ verdict: 'nothing judged', exit_code: 3, verdict_reason: line, checks: [] });
        const dir = join(run.dir, 'conformance-report');
        const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
        expect(junit).toMatch(/<testsuites [^>]*tests="1" failures="0" errors="1"/);
        expect(junit).toContain('<property name="conformance.verdict" value="nothing judged"/>');
        expect(junit).toMatch(
          /<testcase classname="verdict" name="a MUST check was judged" [^>]*><error message="the server refused the key pair of app: /,
        );
        expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('NOTHING JUDGED');
        expect(readFileSync(summary, 'utf8')).toMatch(
          /^## \S+ Conformance: NOTHING JUDGED\n\nthe server refused the key pair of app/,
        );
        for (const f of ['report.json', 'junit.xml', 'report.html'])
          expect(readFileSync(join(dir, f), 'utf8')).not.toContain('sk_wrong');
      },
      { https: false },
    );
  });

  test('an unreachable target still writes its report of nothing judged', async () => {
    const run = await runCli(['--base-url', 'http://127.0.0.1:9/open'], {
      env: { CONFORMANCE_SECRET: 'a', CONFORMANCE_KEY: 'b' },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('conformance: cannot reach http://127.0.0.1:9/open: connection refused\n');
    expect(run.report).toMatchObject({
      verdict: 'nothing judged',
      verdict_reason: 'cannot reach http://127.0.0.1:9/open: connection refused',
    });
    expect(existsSync(join(run.dir, 'conformance-report', 'junit.xml'))).toBe(true);
  });

  /** The sandbox's own fault (`conformance serve --fault FAULT`), injected into the answers of /auth only. */
  const sandboxFaultOnAuth = (fault: string): Variant => {
    const sandbox = sandboxVariant({ faults: [parseRunFault(fault)], seed: 1 });
    return {
      name: `sandbox-${fault}-on-auth`,
      description: `the sandbox's fault ${fault} on every /auth request`,
      delayMs: (req) => (req.path === '/auth' ? sandbox.delayMs!(req) : 0),
      handle: (req, next, world) => (req.path === '/auth' ? sandbox.handle!(req, next, world) : next()),
    };
  };

  test('a 500 the sandbox injects on /auth is named a server error, never a refused key pair: the run goes on and AUTH-01 fails it', async () => {
    await withServer(
      [sandboxFaultOnAuth('500')],
      async (srv) => {
        const run = await runCli(
          targetArgs(srv, ['--only', 'AUTH-01', '--only', 'AUTH-02', '--only', 'AUTH-03', '--only', 'AUTH-04']),
          { env: withoutOtherApp },
        );
        expect(`${run.stdout}${run.stderr}`).not.toMatch(BLAMES_KEYS);
        expect(`${run.stdout}${run.stderr}`).not.toMatch(/refused/);
        expect(run.stdout).toMatch(
          /^Warning: the server failed the preflight's GET \/auth for app with a server error \(HTTP 500, code 500, status "ERROR"\), which is no refusal of the key pair/m,
        );
        expect(run.code).toBe(1);
        expect(failedIds(run.report)).toEqual(['AUTH-01']);
        // The checks of what a successful /auth answer holds saw none: they judged nothing, so none says passed.
        const rest = run.report!.checks.filter((c) => c.id !== 'AUTH-01');
        expect(rest.map((c) => [c.id, c.status, c.message])).toEqual(
          ['AUTH-02', 'AUTH-03', 'AUTH-04'].map((id) => [
            id,
            'skipped',
            `blocked: no successful /auth answer to read (see ${id === 'AUTH-02' ? 'AUTH-01' : 'AUTH-01, AUTH-02'})`,
          ]),
        );
      },
      { https: false },
    );
  });

  test('a server that answers 500 to every request: no check says passed on what it did not see (every check of a success it never got is blocked or fails)', async () => {
    const sandbox = sandboxVariant({ faults: [parseRunFault('500')], seed: 1 });
    await withServer(
      [sandbox],
      async (srv) => {
        const run = await runCli(targetArgs(srv), { env: targetEnv });
        expect(run.stderr).toBe('');
        expect(run.code).toBe(1);
        const r = run.report!;
        // The one check judged passed is the one of error answers: it saw 500s, each an error envelope.
        expect(r.checks.filter((c) => c.level !== 'INFO' && c.status === 'passed').map((c) => c.id)).toEqual([
          'ERR-04',
        ]);
        // A 500 to a valid key pair is a failure of the rule that /auth issues a token: app's and other_app's.
        expect(failedIds(r)).toEqual(expect.arrayContaining(['AUTH-01', 'AUTH-02']));
        // The checks that compare successful answers (and so saw none) are blocked, saying so.
        for (const id of ['AUTH-03', 'AUTH-04', 'ERR-06', 'RO-01', 'RO-02'])
          expect(
            r.checks.find((c) => c.id === id),
            id,
          ).toMatchObject({
            status: 'skipped',
            message: expect.stringMatching(/^blocked: no /),
          });
      },
      { https: false },
    );
  });

  test("a check's /auth that times out names its key pair redacted once: [REDACTED:public-key], never [FORGED-REDACTED:…]", async () => {
    // The preflight's /auth calls (app's, other_app's) answer at once; every later one comes after the run's timeout.
    let auths = 0;
    const late: Variant = {
      name: 'late-auth-after-preflight',
      description: 'every /auth after the first two answers after 1.5 s',
      delayMs: (req) => (req.path === '/auth' && ++auths > 2 ? 1500 : 0),
    };
    await withServer(
      [late],
      async (srv) => {
        const run = await runCli(targetArgs(srv, ['--only', 'AUTH-01', '--timeout-ms', '500']), { env: targetEnv });
        const c = run.report!.checks.find((x) => x.id === 'AUTH-01')!;
        expect(c.status).toBe('incomplete');
        expect(c.message).toMatch(
          /^could not finish: GET \S+\/auth\?secret=\[REDACTED:public-key\]&key=\[REDACTED:secret-key\]: no complete response within 500 ms/,
        );
        for (const text of [run.stdout, JSON.stringify(run.report)]) {
          expect(text).not.toContain('FORGED-REDACTED');
          expect(text).not.toContain('\uE000');
        }
      },
      { https: false },
    );
  });

  test('an /auth answer the sandbox cuts short is a server fault, neither an unreachable target nor a refused key pair: the run goes on', async () => {
    await withServer(
      [sandboxFaultOnAuth('truncate')],
      async (srv) => {
        const run = await runCli(targetArgs(srv, ['--only', 'AUTH-01']), { env: withoutOtherApp });
        const out = `${run.stdout}${run.stderr}`;
        expect(out).not.toMatch(BLAMES_KEYS);
        expect(out).not.toMatch(/cannot reach/);
        expect(run.stdout).toMatch(
          /^Warning: the server's answer to the preflight's GET \/auth broke off \(the server closed the connection before the body reached its Content-Length\), which is no refusal of the key pair/m,
        );
        // The run went on: AUTH-01 judged (or could not finish) the same answer.
        expect(run.report!.checks.map((c) => c.id)).toEqual(['AUTH-01']);
      },
      { https: false },
    );
  });

  test('a key pair the sandbox answers as disabled is refused, and the line quotes the server’s own words for it', async () => {
    await withServer(
      [sandboxFaultOnAuth('disabled')],
      async (srv) => {
        const run = await runCli(targetArgs(srv, ['--only', 'AUTH-01']), { env: withoutOtherApp });
        expect(run.code).toBe(3);
        expect(run.stderr).toMatch(
          /^conformance: the server refused the key pair of app: GET \S+\/auth answered HTTP 401, code 401, status "ERROR", msg "The merchant has disabled the application \(sandbox fault\)" \(and again/,
        );
      },
      { https: false },
    );
  });

  test('an /auth slower than timeout_ms (the sandbox’s latency) is an unreachable server, never a refused key pair', async () => {
    await withServer(
      [sandboxFaultOnAuth('latency=3000')],
      async (srv) => {
        const run = await runCli(targetArgs(srv, ['--only', 'AUTH-01', '--timeout-ms', '300']), {
          env: withoutOtherApp,
        });
        expect(run.code).toBe(3);
        expect(run.stderr).toMatch(
          /^conformance: cannot reach \S+: no complete response within 300 ms \(timeout_ms\)\n$/,
        );
        expect(`${run.stdout}${run.stderr}`).not.toMatch(BLAMES_KEYS);
      },
      { https: false },
    );
  });

  test('/auth that refuses every pair unless an open-token header is sent: the run goes on and AUTH-01 fails it, exit 1', async () => {
    await withServer([mutant('auth-demands-open-token')], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      serverAtFault(run, ['AUTH-01']);
      expect(run.stdout).toMatch(
        new RegExp(
          `^Warning: GET /auth refused the key pair of app and other_app without an ${TOKEN_HEADER} header and accepted it with one: /auth needs no token \\(§4 rule 3\\)`,
          'm',
        ),
      );
      expect(run.report!.checks.find((c) => c.id === 'AUTH-01')!.message).toMatch(/code 401/);
    });
  });

  const refusalWithToken: Variant = {
    name: 'auth-refusal-with-token',
    description: '/auth answers a valid key pair with HTTP 401 and an error envelope, but its data carries the token',
    handle: (req, next) => {
      const r = next();
      if (req.path !== '/auth' || r.http !== 200) return r;
      const { data } = r.body as { data: unknown };
      return { http: 401, body: { status: 'ERROR', code: 401, msg: 'Application not authenticated', data } };
    },
  };
  test.each([
    ['status "success"', mutant('auth-status-lowercase')],
    ['code "200"', mutant('auth-code-string')],
    ['code 0', mutant('auth-code-zero')],
    ['a 401 error envelope', refusalWithToken],
  ])(
    '/auth that carries a token in %s accepted the pair: the run goes on and AUTH-01 fails it, exit 1',
    async (_what, variant) => {
      await withServer([variant], async (srv) => {
        serverAtFault(await runCli(targetArgs(srv), { env: targetEnv }), ['AUTH-01']);
      });
    },
  );

  test('/auth names merchant 1 for merchant 2’s application while /merchant names 2: AUTH-04 fails it for other_app, exit 1', async () => {
    await withServer([AUTH_NAMES_MERCHANT_1_FOR_OTHER_APP], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      serverAtFault(run, ['AUTH-04']);
      expect(run.report!.checks.find((c) => c.id === 'AUTH-04')!.message).toMatch(
        /^other_app: the merchant of \/auth and of \/merchant differ in id \(1 vs 2\)/,
      );
    });
  });
});

describe.concurrent('disabled_app with the key pair of another configured application is a usage error', () => {
  // The target cannot be reached: an exit 2 shows the mistake was found before any request.
  test.each([
    ['app', CREDENTIALS.app, /^conformance: disabled_app has the same public key as app: /],
    ['other_app', CREDENTIALS.other_app, /^conformance: disabled_app has the same public key as other_app: /],
    [
      'app (its secret key only)',
      { secret: 'pk_some_other', key: CREDENTIALS.app.key },
      /^conformance: disabled_app has the same secret key as app: /,
    ],
  ])('with %s’s: exit 2, one line, no report', async (_who, creds, message) => {
    const run = await runCli(['--base-url', 'http://127.0.0.1:9/open'], {
      env: { ...targetEnv, CONFORMANCE_DISABLED_SECRET: creds.secret, CONFORMANCE_DISABLED_KEY: creds.key },
    });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain(creds.key);
    expect(run.stdout).toBe('');
    expect(existsSync(join(run.dir, 'conformance-report'))).toBe(false);
  });
});
