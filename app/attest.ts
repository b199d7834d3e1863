import { existsSync } from 'node:fs';
import { writeFileAtomicSync } from '../core/base/atomic-file.js';
import { FileRefused, readReportBytes } from '../core/base/regular-file.js';
import { basename, dirname, join, resolve } from 'node:path';
import { commandArgs } from './command-args.js';
import { readReportFile } from './diff.js';
import { ConfigError } from '../core/config/config.js';
import { tool } from '../core/base/paths.js';
import { VERDICT_WORD } from '../core/model/report.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import {
  ATTESTATION_FILE,
  ATTESTED_REPORT_FILES,
  sha256,
  SHA256_DIGEST,
  shippedSpecSha256,
  statementBytes,
  statementOf,
  type DigestedName,
} from '../core/model/attestation.js';
import { renderHtml } from '../reporters/html.js';

const USAGE = `Usage: conformance attest [report.json] (--key KEY.pem | --keyless) [--subject NAME=sha256:DIGEST ...] [--out FILE]
Signs a run's verdict as an in-toto statement (test-result predicate) in a Sigstore bundle, written beside the report
(${ATTESTATION_FILE}). It covers report.json and, when beside it, junit.xml and report.html (re-rendered to link it).

  --key <file>              Sign with this Ed25519 or ECDSA P-256 private key (PEM), offline
  --keyless                 Sign with Sigstore: the OIDC token of the GitHub Actions job (permissions: id-token: write)
                            or SIGSTORE_ID_TOKEN; a Fulcio certificate, logged in Rekor
  --subject <NAME=sha256:DIGEST>  What was judged, e.g. the server's image: ghcr.io/acme/api=sha256:… (repeatable)
  --out, -o <file>          Where to write the attestation [default: ${ATTESTATION_FILE} beside report.json]
  --fulcio-url <url>        Fulcio for --keyless [default: Sigstore's public instance]
  --rekor-url <url>         Rekor for --keyless [default: Sigstore's public instance]
  --tsa-url <url>           Also get an RFC 3161 timestamp from this timestamp authority (--keyless)
  --help, -h                This help

Check it: conformance verify ${ATTESTATION_FILE} --report report.json (--key KEY.pub | --certificate-identity … --certificate-oidc-issuer …)
`;

/** `--subject NAME=sha256:HEX`: the artifact the vendor says was judged. */
export function parseSubject(text: string): DigestedName {
  const at = text.lastIndexOf('=');
  const name = at > 0 ? text.slice(0, at) : '';
  const digest = SHA256_DIGEST.exec(text.slice(at + 1))?.[1];
  // A name is shown by verify and badge: printable, one line, bounded.
  if (!name || !digest || name.length > 500 || /[\u0000-\u001f\u007f]/.test(name))
    throw new ConfigError(
      `--subject ${untrustedLine(text, 120)}: expected NAME=sha256:<64 hex digits>, e.g. ghcr.io/acme/api=sha256:…`,
    );
  if ((ATTESTED_REPORT_FILES as readonly string[]).includes(name))
    throw new ConfigError(`--subject ${name}: that name is a report file's, which the attestation covers already`);
  return { name, digest: { sha256: digest.toLowerCase() } };
}

/**
 * `conformance attest`: signs the run of a report.json; exit 0 when the attestation is written (whatever the verdict),
 * 3 when a Sigstore service did not sign.
 */
