import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  fulcioHandler,
  initializeCA,
  initializeCTLog,
  initializeTLog,
  initializeTSA,
  rekorHandler,
  tsaHandler,
  type HandlerFn,
} from '@sigstore/mock';

/**
 * A private Sigstore on 127.0.0.1 for the keyless path, never the public instances: @sigstore/mock's certificate
 * authority (with its CT log), transparency log and timestamp authority, each behind a real HTTP server, and the
 * trusted_root.json that trusts exactly them.
 */
export interface MockSigstore {
  fulcioURL: string;
  rekorURL: string;
  tsaURL: string;
  /** A Sigstore trusted root (JSON) of these services, for `verify --trusted-root`. */
  trustedRoot: object;
  close(): Promise<void>;
}

/** The OIDC identity the mock issues certificates for: a GitHub Actions workflow, as the Action signs. */
export const MOCK_IDENTITY = {
  issuer: 'https://token.actions.githubusercontent.com',
  subject: 'https://github.com/acme/api/.github/workflows/conformance.yml@refs/heads/main',
};

/**
 * An OIDC token of MOCK_IDENTITY. Unsigned: the mock CA reads its claims and does not check a signature (the public
 * Fulcio would); what is under test is that the certificate it issues is checked against the identity asked for.
 */
export function mockIdentityToken(identity = MOCK_IDENTITY): string {
  const part = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: identity.issuer, sub: identity.subject, aud: 'sigstore', iat: now, exp: now + 600 })}.`;
}

async function serve(path: string, fn: HandlerFn): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== path) {
        res.writeHead(404).end();
        return;
      }
      fn(Buffer.concat(chunks).toString('utf8')).then(
        (r) => {
          res.writeHead(r.statusCode, { 'content-type': r.contentType ?? 'application/json' });
          res.end(r.response);
        },
        (e: unknown) => res.writeHead(500).end(String(e)),
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Rekor stores a DSSE entry in its canonical form (hashes of the envelope and payload, the signature with its
 * verifier), which is what a verifier compares the bundle with; the mock keeps the proposed entry as sent. This
 * turns the proposal into the canonical entry, as Rekor's dsse type (v0.0.1) does, before the mock logs it.
 */
function canonicalDsseEntry(body: string): string {
  const entry = JSON.parse(body) as {
    kind: string;
    apiVersion: string;
    spec: { proposedContent: { envelope: string; verifiers: string[] } };
  };
  const { envelope, verifiers } = entry.spec.proposedContent;
  const dsse = JSON.parse(envelope) as { payload: string; signatures: Array<{ sig: string }> };
  const hex = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');
  return JSON.stringify({
    apiVersion: entry.apiVersion,
    kind: entry.kind,
    spec: {
      envelopeHash: { algorithm: 'sha256', value: hex(envelope) },
      payloadHash: { algorithm: 'sha256', value: hex(Buffer.from(dsse.payload, 'base64')) },
      signatures: dsse.signatures.map((s, i) => ({ signature: s.sig, verifier: verifiers[i] ?? verifiers[0] })),
    },
  });
}

const p256 = (): { publicKey: KeyObject; privateKey: KeyObject } =>
  generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const der = (k: KeyObject): Buffer => k.export({ type: 'spki', format: 'der' });
const b64 = (b: ArrayBufferView | Buffer): string =>
  Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

export async function startMockSigstore(): Promise<MockSigstore> {
  const [caKeys, ctKeys, tlogKeys, tsaKeys] = [p256(), p256(), p256(), p256()];
  // One clock for all four, on a whole second. The mock TSA writes its time in DER (GeneralizedTime, trailing zeros
  // of the fraction dropped: ".12Z"), which @sigstore/core 3.x parses only with three digits ("invalid time" about
  // one signing in ten); a TSA time must fall within the signing certificate's validity, so the CA keeps the same
  // clock; and the TSA's own certificates start at the real time of their making (whole seconds), which the clock
  // must not precede: a few seconds ahead.
  const clock = new Date((Math.floor(Date.now() / 1000) + 5) * 1000);
  const ctlog = await initializeCTLog(ctKeys, clock);
  const ca = await initializeCA(caKeys, ctlog, clock);
  const fulcio = fulcioHandler(ca);
  const tsa = await initializeTSA(tsaKeys, clock);
  const timestamps = tsaHandler(tsa);
  const tlog = await initializeTLog('http://127.0.0.1', tlogKeys, clock);
  const rekor = rekorHandler(tlog);
  const servers = await Promise.all([
    serve(fulcio.path, fulcio.fn),
    serve(rekor.path, (body) => rekor.fn(canonicalDsseEntry(body))),
    serve(timestamps.path, timestamps.fn),
  ]);
  const [f, r, t] = servers;
  const validFor = { start: '2000-01-01T00:00:00Z' };
  const logKey = (k: KeyObject, url: string, keyId: string): object => ({
    baseUrl: url,
    hashAlgorithm: 'SHA2_256',
    publicKey: { rawBytes: der(k).toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor },
    logId: { keyId },
  });
  const trustedRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [logKey(tlogKeys.publicKey, r!.url, createHash('sha256').update(der(tlogKeys.publicKey)).digest('base64'))],
    certificateAuthorities: [
      {
        subject: { organization: 'sigstore.mock', commonName: 'sigstore' },
        uri: f!.url,
        certChain: { certificates: [{ rawBytes: b64(ca.rootCertificate) }] },
        validFor,
      },
    ],
    ctlogs: [logKey(ctKeys.publicKey, 'http://127.0.0.1', b64(ctlog.logID))],
    timestampAuthorities: [
      {
        subject: { organization: 'sigstore.mock', commonName: 'tsa' },
        uri: t!.url,
        certChain: { certificates: [{ rawBytes: b64(tsa.intCertificate) }, { rawBytes: b64(tsa.rootCertificate) }] },
        validFor,
      },
    ],
  };
  return {
    fulcioURL: f!.url,
    rekorURL: r!.url,
    tsaURL: t!.url,
    trustedRoot,
    close: () =>
      Promise.all(servers.map(({ server }) => new Promise<void>((ok) => server.close(() => ok())))).then(
        () => undefined,
      ),
  };
}
