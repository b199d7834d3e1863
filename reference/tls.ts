import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Throw-away TLS material for the reference server (the demo, `serve --https`, the tests), made when first asked for
 * instead of shipped: a PEM private key in the package is what secret scanners flag. A test CA, a certificate it
 * signs for the loopback names, and a self-signed certificate for the same names that no CA signed. EC P-256 keys,
 * made once per process (tens of milliseconds) and kept in memory only; the two certificates are also written to
 * a private temporary folder, removed when the process exits, since clients take a file (--ca-file, curl --cacert,
 * NODE_EXTRA_CA_CERTS). Nothing here is secret beyond the process: trust the CA for this server only.
 */
export interface TestTls {
  /** The test CA's certificate (PEM), and its file: what a client of the reference server trusts. */
  ca: { cert: string; certFile: string };
  /** The server's key and its certificate, signed by the test CA. */
  server: { key: string; cert: string };
  /** A self-signed key and certificate for the same names, signed by no CA, and the certificate's file. */
  selfSigned: { key: string; cert: string; certFile: string };
}

/** The names every certificate covers: the loopback addresses the reference server listens on. */
export const TLS_NAMES = { dns: ['localhost'], ip: ['127.0.0.1', '127.0.0.2', '::1'] };

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

let made: Promise<TestTls> | undefined;

/** The process's test TLS material, made on the first call. */
export function testTls(): Promise<TestTls> {
  made ??= makeTestTls();
  return made;
}

async function makeTestTls(): Promise<TestTls> {
  // @peculiar/x509 (tsyringe) needs the Reflect metadata polyfill loaded first; both only when TLS is asked for.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto);
  const keys = (): Promise<webcrypto.CryptoKeyPair> =>
    webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const pem = (key: webcrypto.CryptoKey): string =>
    KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }) as string;
  // A day back, so a clock a little behind still accepts them; a year ahead, for a long `serve`.
  const validity = { notBefore: new Date(Date.now() - DAY_MS), notAfter: new Date(Date.now() + 365 * DAY_MS) };
  const serial = (): string => `01${randomBytes(15).toString('hex')}`;
  const names = new x509.SubjectAlternativeNameExtension([
    ...TLS_NAMES.dns.map((value) => ({ type: 'dns' as const, value })),
    ...TLS_NAMES.ip.map((value) => ({ type: 'ip' as const, value })),
  ]);
  const leaf = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    names,
  ];

  const [caKeys, serverKeys, selfKeys] = await Promise.all([keys(), keys(), keys()]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    ...validity,
    serialNumber: serial(),
    name: 'CN=Conformance suite test CA (throw-away, this process only)',
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const server = await x509.X509CertificateGenerator.create({
    ...validity,
    serialNumber: serial(),
    subject: 'CN=localhost',
    issuer: ca.subject,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: leaf,
  });
  const selfSigned = await x509.X509CertificateGenerator.createSelfSigned({
    ...validity,
    serialNumber: serial(),
    name: 'CN=localhost',
    keys: selfKeys,
    signingAlgorithm: ALGORITHM,
    extensions: leaf,
  });

  const dir = mkdtempSync(join(tmpdir(), 'conformance-tls-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const caCert = ca.toString('pem');
  const selfCert = selfSigned.toString('pem');
  return {
    ca: { cert: caCert, certFile: file('ca.pem', caCert) },
    server: { key: pem(serverKeys.privateKey), cert: server.toString('pem') },
    selfSigned: { key: pem(selfKeys.privateKey), cert: selfCert, certFile: file('self-signed.pem', selfCert) },
  };
}
