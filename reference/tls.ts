import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
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

const DAY_MS = 86_400_000;

let made: Promise<TestTls> | undefined;

/** The process's test TLS material, made on the first call. */
export function testTls(): Promise<TestTls> {
  made ??= Promise.resolve().then(makeTestTls);
  return made;
}

/**
 * DER (ITU-T X.690), just what an X.509 v3 certificate needs: a tag, a definite length, the contents. Node's crypto
 * reads certificates (X509Certificate) but writes none, and a certificate library with its polyfills is megabytes
 * in every user's install for the demo's sake; the structure below is RFC 5280 §4.1, field by field.
 */
function der(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  if (n > 0xffff) throw new RangeError(`a DER value of ${n} bytes: longer than any certificate here needs`);
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}
const sequence = (...items: Buffer[]): Buffer => der(0x30, ...items);
const octets = (b: Buffer): Buffer => der(0x04, b);
/** A BIT STRING: its bytes, the last `unused` bits of them not part of it (a named-bit list ends at its last 1). */
const bits = (b: Buffer, unused = 0): Buffer => der(0x03, Buffer.from([unused]), b);
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}
/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5), to the second, in UTC. */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]|\.\d+/g, ''); // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}
/** A distinguished name of one common name. */
const name = (cn: string): Buffer => sequence(der(0x31, sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(cn)))));
const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  sequence(oid(id), ...(critical ? [der(0x01, Buffer.from([0xff]))] : []), octets(value));
/** An IP address as a SAN carries it: 4 or 16 bytes. */
function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const groups = (s: string | undefined): string[] => (s ? s.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...(tail === undefined ? [] : Array<string>(missing).fill('0')), ...groups(tail)];
  return Buffer.concat(all.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}
/** The key identifier of RFC 5280 §4.2.1.2 (1): SHA-1 of the public key's bits. */
function keyId(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // SubjectPublicKeyInfo is SEQUENCE { AlgorithmIdentifier, BIT STRING }: the key's bits are its last 65 bytes (an
  // uncompressed P-256 point), after the BIT STRING's unused-bits byte.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

interface CertificateSpec {
  subject: string;
  publicKey: KeyObject;
  issuer: { name: string; key: KeyObject; publicKey: KeyObject };
  ca: boolean;
}

/** An X.509 v3 certificate (PEM), ECDSA with SHA-256, valid from a day back (a clock a little behind) to a year on. */
function certificate(spec: CertificateSpec): string {
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const now = Date.now();
  const extensions = spec.ca
    ? [
        // basicConstraints cA, pathLen 0: a CA of leaf certificates only; keyUsage keyCertSign (bit 5).
        extension('2.5.29.19', true, sequence(der(0x01, Buffer.from([0xff])), der(0x02, Buffer.from([0])))),
        extension('2.5.29.15', true, bits(Buffer.from([0x04]), 2)),
      ]
    : [
        extension('2.5.29.19', true, sequence()),
        extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage serverAuth
        extension(
          '2.5.29.17', // subjectAltName: dNSName [2], iPAddress [7]
          false,
          sequence(
            ...TLS_NAMES.dns.map((d) => der(0x82, Buffer.from(d))),
            ...TLS_NAMES.ip.map((ip) => der(0x87, ipBytes(ip))),
          ),
        ),
      ];
  extensions.push(
    extension('2.5.29.14', false, octets(keyId(spec.publicKey))), // subjectKeyIdentifier
    extension('2.5.29.35', false, sequence(der(0x80, keyId(spec.issuer.publicKey)))), // authorityKeyIdentifier
  );
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))), // version v3
    der(0x02, Buffer.concat([Buffer.from([1]), randomBytes(15)])), // serial: positive, 16 bytes
    ecdsaWithSha256,
    name(spec.issuer.name),
    sequence(time(new Date(now - DAY_MS)), time(new Date(now + 365 * DAY_MS))),
    name(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, sequence(...extensions)),
  );
  // node:crypto signs ECDSA in DER (ECDSA-Sig-Value), the form X.509's signatureValue holds.
  const cert = sequence(tbs, ecdsaWithSha256, bits(sign('sha256', tbs, spec.issuer.key)));
  return `-----BEGIN CERTIFICATE-----\n${cert.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
}

function makeTestTls(): TestTls {
  const keys = (): { privateKey: KeyObject; publicKey: KeyObject } =>
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }) as string;
  const [caKeys, serverKeys, selfKeys] = [keys(), keys(), keys()];
  const caName = 'Conformance suite test CA (throw-away, this process only)';
  const caIssuer = { name: caName, key: caKeys.privateKey, publicKey: caKeys.publicKey };
  const caCert = certificate({ subject: caName, publicKey: caKeys.publicKey, issuer: caIssuer, ca: true });
  const serverCert = certificate({
    subject: 'localhost',
    publicKey: serverKeys.publicKey,
    issuer: caIssuer,
    ca: false,
  });
  const selfCert = certificate({
    subject: 'localhost',
    publicKey: selfKeys.publicKey,
    issuer: { name: 'localhost', key: selfKeys.privateKey, publicKey: selfKeys.publicKey },
    ca: false,
  });

  const dir = mkdtempSync(join(tmpdir(), 'conformance-tls-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (fileName: string, text: string): string => {
    writeFileSync(join(dir, fileName), text);
    return join(dir, fileName);
  };
  return {
    ca: { cert: caCert, certFile: file('ca.pem', caCert) },
    server: { key: pem(serverKeys.privateKey), cert: serverCert },
    selfSigned: { key: pem(selfKeys.privateKey), cert: selfCert, certFile: file('self-signed.pem', selfCert) },
  };
}
