import { createPrivateKey, createPublicKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { readCappedText } from '../core/base/regular-file.js';
import { bundleFromJSON, bundleToJSON, type SerializedBundle } from '@sigstore/bundle';
import { CIContextProvider, DSSEBundleBuilder, type Signer } from '@sigstore/sign';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { ConfigError, fileProblem } from '../core/config/config.js';
import { PAYLOAD_TYPE, sha256 } from '../core/model/attestation.js';
import { Redactor } from '../core/redact/redact.js';

/**
 * Signing and checking an attestation with Sigstore's own libraries, no home-made crypto: a DSSE envelope in a
 * Sigstore bundle (v0.3), signed either keyless (a Fulcio certificate for the CI job's OIDC identity, logged in Rekor)
 * or with a local Ed25519 / ECDSA P-256 key (node:crypto signs, @sigstore/sign packs the bundle with the key's hint),
 * and verified by @sigstore/verify in both cases.
 */

/** Where keyless signing goes; each unset one is Sigstore's public instance. */
export interface KeylessOptions {
  fulcioURL?: string;
  rekorURL?: string;
  tsaServerURL?: string;
}

/** How to sign: a private key file, or keyless with the job's OIDC token. */
export type SignWith = { keyFile: string } | { keyless: KeylessOptions };

/** How to verify: the public key, or the certificate identity and issuer expected of a keyless signature. */
export type VerifyWith =
  | { keyFile: string }
  | {
      identity: string;
      issuer: string;
      /** A Sigstore trusted_root.json; else Sigstore's public one (TUF). */ trustedRoot?: string;
    };

/** Signing did not happen (a Sigstore service refused or could not be reached): not the user's mistake, exit 3. */
export class SigningFailure extends Error {}

/** Something about the attestation did not hold: `verify` says it in one line and exits 1. */
export class VerifyFailure extends Error {}

/** A key's hint as the bundle carries it: the SHA-256 of its SubjectPublicKeyInfo (DER). */
export const keyHint = (key: KeyObject): string => sha256(key.export({ type: 'spki', format: 'der' }));

/**
 * Whether a bundle's key hint names the key of SPKI SHA-256 `keyHex`: that digest in hex (this suite's hint) or in
 * base64 (with or without padding), as other tools write it. An empty hint names no key and passes.
 */
export function hintNames(hint: string, keyHex: string): boolean {
  if (!hint) return true;
  const b64 = Buffer.from(keyHex, 'hex').toString('base64').replace(/=+$/, '');
  return hint.toLowerCase() === keyHex || hint.replace(/=+$/, '') === b64;
}

/** The two key types a local attestation is signed with; the digest each signs with (Ed25519 signs the message). */
function signingAlgorithm(key: KeyObject): string | null {
  if (key.asymmetricKeyType === 'ed25519') return null;
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'sha256';
  throw new ConfigError(
    `the key is ${key.asymmetricKeyType}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ''}: attestations are signed with an Ed25519 or ECDSA P-256 key`,
  );
}

function readKeyFile(file: string): string {
  try {
    return readCappedText(file, 'pem');
  } catch (e) {
    throw new ConfigError(`cannot read key ${file}: ${fileProblem(e)}`);
  }
}

/** A private key (PEM, PKCS#8 or SEC1) from a file. */
function privateKeyOf(file: string): KeyObject {
  try {
    return createPrivateKey(readKeyFile(file));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`${file} is not an unencrypted private key in PEM: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** A public key (PEM) from a file; a private key file gives its public half. */
export function publicKeyOf(file: string): KeyObject {
  try {
    return createPublicKey(readKeyFile(file));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`${file} is not a public key in PEM: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** The signer of a local key for @sigstore/sign: node:crypto signs the DSSE pre-authentication encoding it is given. */
function keySigner(privateKey: KeyObject): Signer {
  const algorithm = signingAlgorithm(privateKey);
  const publicKey = createPublicKey(privateKey);
  const hint = keyHint(publicKey);
  return {
    sign: async (data: Buffer) => ({
      signature: cryptoSign(algorithm, data, privateKey),
      key: { $case: 'publicKey', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), hint },
    }),
  };
}

/** The statement signed into a Sigstore bundle (DSSE envelope), and who signed it in words. */
export async function signStatement(payload: Buffer, how: SignWith): Promise<{ bundle: SerializedBundle; by: string }> {
  if ('keyFile' in how) {
    const privateKey = privateKeyOf(how.keyFile);
    const builder = new DSSEBundleBuilder({ signer: keySigner(privateKey), witnesses: [] });
    const bundle = await builder.create({ data: payload, type: PAYLOAD_TYPE });
    return { bundle: bundleToJSON(bundle), by: `key sha256:${keyHint(createPublicKey(privateKey))}` };
  }
  // The OIDC token: SIGSTORE_ID_TOKEN, else the GitHub Actions job's, which the runner offers only to a job with
  // permissions: id-token: write.
  const env = process.env;
  if (!env.SIGSTORE_ID_TOKEN && !(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN))
    throw new ConfigError(
      'keyless signing needs an OIDC token: run it in GitHub Actions in a job with permissions: id-token: write, or set SIGSTORE_ID_TOKEN (or sign with --key)',
    );
  // Fetched here, not inside sigstore, so the redactor knows it: sigstore's messages may quote a token it refuses.
  const redactor = new Redactor();
  const failed = (e: unknown): SigningFailure =>
    new SigningFailure(
      redactor.redact(`keyless signing failed: ${e instanceof Error ? e.message.split('\n')[0]! : String(e)}`),
    );
  const identityToken = await new CIContextProvider('sigstore').getToken().catch((e: unknown) => {
    throw failed(e);
  });
  redactor.add(identityToken, 'oidc-token');
  const { attest } = await import('sigstore');
  const bundle = await attest(payload, PAYLOAD_TYPE, { ...how.keyless, identityToken }).catch((e: unknown) => {
    throw failed(e);
  });
  const cert =
    bundle.verificationMaterial.certificate ?? bundle.verificationMaterial.x509CertificateChain?.certificates[0];
  return { bundle, by: cert ? 'a Sigstore certificate for the OIDC identity' : 'Sigstore' };
}

/** The trusted root for keyless verification: the file given, or Sigstore's public root through TUF. */
async function trustedRootOf(file: string | undefined): Promise<TrustedRoot> {
  if (file === undefined) {
    const { getTrustedRoot } = await import('@sigstore/tuf');
    return getTrustedRoot();
  }
  try {
    return TrustedRoot.fromJSON(JSON.parse(readCappedText(file, 'trustedRoot')));
  } catch (e) {
    throw new ConfigError(
      `cannot read trusted root ${file}: ${e instanceof SyntaxError ? 'not JSON' : fileProblem(e)}`,
    );
  }
}

/** An empty trusted root: a key-signed bundle trusts the key given and nothing else. */
const NO_AUTHORITIES = TrustedRoot.fromJSON({
  mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
  tlogs: [],
  certificateAuthorities: [],
  ctlogs: [],
  timestampAuthorities: [],
});

/**
 * Checks a bundle's signature over its DSSE envelope and who signed it; returns the signer in words. Throws
 * VerifyFailure when the bundle is not one, the signature does not verify, or the identity is not the expected one.
 */
export async function verifyBundle(
  json: unknown,
  how: VerifyWith,
): Promise<{ by: string; envelope: { payload: Buffer; payloadType: string } }> {
  let bundle;
  try {
    bundle = bundleFromJSON(json);
  } catch (e) {
    throw new VerifyFailure(`not a Sigstore bundle: ${(e as Error).message}`);
  }
  if (bundle.content.$case !== 'dsseEnvelope') throw new VerifyFailure('the bundle holds no DSSE envelope');
  const envelope = bundle.content.dsseEnvelope;
  let entity;
  try {
    entity = toSignedEntity(bundle);
  } catch (e) {
    throw new VerifyFailure(`unreadable bundle: ${(e as Error).message}`);
  }
  let by: string;
  try {
    if ('keyFile' in how) {
      const publicKey = publicKeyOf(how.keyFile);
      if (entity.key.$case !== 'public-key')
        throw new VerifyFailure(
          'the attestation was signed keyless (a certificate), not with a key: verify it with --certificate-identity and --certificate-oidc-issuer',
        );
      // The key given is the one trusted; a local key has no log or timestamp.
      const trust = toTrustMaterial(NO_AUTHORITIES, () => ({ publicKey, validFor: () => true }));
      new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(entity);
      // Signed by --key, and the bundle must not say another key signed it.
      if (!hintNames(entity.key.hint, keyHint(publicKey)))
        throw new VerifyFailure(
          `the bundle's key hint names another key than --key (sha256:${keyHint(publicKey)}): a bundle must name the key that signed it`,
        );
      by = `key sha256:${keyHint(publicKey)}`;
    } else {
      if (entity.key.$case !== 'certificate')
        throw new VerifyFailure('the attestation was signed with a key, not keyless: verify it with --key');
      const trust = toTrustMaterial(await trustedRootOf(how.trustedRoot));
      const signer = new Verifier(trust).verify(entity, {
        subjectAlternativeName: how.identity,
        extensions: { issuer: how.issuer },
      });
      by = `${signer.identity?.subjectAlternativeName ?? how.identity} (issuer ${signer.identity?.extensions?.issuer ?? how.issuer})`;
    }
  } catch (e) {
    if (e instanceof VerifyFailure || e instanceof ConfigError) throw e;
    throw new VerifyFailure(`the signature does not verify: ${(e as Error).message}`);
  }
  return { by, envelope: { payload: envelope.payload, payloadType: envelope.payloadType } };
}
