import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';
import { startReferenceServer, TLS_DIR, type RunningServer } from '../reference/server.js';

/**
 * https:// targets: trusted through a CA file or accepted in insecure mode; otherwise one line that names the fix,
 * exit 3 (nothing could be checked), and no report.
 */

const SELF_SIGNED = { key: join(TLS_DIR, 'self-signed.key'), cert: join(TLS_DIR, 'self-signed.pem') };
const FIX = /--ca-file.*--insecure/;

async function withTls<T>(opts: { selfSigned?: boolean; https?: boolean }, fn: (srv: RunningServer) => Promise<T>): Promise<T> {
  const srv = await startReferenceServer({ https: opts.https ?? true, ...(opts.selfSigned ? { tlsFiles: SELF_SIGNED } : {}) });
  try { return await fn(srv); } finally { await srv.close(); }
}

/** Flags for the target without the --ca-file targetArgs adds for https. */
const bare = (srv: RunningServer, extra: string[] = []): string[] => ['--base-url', srv.baseUrl, '--fuzz-runs', '10', '--seed', '7', ...extra];

describe.concurrent('TLS', () => {
  test('a server whose certificate a CA file vouches for: the whole suite passes', async () => {
    await withTls({}, async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.code, run.stdout.slice(-1500)).toBe(0);
      expect(run.report!.checks.find((c) => c.id === 'TRANS-03')?.status).not.toBe('skipped');
    });
  });

  test('the same server without the CA file: one line naming --ca-file and --insecure, exit 3', async () => {
    await withTls({}, async (srv) => {
      const run = await runCli(bare(srv), { env: targetEnv });
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/^conformance: cannot reach https:\/\/127\.0\.0\.1:\d+\/open: the server certificate .*not trusted: give the CA that signed it with tls\.ca_file \/ --ca-file, or accept any certificate with tls\.insecure \/ --insecure \(testing only\)\n$/);
      expect(run.stdout).toBe('');
      expect(run.report).toBeUndefined();
    });
  });

  test('a self-signed certificate: one line naming the fix, exit 3', async () => {
    await withTls({ selfSigned: true }, async (srv) => {
      const run = await runCli(bare(srv), { env: targetEnv });
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/^conformance: cannot reach \S+: the server certificate is self-signed and not trusted: /);
      expect(run.stderr).toMatch(FIX);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    });
  });

  test('a self-signed certificate with --insecure: the suite runs and passes', async () => {
    await withTls({ selfSigned: true }, async (srv) => {
      const run = await runCli(bare(srv, ['--insecure']), { env: targetEnv });
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout.slice(-1500)).toBe(0);
    });
  });

  test('a self-signed certificate given as its own CA file (tls.ca_file through the environment)', async () => {
    await withTls({ selfSigned: true }, async (srv) => {
      const run = await runCli(bare(srv, ['--only', 'AUTH-0*']), { env: { ...targetEnv, CONFORMANCE_CA_FILE: SELF_SIGNED.cert } });
      expect(run.code, run.stdout.slice(-1500)).toBe(0);
    });
  });

  test('an https:// base URL pointing at a plain HTTP server: one line, exit 3', async () => {
    await withTls({ https: false }, async (srv) => {
      const run = await runCli(['--base-url', srv.baseUrl.replace('http:', 'https:'), '--timeout-ms', '3000'], { env: targetEnv });
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/^conformance: cannot reach https:\S+: TLS handshake failed \(is the server speaking HTTPS\?\)\n$/);
    });
  });
});
