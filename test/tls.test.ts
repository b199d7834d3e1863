import { describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { testTls, TLS_NAMES } from '../reference/tls.js';

/**
 * https:// targets: trusted through a CA file or accepted in insecure mode; otherwise one line that names the fix,
 * exit 3 (nothing could be checked), and no report.
 */

const FIX = /--ca-file.*--insecure/;

async function withTls<T>(
  opts: { selfSigned?: boolean; https?: boolean },
  fn: (srv: RunningServer) => Promise<T>,
): Promise<T> {
  const srv = await startReferenceServer({
    https: opts.https ?? true,
    ...(opts.selfSigned ? { tls: (await testTls()).selfSigned } : {}),
  });
  try {
    return await fn(srv);
  } finally {
    await srv.close();
  }
}

/** Flags for the target without the --ca-file targetArgs adds for https. */
const bare = (srv: RunningServer, extra: string[] = []): string[] => [
  '--base-url',
  srv.baseUrl,
  '--fuzz-runs',
  '10',
  '--seed',
  '7',
  ...extra,
];

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
      expect(run.stderr).toMatch(
        /^conformance: cannot reach https:\/\/127\.0\.0\.1:\d+\/open: the server certificate .*not trusted: give the CA that signed it with tls\.ca_file \/ --ca-file, or accept any certificate with tls\.insecure \/ --insecure \(testing only\)\n$/,
      );
      expect(run.stdout).toBe('');
      expect(run.report?.verdict).toBe('nothing judged');
    });
  });

  test('a self-signed certificate: one line naming the fix, exit 3', async () => {
    await withTls({ selfSigned: true }, async (srv) => {
      const run = await runCli(bare(srv), { env: targetEnv });
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(
        /^conformance: cannot reach \S+: the server certificate is self-signed and not trusted: /,
      );
      expect(run.stderr).toMatch(FIX);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    });
  });

  test('a self-signed certificate with --insecure: the suite runs and passes', async () => {
    await withTls({ selfSigned: true }, async (srv) => {
      const run = await runCli(bare(srv, ['--insecure']), { env: targetEnv });
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout.slice(-1500)).toBe(0);
      // Said before the checks, once: no certificate was checked.
      expect(
        run.stdout.match(/^Warning: TLS certificates are not verified \(tls\.insecure, --insecure\)/gm),
      ).toHaveLength(1);
    });
  });

  test('a self-signed certificate given as its own CA file (tls.ca_file through the environment)', async () => {
    await withTls({ selfSigned: true }, async (srv) => {
      const run = await runCli(bare(srv, ['--only', 'AUTH-0*']), {
        env: { ...targetEnv, CONFORMANCE_CA_FILE: (await testTls()).selfSigned.certFile },
      });
      expect(run.code, run.stdout.slice(-1500)).toBe(0);
    });
  });

  test('an https:// base URL pointing at a plain HTTP server: one line, exit 3', async () => {
    await withTls({ https: false }, async (srv) => {
      const run = await runCli(['--base-url', srv.baseUrl.replace('http:', 'https:'), '--timeout-ms', '3000'], {
        env: targetEnv,
      });
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(
        /^conformance: cannot reach https:\S+: TLS handshake failed \(is the server speaking HTTPS\?\)\n$/,
      );
    });
  });
});

describe('the throw-away TLS material, made at start (nothing shipped)', () => {
  test('one CA per process; it signs the server certificate for the loopback names; the self-signed one is signed by no CA', async () => {
    const [tls, again] = await Promise.all([testTls(), testTls()]);
    expect(again).toBe(tls);
    const ca = new X509Certificate(tls.ca.cert);
    const server = new X509Certificate(tls.server.cert);
    const self = new X509Certificate(tls.selfSigned.cert);
    expect(ca.ca).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(self.checkIssued(ca)).toBe(false);
    expect(self.verify(self.publicKey)).toBe(true);
    for (const cert of [server, self]) {
      for (const host of TLS_NAMES.dns) expect(cert.checkHost(host)).toBe(host);
      for (const ip of TLS_NAMES.ip) expect(cert.checkIP(ip)).toBe(ip);
      expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    }
    expect(server.checkPrivateKey(createPrivateKey(tls.server.key))).toBe(true);
    // Clients take files: the certificates (never a key) are written where --ca-file can read them.
    expect(readFileSync(tls.ca.certFile, 'utf8')).toBe(tls.ca.cert);
    expect(readFileSync(tls.selfSigned.certFile, 'utf8')).toBe(tls.selfSigned.cert);
  });

  // Clients that verify strictly (OpenSSL's X509_STRICT, Python 3.13's default context) want RFC 5280's key
  // identifiers and a keyCertSign CA: the DER written by reference/tls.ts is read by OpenSSL itself here.
  test('OpenSSL verifies the chain and the self-signed certificate in strict mode', async () => {
    const tls = await testTls();
    const verify = (caFile: string, cert: string): string => {
      const r = spawnSync('openssl', ['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', caFile], {
        input: cert,
        encoding: 'utf8',
      });
      return `${r.stdout}${r.stderr}`.trim();
    };
    expect(verify(tls.ca.certFile, tls.server.cert)).toBe('stdin: OK');
    expect(verify(tls.selfSigned.certFile, tls.selfSigned.cert)).toBe('stdin: OK');
    expect(verify(tls.ca.certFile, tls.selfSigned.cert)).toMatch(
      /self-signed certificate\nerror stdin: verification failed/,
    );
    const text = spawnSync('openssl', ['x509', '-noout', '-text'], { input: tls.ca.cert, encoding: 'utf8' }).stdout;
    expect(text).toMatch(/Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
    expect(text).toMatch(/Key Usage: critical\s+Certificate Sign/);
    expect(text).toMatch(/Signature Algorithm: ecdsa-with-SHA256/);
  });
});
