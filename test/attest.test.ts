import { tempDir } from './helpers/temp-dirs.js';
import { beforeAll, describe, expect, test } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliRun } from './helpers/cli.js';
import { CONFIGURED_SECRETS, targetArgs, targetEnv, withServer } from './helpers/target.js';
import { MOCK_IDENTITY, mockIdentityToken, startMockSigstore, type MockSigstore } from './helpers/sigstore-mock.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { echoSecrets } from '../reference/hostile.js';
import {
  ATTESTATION_FILE,
  BADGE_FILE,
  PREDICATE_TYPE,
  sha256,
  shippedSpecSha256,
  statementBytes,
  statementOf,
  type ConformanceStatement,
} from '../core/model/attestation.js';
import { VERDICT_WORD, type Report } from '../core/model/report.js';
import { signStatement } from '../app/signing.js';
import { packageRoot } from '../core/base/paths.js';
import { assertBundleLatest, bundleFromJSON } from '@sigstore/bundle';
import { parse } from 'yaml';
import { execFileSync, spawnSync } from 'node:child_process';

/** A key pair in PEM files (private PKCS#8, public SPKI), as `openssl genpkey` and `openssl pkey -pubout` write. */
function keyFiles(dir: string, type: 'ed25519' | 'ec', name: string = type): { key: string; pub: string } {
  const pair = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const key = join(dir, `${name}.pem`);
  const pub = join(dir, `${name}.pub`);
  writeFileSync(key, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(pub, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  return { key, pub };
}

type Bundle = { dsseEnvelope: { payload: string; payloadType: string; signatures: Array<{ sig: string }> } };
const readBundle = (file: string): Bundle => JSON.parse(readFileSync(file, 'utf8')) as Bundle;
const statementIn = (file: string): ConformanceStatement =>
  JSON.parse(Buffer.from(readBundle(file).dsseEnvelope.payload, 'base64').toString('utf8')) as ConformanceStatement;

/** A copy of a report folder to spoil. */
const copyOf = (dir: string): string => {
  const to = join(tempDir('attest-copy-'), 'conformance-report');
  cpSync(dir, to, { recursive: true });
  return to;
};

/** One byte of a base64 field changed (the decoded byte at `at` flipped), the rest kept. */
const flipBase64 = (b64: string, at: number): string => {
  const bytes = Buffer.from(b64, 'base64');
  bytes[at] = bytes[at]! ^ 0x01;
  return bytes.toString('base64');
};

const oneLine = (run: CliRun): void => {
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
};

/** "CONFORMANT" as a claim: the word alone, not inside NOT CONFORMANT. */
const CLAIMS_CONFORMANT = /(?<!NOT )CONFORMANT/;

describe.sequential('signed attestations of a run: attest, verify, badge (issue 26)', () => {
  const cwd = tempDir('attest-');
  const dir = join(cwd, 'conformance-report');
  const reportFile = join(dir, 'report.json');
  const attestation = join(dir, ATTESTATION_FILE);
  let keys: { key: string; pub: string };

  beforeAll(async () => {
    keys = keyFiles(cwd, 'ed25519');
    const demo = await runCli(['--demo', '--quiet'], { cwd });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.report?.verdict).toBe('conformant');
  });

  test('every subcommand answers --help with exit 0; a mistyped flag is a usage error that suggests the flag', async () => {
    for (const c of ['attest', 'verify', 'badge'])
      for (const flag of ['--help', '-h']) {
        // Help wins over other arguments, a mistaken one included.
        const help = await runCli([c, '--bogus', flag], { cwd });
        expect(help.code).toBe(0);
        expect(help.stderr).toBe('');
        expect(help.stdout).toMatch(new RegExp(`^Usage: conformance ${c}\\b`));
      }
    const typo = await runCli(['attest', '--keyles'], { cwd });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /^conformance: unknown option --keyles \(did you mean --keyless or --key\?\) \(usage: /,
    );
    const neither = await runCli(['verify', attestation], { cwd });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/--key KEY.pub, or --certificate-identity and --certificate-oidc-issuer/);
  });

  test('a demo run, attest --key and verify exit 0; the statement carries what a verifier needs', async () => {
    const image = `sha256:${'ab'.repeat(32)}`;
    const signed = await runCli(['attest', '--key', keys.key, '--subject', `ghcr.io/acme/api=${image}`], { cwd });
    expect(signed.stderr).toBe('');
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(/^Attested CONFORMANT \(test result PASSED\) of https:\/\/127\.0\.0\.1:\d+\/open/);

    const bundle = readBundle(attestation) as Bundle & { mediaType: string; verificationMaterial: object };
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    // A valid bundle of the current format, as cosign and gh attestation read them.
    expect(() => assertBundleLatest(bundleFromJSON(bundle))).not.toThrow();
    expect(bundle.verificationMaterial).toHaveProperty('publicKey.hint');
    expect(bundle.dsseEnvelope.payloadType).toBe('application/vnd.in-toto+json');
    const s = statementIn(attestation);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    expect(s._type).toBe('https://in-toto.io/Statement/v1');
    expect(s.predicateType).toBe(PREDICATE_TYPE);
    expect(s.predicate.result).toBe('PASSED');
    expect(s.predicate.conformance.verdict_word).toBe(VERDICT_WORD[report.verdict]);
    expect(s.predicate.passedTests).toEqual(report.checks.filter((c) => c.outcome === 'passed').map((c) => c.id));
    expect(s.predicate.conformance.fuzz).toEqual(report.fuzz);
    expect(s.predicate.conformance.started_at).toBe(report.started_at);
    expect(s.predicate.configuration).toContainEqual(
      expect.objectContaining({ name: 'spec/open-platform-api.md', digest: { sha256: shippedSpecSha256() } }),
    );
    expect(s.predicate.configuration).toContainEqual({ name: 'target', uri: report.target.base_url });
    expect(s.subject.map((x) => x.name)).toEqual(['ghcr.io/acme/api', 'report.json', 'junit.xml', 'report.html']);
    expect(s.subject[0]!.digest.sha256).toBe('ab'.repeat(32));
    for (const x of s.subject.slice(1)) expect(x.digest.sha256).toBe(sha256(readFileSync(join(dir, x.name))));
    // The HTML report links the attestation (and its digest is taken after that link was written).
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain(`href="./${ATTESTATION_FILE}"`);

    const ok = await runCli(['verify', attestation, '--report', reportFile, '--key', keys.pub, '--subject', image], {
      cwd,
    });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    oneLine(ok);
    expect(ok.stdout).toMatch(/^VERIFIED CONFORMANT: https:\/\/127\.0\.0\.1:\d+\/open judged by \S+ \d+\.\d+\.\d+ on /);
    expect(ok.stdout).toMatch(/\((\d+) of \1 MUST checks judged\)/);
    expect(ok.stdout).toMatch(/matches .*report\.json, junit\.xml, report\.html; names 1 subject/);
    // A subject the vendor did not name is not vouched for.
    const other = await runCli(['verify', attestation, '--key', keys.pub, '--subject', `sha256:${'cd'.repeat(32)}`], {
      cwd,
    });
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/^NOT VERIFIED: the attestation does not name sha256:(cd){32} among its subjects/);
  });

  test('one changed byte in the report, the statement or the signature: verify exits 1 and says why', async () => {
    const spoil = async (change: (copy: string) => void): Promise<CliRun> => {
      const copy = copyOf(dir);
      change(copy);
      const run = await runCli(['verify', join(copy, ATTESTATION_FILE), '--key', keys.pub], { cwd });
      oneLine(run);
      expect(run.code).toBe(1);
      return run;
    };
    // The report: verify finds report.json beside the attestation when --report is not given.
    const report = await spoil((copy) => {
      const text = readFileSync(join(copy, 'report.json'), 'utf8');
      writeFileSync(join(copy, 'report.json'), text.replace('"verdict": "conformant"', '"verdict": "conformanT"'));
    });
    expect(report.stdout).toMatch(/^NOT VERIFIED: \S+report\.json has changed since it was attested \(sha256:/);
    const html = await spoil((copy) => {
      const text = readFileSync(join(copy, 'report.html'));
      text[text.length - 2] = text[text.length - 2]! ^ 0x01;
      writeFileSync(join(copy, 'report.html'), text);
    });
    expect(html.stdout).toMatch(/^NOT VERIFIED: \S+report\.html has changed since it was attested/);
    // The statement: a byte of the signed payload.
    const statement = await spoil((copy) => {
      const b = readBundle(join(copy, ATTESTATION_FILE));
      b.dsseEnvelope.payload = flipBase64(b.dsseEnvelope.payload, 200);
      writeFileSync(join(copy, ATTESTATION_FILE), JSON.stringify(b));
    });
    expect(statement.stdout).toMatch(/^NOT VERIFIED: the signature does not verify: signature verification failed/);
    const signature = await spoil((copy) => {
      const b = readBundle(join(copy, ATTESTATION_FILE));
      b.dsseEnvelope.signatures[0]!.sig = flipBase64(b.dsseEnvelope.signatures[0]!.sig, 10);
      writeFileSync(join(copy, ATTESTATION_FILE), JSON.stringify(b));
    });
    expect(signature.stdout).toMatch(/^NOT VERIFIED: the signature does not verify/);
    // Another key than the vendor's.
    const stranger = keyFiles(cwd, 'ed25519', 'stranger');
    const wrongKey = await runCli(['verify', attestation, '--key', stranger.pub], { cwd });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toMatch(/^NOT VERIFIED: the signature does not verify/);
  });

  test('attest refuses a report of another suite version (its spec text judged it) and a malformed subject', async () => {
    const copy = copyOf(dir);
    const report = JSON.parse(readFileSync(join(copy, 'report.json'), 'utf8')) as Report;
    writeFileSync(join(copy, 'report.json'), JSON.stringify({ ...report, tool: { ...report.tool, version: '0.0.9' } }));
    const before = readFileSync(join(copy, ATTESTATION_FILE));
    const old = await runCli(['attest', join(copy, 'report.json'), '--key', keys.key], { cwd });
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(/was written by \S+ 0\.0\.9: attest it with that version/);
    expect(readFileSync(join(copy, ATTESTATION_FILE)).equals(before)).toBe(true);
    const bad = await runCli(['attest', '--key', keys.key, '--subject', 'img=sha256:abc'], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--subject img=sha256:abc: expected NAME=sha256:<64 hex digits>/);
  });

  test('an attestation is the same for the same inputs, apart from the signature', async () => {
    const before = readBundle(attestation);
    const html = readFileSync(join(dir, 'report.html'));
    const ec = keyFiles(cwd, 'ec');
    const again = await runCli(['attest', '--key', ec.key, '--subject', `ghcr.io/acme/api=sha256:${'ab'.repeat(32)}`], {
      cwd,
    });
    expect(again.code, again.stderr).toBe(0);
    const after = readBundle(attestation);
    expect(after.dsseEnvelope.payload).toBe(before.dsseEnvelope.payload);
    expect(after.dsseEnvelope.signatures[0]!.sig).not.toBe(before.dsseEnvelope.signatures[0]!.sig);
    expect(readFileSync(join(dir, 'report.html')).equals(html)).toBe(true);
    const ok = await runCli(['verify', attestation, '--key', ec.pub], { cwd });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/signed by key sha256:[0-9a-f]{64}/);
  });

  test('issue 37: a verifier written apart from the suite (Python, OpenSSL) accepts the key-signed bundle, as cosign --key would', () => {
    // What `cosign verify-blob-attestation --key … --bundle … --new-bundle-format --insecure-ignore-tlog=true --type …
    // report.json` checks of a key-signed bundle, by another implementation (cosign itself cannot be installed here).
    const verifier = join(packageRoot, 'test', 'helpers', 'verify_blob_attestation.py');
    const check = (pub: string, bundle: string, blob: string): { code: number | null; out: string } => {
      const r = spawnSync('python3', [verifier, '--key', pub, '--bundle', bundle, '--type', PREDICATE_TYPE, blob], {
        encoding: 'utf8',
      });
      return { code: r.status, out: `${r.stdout}${r.stderr}`.trim() };
    };
    for (const type of ['ed25519', 'ec'] as const) {
      const copy = copyOf(dir);
      const pair = keyFiles(cwd, type, `independent-${type}`);
      const signed = spawnSync(
        process.execPath,
        [join(packageRoot, 'bin', 'conformance.js'), 'attest', join(copy, 'report.json'), '--key', pair.key],
        {
          cwd,
          encoding: 'utf8',
        },
      );
      expect(signed.status, signed.stderr).toBe(0);
      const bundle = join(copy, ATTESTATION_FILE);
      for (const file of ['report.json', 'junit.xml', 'report.html'])
        expect(check(pair.pub, bundle, join(copy, file))).toEqual({ code: 0, out: 'Verified OK' });
      // Another key, a changed report, a changed signature: refused.
      const stranger = keyFiles(cwd, type, `stranger-${type}`);
      expect(check(stranger.pub, bundle, join(copy, 'report.json')).code).toBe(1);
      writeFileSync(join(copy, 'report.json'), `${readFileSync(join(copy, 'report.json'), 'utf8')} `);
      expect(check(pair.pub, bundle, join(copy, 'report.json')).out).toMatch(
        /no subject of the statement has the digest/,
      );
      const b = readBundle(bundle);
      b.dsseEnvelope.signatures[0]!.sig = flipBase64(b.dsseEnvelope.signatures[0]!.sig, 10);
      writeFileSync(bundle, JSON.stringify(b));
      expect(check(pair.pub, bundle, join(copy, 'junit.xml')).out).toMatch(/invalid signature/);
    }
  });

  test('issue 37: attest reads the report files it lists within bounds: a FIFO or /dev/zero is refused in one line', async () => {
    for (const [what, make] of [
      ['a pipe', (f: string) => execFileSync('mkfifo', [f])],
      ['a device', (f: string) => symlinkSync('/dev/zero', f)],
    ] as const) {
      const copy = copyOf(dir);
      const junit = join(copy, 'junit.xml');
      rmSync(junit);
      // The copy may hold an attestation an earlier test wrote: none may be there after a refusal.
      rmSync(join(copy, ATTESTATION_FILE), { force: true });
      make(junit);
      const r = await runCli(['attest', join(copy, 'report.json'), '--key', keys.key], { cwd, timeoutMs: 30_000 });
      expect([r.code, r.stderr]).toEqual([
        2,
        `conformance: cannot attest ${junit}: not a regular file (${what}): give the path of a file\n`,
      ]);
      expect(existsSync(join(copy, ATTESTATION_FILE))).toBe(false);
    }
  });

  test('a statement about another spec text, or with words this suite does not write, does not verify', async () => {
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const reports = [{ name: 'report.json', digest: { sha256: sha256(readFileSync(reportFile)) } }];
    // Beside the report it covers: verify refuses a statement whose report.json is not there.
    const signWrite = async (s: ConformanceStatement, reportText?: string): Promise<string> => {
      const to = tempDir('attest-crafted-');
      writeFileSync(join(to, 'report.json'), reportText ?? readFileSync(reportFile));
      const file = join(to, ATTESTATION_FILE);
      writeFileSync(file, JSON.stringify((await signStatement(statementBytes(s), { keyFile: keys.key })).bundle));
      return file;
    };
    const otherSpec = await signWrite(statementOf(report, { reports, subjects: [], specSha256: 'f'.repeat(64) }));
    const spec = await runCli(['verify', otherSpec, '--key', keys.pub, '--report', reportFile], { cwd });
    expect(spec.code).toBe(1);
    expect(spec.stdout).toMatch(/^NOT VERIFIED: the attested spec text \(sha256:f{64}\) is not the one \S+ \S+ ships/);

    const inflated = statementOf(report, { reports, subjects: [], specSha256: shippedSpecSha256() });
    const partial = { ...inflated.predicate.conformance, verdict: 'partial' as const };
    const words = await signWrite({ ...inflated, predicate: { ...inflated.predicate, conformance: partial } });
    const run = await runCli(['verify', words, '--key', keys.pub], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^NOT VERIFIED: the statement's verdict word "CONFORMANT" is not this suite's word/);

    // What the statement quotes of the server is printed inert: no line of its own, no workflow command.
    const hostileReport = { ...report, target: { base_url: 'https://x.test/\n::error::forged\u001b[2J' } };
    const hostileText = JSON.stringify(hostileReport);
    const hostile = statementOf(hostileReport, {
      reports: [{ name: 'report.json', digest: { sha256: sha256(hostileText) } }],
      subjects: [],
      specSha256: shippedSpecSha256(),
    });
    const shown = await runCli(['verify', await signWrite(hostile, hostileText), '--key', keys.pub], { cwd });
    expect(shown.code).toBe(0);
    oneLine(shown);
    expect(shown.stdout).not.toMatch(/^::/m);
    expect(shown.stdout).not.toContain('\u001b');
  });

  test('issue 37: the signed words must be what the report says; a hint must name --key; every listed file must be there', async () => {
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const signIn = async (s: ConformanceStatement, text: string): Promise<string> => {
      const to = tempDir('attest-words-');
      writeFileSync(join(to, 'report.json'), text);
      const file = join(to, ATTESTATION_FILE);
      writeFileSync(file, JSON.stringify((await signStatement(statementBytes(s), { keyFile: keys.key })).bundle));
      return file;
    };
    const statementFor = (r: Report, text: string): ConformanceStatement =>
      statementOf(r, {
        reports: [{ name: 'report.json', digest: { sha256: sha256(text) } }],
        subjects: [],
        specSha256: shippedSpecSha256(),
      });
    const refused = async (file: string, why: RegExp): Promise<void> => {
      const run = await runCli(['verify', file, '--key', keys.pub], { cwd });
      expect(run.code, run.stdout).toBe(1);
      oneLine(run);
      expect(run.stdout).toMatch(why);
    };
    // A NOT CONFORMANT run (AUTH-01 failed), its statement's verdict edited to CONFORMANT and signed by the key.
    const checks = report.checks.map((c) =>
      c.id === 'AUTH-01' ? { ...c, status: 'failed' as const, outcome: 'failed' as const, message: 'x' } : c,
    );
    const failing: Report = {
      ...report,
      checks,
      verdict: 'not conformant',
      exit_code: 1,
      verdict_reason: '1 gating finding: AUTH-01',
    };
    const failingText = JSON.stringify(failing);
    const honest = statementFor(failing, failingText);
    const forged: ConformanceStatement = {
      ...honest,
      predicate: {
        ...honest.predicate,
        result: 'PASSED',
        conformance: { ...honest.predicate.conformance, verdict: 'conformant', verdict_word: VERDICT_WORD.conformant },
      },
    };
    await refused(
      await signIn(forged, failingText),
      /^NOT VERIFIED: the statement's verdict \("conformant"\) is not what report\.json gives \("not conformant"\)/,
    );
    // The honest statement of the same report verifies, and says NOT CONFORMANT.
    const ok = await runCli(['verify', await signIn(honest, failingText), '--key', keys.pub], { cwd });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^VERIFIED NOT CONFORMANT: /);
    // A count edited: one failed test moved to the passed ones.
    const moved: ConformanceStatement = {
      ...honest,
      predicate: { ...honest.predicate, passedTests: [...honest.predicate.passedTests, 'AUTH-01'], failedTests: [] },
    };
    await refused(await signIn(moved, failingText), /^NOT VERIFIED: the statement's passedTests \(/);
    // A report whose verdict field its own checks contradict, with a statement that agrees with the field.
    const lying: Report = { ...failing, verdict: 'conformant', exit_code: 0 };
    const lyingText = JSON.stringify(lying);
    await refused(
      await signIn(statementFor(lying, lyingText), lyingText),
      /^NOT VERIFIED: report\.json says CONFORMANT \(exit 0\), but its checks give NOT CONFORMANT \(exit 1\)/,
    );
    // The coverage inflated in both.
    const inflated: Report = { ...report, coverage: { ...report.coverage, must_total: 60, must_judged: 60 } };
    const inflatedText = JSON.stringify(inflated);
    await refused(
      await signIn(statementFor(inflated, inflatedText), inflatedText),
      new RegExp(
        `^NOT VERIFIED: report\\.json's coverage \\(60 of 60 MUST checks judged[^)]*\\) is not what its checks give \\(${report.coverage.must_judged} of ${report.coverage.must_total} MUST checks judged`,
      ),
    );
    // The rule matrix's cells inflated in both (#35): recounted from the checks and the applications configured.
    const cells = report.coverage.cellsProbed!;
    const moreCells: Report = { ...report, coverage: { ...report.coverage, cellsProbed: cells + 7 } };
    const moreCellsText = JSON.stringify(moreCells);
    await refused(
      await signIn(statementFor(moreCells, moreCellsText), moreCellsText),
      new RegExp(
        `, ${cells + 7} of \\d+ cells probed\\) is not what its checks give \\(.*, ${cells} of \\d+ cells probed\\)`,
      ),
    );

    // A bundle whose key hint names another key than --key (the signature is --key's).
    expect((await runCli(['attest', '--key', keys.key], { cwd })).code).toBe(0);
    const stranger = keyFiles(cwd, 'ed25519', 'hint-stranger');
    const copy = copyOf(dir);
    const b = JSON.parse(readFileSync(join(copy, ATTESTATION_FILE), 'utf8')) as {
      verificationMaterial: { publicKey: { hint: string } };
    };
    const strangerHint = sha256(
      Buffer.from(
        readFileSync(stranger.pub, 'utf8')
          .replace(/-----[^-]+-----/g, '')
          .replace(/\s/g, ''),
        'base64',
      ),
    );
    b.verificationMaterial.publicKey.hint = strangerHint;
    writeFileSync(join(copy, ATTESTATION_FILE), JSON.stringify(b));
    await refused(join(copy, ATTESTATION_FILE), /^NOT VERIFIED: the bundle's key hint names another key than --key/);

    // Issue 38: a file the statement lists that is missing is not vouched for.
    const partialCopy = copyOf(dir);
    rmSync(join(partialCopy, 'junit.xml'));
    await refused(
      join(partialCopy, ATTESTATION_FILE),
      /^NOT VERIFIED: the statement covers junit\.xml, which is not at /,
    );
    const noReport = join(tempDir('attest-alone-'), ATTESTATION_FILE);
    cpSync(attestation, noReport);
    await refused(
      noReport,
      /^NOT VERIFIED: the statement covers report\.json, which is not beside \S+: give it with --report/,
    );
  });

  test('keyless: signed through a mock Fulcio, Rekor and TSA on 127.0.0.1, verified against their trusted root', async () => {
    let sigstore: MockSigstore | undefined;
    try {
      sigstore = await startMockSigstore();
      const root = join(cwd, 'trusted_root.json');
      writeFileSync(root, JSON.stringify(sigstore.trustedRoot));
      const out = join(cwd, 'keyless.sigstore.json');
      const signed = await runCli(
        [
          'attest',
          '--keyless',
          '--fulcio-url',
          sigstore.fulcioURL,
          '--rekor-url',
          sigstore.rekorURL,
          '--tsa-url',
          sigstore.tsaURL,
          '--out',
          out,
        ],
        { cwd, env: { SIGSTORE_ID_TOKEN: mockIdentityToken() } },
      );
      expect(signed.stderr).toBe('');
      expect(signed.code).toBe(0);
      const bundle = JSON.parse(readFileSync(out, 'utf8')) as {
        verificationMaterial: { certificate?: object; tlogEntries: unknown[]; timestampVerificationData: object };
      };
      expect(bundle.verificationMaterial.certificate).toBeDefined();
      expect(bundle.verificationMaterial.tlogEntries).toHaveLength(1);
      expect(bundle.verificationMaterial.timestampVerificationData).toHaveProperty('rfc3161Timestamps.0');
      const identity = [
        '--certificate-identity',
        MOCK_IDENTITY.subject,
        '--certificate-oidc-issuer',
        MOCK_IDENTITY.issuer,
      ];
      const ok = await runCli(['verify', out, '--report', reportFile, ...identity, '--trusted-root', root], { cwd });
      expect(ok.stderr).toBe('');
      expect(ok.code, ok.stdout).toBe(0);
      expect(ok.stdout).toMatch(
        new RegExp(`^VERIFIED CONFORMANT: .* signed by ${MOCK_IDENTITY.subject.replace(/\./g, '\\.')} \\(issuer `),
      );
      // Another workflow's identity, another issuer, or a key: each is refused.
      const otherWorkflow = identity.map((a) => a.replace('conformance.yml', 'release.yml'));
      const wrong = await runCli(['verify', out, ...otherWorkflow, '--trusted-root', root], { cwd });
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toMatch(/^NOT VERIFIED: the signature does not verify: certificate identity error/);
      const issuer = identity.map((a) => (a === MOCK_IDENTITY.issuer ? 'https://accounts.google.com' : a));
      expect((await runCli(['verify', out, ...issuer, '--trusted-root', root], { cwd })).code).toBe(1);
      const byKey = await runCli(['verify', out, '--key', keys.pub], { cwd });
      expect(byKey.code).toBe(1);
      expect(byKey.stdout).toMatch(/signed keyless \(a certificate\), not with a key/);
      // A token Fulcio refuses: exit 3, the token not quoted, and nothing written: no attestation, and the HTML
      // report keeps the link it had (to the attestation that stands), not one to an attestation never made.
      const copy = copyOf(dir);
      const kept = [ATTESTATION_FILE, 'report.html'].map((f) => readFileSync(join(copy, f)));
      const refused = await runCli(
        [
          'attest',
          join(copy, 'report.json'),
          '--keyless',
          '--fulcio-url',
          sigstore.fulcioURL,
          '-o',
          join(copy, 'new.json'),
        ],
        {
          cwd,
          env: { SIGSTORE_ID_TOKEN: 'not-a-jwt-7f3a9c2e51' },
        },
      );
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/^conformance attest: keyless signing failed: .*; nothing written\n$/);
      expect(refused.stderr).not.toContain('not-a-jwt-7f3a9c2e51');
      expect(existsSync(join(copy, 'new.json'))).toBe(false);
      expect([ATTESTATION_FILE, 'report.html'].map((f, i) => readFileSync(join(copy, f)).equals(kept[i]!))).toEqual([
        true,
        true,
      ]);
      // Another Sigstore's root does not vouch for this one's certificates.
      const stranger = await startMockSigstore();
      writeFileSync(join(cwd, 'other_root.json'), JSON.stringify(stranger.trustedRoot));
      await stranger.close();
      const untrusted = await runCli(['verify', out, ...identity, '--trusted-root', join(cwd, 'other_root.json')], {
        cwd,
      });
      expect(untrusted.code).toBe(1);
    } finally {
      await sigstore?.close();
    }
  });

  test('a PARTIAL run attests WARNED and its badge does not say CONFORMANT', async () => {
    const pcwd = tempDir('attest-partial-');
    const run = await runCli(['--demo', '--quiet', '--only', 'AUTH-01'], { cwd: pcwd });
    expect(run.report?.verdict).toBe('partial');
    const pdir = join(pcwd, 'conformance-report');
    expect((await runCli(['attest', '--key', keys.key], { cwd: pcwd })).code).toBe(0);
    const s = statementIn(join(pdir, ATTESTATION_FILE));
    expect(s.predicate.result).toBe('WARNED');
    expect(s.predicate.conformance.verdict_word).toBe(VERDICT_WORD.partial);
    expect(s.predicate.conformance.coverage.complete).toBe(false);
    expect(s.predicate.conformance.coverage.not_run.length).toBe(s.predicate.conformance.coverage.must_total - 1);
    // Issue 38: what makes it WARNED is listed in warnedTests: the MUST checks it did not judge.
    expect(s.predicate.warnedTests).toEqual(s.predicate.conformance.coverage.not_run.map((n) => n.id));
    expect(s.predicate.passedTests).toEqual(['AUTH-01']);
    const verified = await runCli(['verify', join(pdir, ATTESTATION_FILE), '--key', keys.pub], { cwd: pcwd });
    expect(verified.stdout).toMatch(/^VERIFIED PASSED, PARTIAL: .*\(1 of \d+ MUST checks judged\)/);

    // PARTIAL by the rule matrix alone (#35): every MUST check judged, a SHOULD check's cells not probed. Its honest
    // statement verifies: verify recounts the cells as the run did.
    const ccwd = tempDir('attest-cells-');
    const cellsRun = await runCli(['--demo', '--quiet', '--skip', 'SEC-02'], { cwd: ccwd });
    expect(cellsRun.report?.verdict).toBe('partial');
    expect(cellsRun.report?.coverage.not_run).toEqual([]);
    expect((await runCli(['attest', '--key', keys.key], { cwd: ccwd })).code).toBe(0);
    const cellsVerified = await runCli(
      ['verify', join(ccwd, 'conformance-report', ATTESTATION_FILE), '--key', keys.pub],
      { cwd: ccwd },
    );
    expect(cellsVerified.code, cellsVerified.stdout).toBe(0);
    expect(cellsVerified.stdout).toMatch(/^VERIFIED PASSED, PARTIAL: /);

    const fromAttestation = await runCli(['badge'], { cwd: pcwd });
    expect(fromAttestation.code, fromAttestation.stderr).toBe(0);
    const svg = readFileSync(join(pdir, BADGE_FILE), 'utf8');
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('PASSED, PARTIAL');
    expect(svg).not.toMatch(CLAIMS_CONFORMANT);
    const fromReport = await runCli(['badge', join(pdir, 'report.json'), '--out', join(pcwd, 'r.svg')], { cwd: pcwd });
    expect(fromReport.code).toBe(0);
    expect(readFileSync(join(pcwd, 'r.svg'), 'utf8')).toBe(svg);
    // The full run's badge, for contrast, says CONFORMANT.
    expect((await runCli(['badge', attestation, '--out', join(pcwd, 'full.svg')], { cwd })).code).toBe(0);
    expect(readFileSync(join(pcwd, 'full.svg'), 'utf8')).toMatch(CLAIMS_CONFORMANT);
    // A new run in the folder removes the old run's attestation and badge: they vouched for a report that is gone.
    await runCli(['--demo', '--quiet', '--only', 'AUTH-02'], { cwd: pcwd });
    expect(existsSync(join(pdir, ATTESTATION_FILE))).toBe(false);
    expect(existsSync(join(pdir, BADGE_FILE))).toBe(false);
  });

  test('a baselined failure is attested as a failure the baseline lists; its badge does not say CONFORMANT', async () => {
    const seat = MUTANTS.find((m) => m.name === 'seat-status-out-of-range')!; // fails SEAT-01
    const bcwd = tempDir('attest-baseline-');
    writeFileSync(join(bcwd, 'known.yaml'), '- id: SEAT-01\n  reason: vendor ticket 42\n');
    const run = await withServer([seat], (srv) =>
      runCli(targetArgs(srv, ['--only', 'SEAT-*', '--baseline', 'known.yaml']), { env: targetEnv, cwd: bcwd }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.checks.find((c) => c.id === 'SEAT-01')!.outcome).toBe('known');
    expect((await runCli(['attest', '--key', keys.key], { cwd: bcwd })).code).toBe(0);
    const s = statementIn(join(bcwd, 'conformance-report', ATTESTATION_FILE));
    expect(s.predicate.result).not.toBe('PASSED');
    expect(s.predicate.failedTests).toContain('SEAT-01');
    expect(s.predicate.conformance.known_failures).toEqual([
      { id: 'SEAT-01', level: 'MUST', reason: 'vendor ticket 42' },
    ]);
    expect(s.predicate.conformance.verdict_word).toBe(VERDICT_WORD[run.report!.verdict]);
    expect((await runCli(['badge'], { cwd: bcwd })).code).toBe(0);
    expect(readFileSync(join(bcwd, 'conformance-report', BADGE_FILE), 'utf8')).not.toMatch(CLAIMS_CONFORMANT);
  });

  test("the Action's attest step signs keyless only when asked, with inputs through the environment", async () => {
    type Step = { name?: string; if?: string; run?: string; env?: Record<string, string> };
    const action = parse(readFileSync(join(packageRoot, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { default?: string }>;
      runs: { steps: Step[] };
    };
    expect(action.inputs.attest?.default).toBe('false');
    const step = action.runs.steps.find((x) => x.run?.includes(' attest '))!;
    expect(step.if).toMatch(/!cancelled\(\) && inputs\.attest == 'true'/);
    expect(step.run).not.toMatch(/\$\{\{/);
    expect(step.run).toMatch(/"\$CONFORMANCE_BIN" attest "\$REPORT_DIR\/report\.json" --keyless "\$\{subjects\[@\]\}"/);
    // Outside GitHub Actions there is no OIDC token: the step fails saying what is missing, before any request.
    const run = (env: Record<string, string>) =>
      spawnSync('bash', ['-e', '-c', step.run!], {
        cwd,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          GITHUB_OUTPUT: join(cwd, 'github-output'),
          CONFORMANCE_BIN: join(packageRoot, 'bin', 'conformance.js'),
          ...env,
        },
      });
    const noToken = run({
      REPORT_DIR: 'conformance-report',
      INPUT_ATTEST_SUBJECT: `x=sha256:${'0'.repeat(64)}`,
    });
    expect(noToken.status).toBe(2);
    expect(noToken.stderr).toMatch(
      /keyless signing needs an OIDC token: .*permissions: id-token: write, or set SIGSTORE_ID_TOKEN/,
    );
    const badSubject = run({ REPORT_DIR: 'conformance-report', INPUT_ATTEST_SUBJECT: 'ghcr.io/acme/api' });
    expect(badSubject.status).toBe(2);
    expect(badSubject.stderr).toMatch(/--subject ghcr\.io\/acme\/api: expected NAME=sha256:/);
    // A run that stopped before a verdict left no report: nothing to sign, the run step has failed the job already.
    expect(run({ REPORT_DIR: 'no-such-dir' }).status).toBe(0);
  });

  test('no secret enters an attestation, even from a server that echoes them', async () => {
    const scwd = tempDir('attest-secrets-');
    const { run, issued } = await withServer([echoSecrets], async (srv) => ({
      run: await runCli(targetArgs(srv, ['--only', 'ORD-*', '--only', 'AUTH-*']), { env: targetEnv, cwd: scwd }),
      issued: [...srv.world.tokens.keys()].filter((t) => t.startsWith('tok_')),
    }));
    const reportText = readFileSync(join(scwd, 'conformance-report', 'report.json'), 'utf8');
    // The echo happened and reached the report, redacted.
    expect(reportText).toContain('x-echo-token');
    expect(run.report!.verdict).not.toBe('conformant');
    expect(issued.length).toBeGreaterThan(0);
    expect((await runCli(['attest', '--key', keys.key], { cwd: scwd })).code).toBe(0);
    const file = join(scwd, 'conformance-report', ATTESTATION_FILE);
    const texts = [readFileSync(file, 'utf8'), JSON.stringify(statementIn(file))];
    for (const secret of [...CONFIGURED_SECRETS, ...issued])
      for (const text of texts) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(encodeURIComponent(secret));
      }
    expect(texts[1]).toContain('[REDACTED]');
  });
});