export async function attestCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values: v, positionals } = commandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: {
        key: { type: 'string' },
        keyless: { type: 'boolean' },
        subject: { type: 'string', multiple: true },
        out: { type: 'string', short: 'o' },
        'fulcio-url': { type: 'string' },
        'rekor-url': { type: 'string' },
        'tsa-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    (m) => `${m} (usage: conformance attest [report.json] --key KEY.pem | --keyless; see attest --help)`,
    USAGE,
  );
  if (positionals.length > 1) throw new ConfigError('conformance attest takes one report.json (see attest --help)');
  if ((v.key === undefined) === (v.keyless !== true))
    throw new ConfigError('conformance attest signs with --key KEY.pem or --keyless, one of them (see attest --help)');
  const keylessOnly = (['fulcio-url', 'rekor-url', 'tsa-url'] as const).filter((f) => v[f] !== undefined);
  if (v.key !== undefined && keylessOnly.length)
    throw new ConfigError(`--${keylessOnly[0]} is for --keyless; --key signs offline`);
  const subjects = (v.subject ?? []).map(parseSubject);

  const source = positionals[0] ?? 'conformance-report/report.json';
  const { bytes, report } = readReportFile(source);
  // The spec hash an attestation carries is this installation's: only a report of this very version may claim it.
  if (report.tool.name !== tool.name || report.tool.version !== tool.version)
    throw new ConfigError(
      `${source} was written by ${untrustedLine(`${report.tool.name} ${report.tool.version}`, 120)}: attest it with that version (this is ${tool.version}), whose spec text judged it`,
    );
  const dir = dirname(resolve(source));
  const target = resolve(v.out ?? join(dir, ATTESTATION_FILE));

  // The HTML report links the attestation: re-rendered from the report, its digest taken of the new page, and
  // written only once the attestation is signed (a failed signing leaves no link to nothing).
  const html =
    existsSync(join(dir, 'report.html')) && dirname(target) === dir
      ? Buffer.from(renderHtml(report, { attestation: basename(target) }))
      : undefined;
  const reports: DigestedName[] = [{ name: 'report.json', digest: { sha256: sha256(bytes) } }];
  for (const name of ATTESTED_REPORT_FILES.slice(1)) {
    const content = name === 'report.html' && html ? html : reportFileBytes(join(dir, name));
    if (content) reports.push({ name, digest: { sha256: sha256(content) } });
  }

  const statement = statementOf(report, { reports, subjects, specSha256: shippedSpecSha256() });
  const { signStatement, SigningFailure } = await import('./signing.js');
  const signed = await signStatement(
    statementBytes(statement),
    v.key !== undefined
      ? { keyFile: v.key }
      : {
          keyless: {
            ...(v['fulcio-url'] ? { fulcioURL: v['fulcio-url'] } : {}),
            ...(v['rekor-url'] ? { rekorURL: v['rekor-url'] } : {}),
            ...(v['tsa-url'] ? { tsaServerURL: v['tsa-url'] } : {}),
          },
        },
  ).catch((e: unknown) => {
    if (e instanceof SigningFailure) return e;
    throw e;
  });
  if (signed instanceof SigningFailure) {
    process.stderr.write(`${untrustedLine(`conformance attest: ${signed.message}; nothing written`)}\n`);
    return 3;
  }
  const { bundle, by } = signed;
  if (html) writeFileAtomicSync(join(dir, 'report.html'), html);
  writeFileAtomicSync(target, `${JSON.stringify(bundle)}\n`);
  out(
    `${untrustedLine(
      `Attested ${VERDICT_WORD[report.verdict]} (test result ${statement.predicate.result}) of ${report.target.base_url}, signed with ${by}, covering ${reports.map((r) => r.name).join(', ')}${subjects.length ? ` and ${subjects.map((s) => s.name).join(', ')}` : ''}`,
    )}\nWrote ${untrustedLine(target)}\n`,
  );
  return 0;
}

/**
 * A report file beside report.json that the attestation lists (junit.xml, report.html), or undefined when there is
 * none: read within the reports' cap, and refused in one line when it is not a regular file (a FIFO would be waited
 * on forever, /dev/zero read without end).
 */
function reportFileBytes(file: string): Buffer | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readReportBytes(file);
  } catch (e) {
    throw new ConfigError(
      `cannot attest ${file}: ${e instanceof FileRefused ? e.message : ((e as NodeJS.ErrnoException).code ?? (e as Error).message)}`,
    );
  }
}
