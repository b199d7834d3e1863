import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { commandArgs } from './command-args.js';
import { ConfigError, fileProblem } from '../core/config/config.js';
import { tool } from '../core/base/paths.js';
import { VERDICT_WORD, type Coverage, type Report, type Verdict } from '../core/model/report.js';
import { rejudge } from './rejudge.js';
import { loadCheckHeads } from './check-heads.js';
import { formatErrors, validate } from '../core/spec/schemas.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import {
  ATTESTED_REPORT_FILES,
  CONFIG_NAMES,
  descriptorOf,
  PAYLOAD_TYPE,
  resultOf,
  sha256,
  SHA256_DIGEST,
  shippedSpecSha256,
  statementOf,
  suiteOf,
  type ConformanceStatement,
} from '../core/model/attestation.js';
import { FILE_CAPS, MAX_REPORT_BYTES, readRegularBytes } from '../core/base/regular-file.js';
import type { VerifyWith } from './signing.js';
import { counted } from '../core/base/counted.js';

const USAGE = `Usage: conformance verify ATTESTATION [--report report.json] (--key KEY.pub | --certificate-identity ID --certificate-oidc-issuer URL) [--subject sha256:DIGEST ...]
Checks a conformance attestation: its signature and signer, that the statement is this suite's about this suite's
spec text, that every report file it lists is there and matches its digest, that its verdict, counts and coverage
are what report.json's checks give, and that it names the subjects given. Prints the attested
verdict in one line; exit 0 only when everything holds (whatever verdict it attests: read the word), 1 with the
reason otherwise.

  --report <file>                 The report.json it covers (and beside it the junit.xml and report.html the
                                  attestation lists, each required) [default: report.json beside ATTESTATION]
  --key <file>                    The vendor's public key (PEM), for an attestation signed with --key
  --certificate-identity <id>     The signer a keyless attestation must have (the certificate's subject alternative
                                  name, e.g. https://github.com/acme/api/.github/workflows/conformance.yml@refs/heads/main)
  --certificate-oidc-issuer <url> Its OIDC issuer, e.g. https://token.actions.githubusercontent.com
  --trusted-root <file>           A Sigstore trusted_root.json (a private Sigstore) [default: Sigstore's public root]
  --subject <sha256:DIGEST>       A subject the attestation must name, e.g. the image you run (repeatable)
  --help, -h                      This help
`;

/** Largest attestation read: a bundle holds a statement of a few kilobytes and a certificate chain. */
const ATTESTATION_MAX_BYTES = 16 * 1024 * 1024;

/** Something did not hold: the one-line reason, exit 1. */
class NotVerified extends Error {}

/** A file verify reads whole, refused past its cap (`limit` says what sets the cap), in the CLI's file wording. */
function readCapped(file: string, max: number, what: string, limit: string): Buffer {
  try {
    return readRegularBytes(file, max, limit);
  } catch (e) {
    throw new ConfigError(`cannot read ${what} ${untrustedLine(file, 200)}: ${fileProblem(e)}`);
  }
}

/** The statement in a verified envelope, checked against schemas/attestation.schema.json. */
function statementIn(envelope: { payload: Buffer; payloadType: string }): ConformanceStatement {
  if (envelope.payloadType !== PAYLOAD_TYPE)
    throw new NotVerified(`the envelope holds ${envelope.payloadType}, not an in-toto statement (${PAYLOAD_TYPE})`);
  let value: unknown;
  try {
    value = JSON.parse(envelope.payload.toString('utf8'));
  } catch (e) {
    throw new NotVerified(`the statement is not JSON: ${(e as Error).message}`);
  }
  const errors = validate('attestation', value);
  if (errors.length) throw new NotVerified(`not a conformance statement: ${formatErrors(errors, 1)}`);
  return value as ConformanceStatement;
}

/** What the statement says must be what this suite writes: its name, its spec text and a verdict word of its own. */
function checkClaims(s: ConformanceStatement): void {
  const suite = suiteOf(s);
  if (suite.name !== tool.name)
    throw new NotVerified(`the statement is of another suite (${suite.name || 'none named'})`);
  const spec = descriptorOf(s, CONFIG_NAMES.spec)?.digest?.sha256;
  const shipped = shippedSpecSha256();
  if (spec !== shipped)
    throw new NotVerified(
      `the attested spec text (sha256:${spec ?? 'none'}) is not the one ${tool.name} ${tool.version} ships (sha256:${shipped})${suite.version !== tool.version ? `; it was judged by version ${suite.version}: verify with that version` : ''}`,
    );
  const c = s.predicate.conformance;
  const verdict = c.verdict as Verdict;
  if (!Object.hasOwn(VERDICT_WORD, verdict) || c.verdict_word !== VERDICT_WORD[verdict])
    throw new NotVerified(
      `the statement's verdict word "${c.verdict_word}" is not this suite's word for "${c.verdict}"`,
    );
  if (s.predicate.result !== resultOf(verdict))
    throw new NotVerified(`the statement's result ${s.predicate.result} does not follow from its verdict ${c.verdict}`);
}

/**
 * The report files the statement covers, beside `reportFile`: each must be there and have its attested digest.
 * Returns the names checked and report.json's bytes.
 */
function checkReports(s: ConformanceStatement, reportFile: string): { checked: string[]; report: Buffer } {
  const listed = new Map(s.predicate.conformance.reports.map((r) => [r.name, r.digest.sha256]));
  if (!listed.has('report.json')) throw new NotVerified('the statement covers no report.json');
  // Only the files a run writes: a name is joined to a folder here, and this suite never lists another.
  const other = [...listed.keys()].find((name) => !(ATTESTED_REPORT_FILES as readonly string[]).includes(name));
  if (other !== undefined)
    throw new NotVerified(`the statement lists ${other} as a report file, which this suite does not write`);
  const dir = dirname(resolve(reportFile));
  const checked: string[] = [];
  let report: Buffer | undefined;
  for (const [name, digest] of listed) {
    const file = name === 'report.json' ? reportFile : join(dir, name);
    // A file the statement vouches for and the verifier lacks is not vouched for by anyone: nothing verified.
    if (!existsSync(file))
      throw new NotVerified(`the statement covers ${name}, which is not at ${file}: give the report folder it covers`);
    const bytes = readCapped(file, MAX_REPORT_BYTES, 'report file', 'CONFORMANCE_MAX_REPORT_BYTES');
    const actual = sha256(bytes);
    if (actual !== digest)
      throw new NotVerified(`${file} has changed since it was attested (sha256:${actual}, attested sha256:${digest})`);
    if (name === 'report.json') report = bytes;
    checked.push(name === 'report.json' ? file : name);
  }
  return { checked, report: report! };
}

/** A value as a refusal shows it: compact JSON, cut short. */
const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? 'nothing';
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

/**
 * The words a statement signs must be what the report it covers says: the verdict, its word and test result, the
 * exit code, the counts of every outcome and the coverage are recomputed from report.json's checks (by this
 * suite's rule, with its catalogue when the report is of this version) and compared. A key holder can sign any
 * words; this makes them sign the same words their report's checks give, or be refused.
 */
async function checkWords(s: ConformanceStatement, reportBytes: Buffer): Promise<void> {
  let value: unknown;
  try {
    value = JSON.parse(reportBytes.toString('utf8'));
  } catch (e) {
    throw new NotVerified(`the report.json it covers is not JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const errors = validate('report', value);
  if (errors.length) throw new NotVerified(`the report.json it covers is not a report: ${formatErrors(errors, 1)}`);
  const report = value as Report;
  const { checks, coverage: computed, verdict, exit_code: exit } = rejudge(report, await loadCheckHeads());
  const notRun = (c: Coverage): string[] => c.not_run.map((n) => n.id).sort();
  const coverageWords = (c: Coverage): string =>
    `${shown(c.must_judged)} of ${shown(c.must_total)} MUST checks judged${c.complete ? '' : ', not complete'}` +
    (c.cellsApplicable !== undefined ? `, ${shown(c.cellsProbed)} of ${shown(c.cellsApplicable)} cells probed` : '');
  if (
    computed.must_total !== report.coverage.must_total ||
    computed.must_judged !== report.coverage.must_judged ||
    computed.complete !== report.coverage.complete ||
    shown(notRun(computed)) !== shown(notRun(report.coverage)) ||
    computed.cellsProbed !== report.coverage.cellsProbed ||
    computed.cellsApplicable !== report.coverage.cellsApplicable
  )
    throw new NotVerified(
      `report.json's coverage (${coverageWords(report.coverage)}) is not what its checks give (${coverageWords(computed)})`,
    );
  if (report.verdict !== verdict || report.exit_code !== exit)
    throw new NotVerified(
      `report.json says ${VERDICT_WORD[report.verdict] ?? shown(report.verdict)} (exit ${shown(report.exit_code)}), but its checks give ${VERDICT_WORD[verdict]} (exit ${exit})`,
    );
  const reports = s.predicate.conformance.reports;
  const own = new Set(reports.map((r) => `${r.name}\0${r.digest.sha256}`));
  const expected = statementOf(
    { ...report, checks, coverage: computed, verdict, exit_code: exit },
    {
      reports,
      subjects: s.subject.filter((x) => !own.has(`${x.name}\0${x.digest.sha256}`)),
      specSha256: shippedSpecSha256(),
    },
  );
  const c = s.predicate.conformance;
  const e = expected.predicate.conformance;
  const count = (o: Record<string, string[]>): Record<string, number> =>
    Object.fromEntries(Object.entries(o).map(([k, ids]) => [k, ids.length]));
  const pairs: Array<[string, unknown, unknown]> = [
    ['verdict', c.verdict, e.verdict],
    ['verdict word', c.verdict_word, e.verdict_word],
    ['test result', s.predicate.result, expected.predicate.result],
    ['exit code', c.exit_code, e.exit_code],
    ['strict', c.strict, e.strict],
    ['verdict reason', c.verdict_reason, report.verdict_reason],
    [
      'coverage',
      { must_total: c.coverage.must_total, must_judged: c.coverage.must_judged, complete: c.coverage.complete },
      { must_total: e.coverage.must_total, must_judged: e.coverage.must_judged, complete: e.coverage.complete },
    ],
    ['checks not judged', notRun(c.coverage), notRun(e.coverage)],
    ['counts of outcomes', count(c.outcomes), count(e.outcomes)],
    ['outcomes', c.outcomes, e.outcomes],
    ['passedTests', s.predicate.passedTests, expected.predicate.passedTests],
    ['warnedTests', s.predicate.warnedTests, expected.predicate.warnedTests],
    ['failedTests', s.predicate.failedTests, expected.predicate.failedTests],
    ['known failures', c.known_failures, e.known_failures],
    ['target', descriptorOf(s, CONFIG_NAMES.target)?.uri, report.target.base_url],
    ['suite version', suiteOf(s).version, report.tool.version],
    ['run start', c.started_at, e.started_at],
    ['fuzz seed and runs', c.fuzz, e.fuzz],
  ];
  for (const [what, said, is] of pairs)
    if (JSON.stringify(said) !== JSON.stringify(is))
      throw new NotVerified(`the statement's ${what} (${shown(said)}) is not what report.json gives (${shown(is)})`);
}

/** `conformance verify`: exit 0 when the attestation holds in every respect, 1 with the reason otherwise. */
export async function verifyCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values: v, positionals } = commandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: {
        report: { type: 'string' },
        key: { type: 'string' },
        'certificate-identity': { type: 'string' },
        'certificate-oidc-issuer': { type: 'string' },
        'trusted-root': { type: 'string' },
        subject: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    },
    (m) =>
      `${m} (usage: conformance verify ATTESTATION [--report report.json] --key KEY.pub | --certificate-identity …; see verify --help)`,
    USAGE,
  );
  if (positionals.length !== 1)
    throw new ConfigError('conformance verify takes one attestation file (see verify --help)');
  const identity = v['certificate-identity'];
  const issuer = v['certificate-oidc-issuer'];
  if (v.key !== undefined && (identity !== undefined || issuer !== undefined))
    throw new ConfigError(
      '--key is for an attestation signed with a key; --certificate-identity/-oidc-issuer for a keyless one: not both',
    );
  if (v.key === undefined && (identity === undefined || issuer === undefined))
    throw new ConfigError(
      'say who must have signed: --key KEY.pub, or --certificate-identity and --certificate-oidc-issuer (see verify --help)',
    );
  const subjects = (v.subject ?? []).map((d) => {
    const hex = SHA256_DIGEST.exec(d)?.[1];
    if (!hex) throw new ConfigError(`--subject ${untrustedLine(d, 120)}: expected sha256:<64 hex digits>`);
    return hex.toLowerCase();
  });
  const file = positionals[0]!;
  const beside = join(dirname(resolve(file)), 'report.json');
  const reportFile = v.report ?? (existsSync(beside) ? beside : undefined);
  const how: VerifyWith =
    v.key !== undefined
      ? { keyFile: v.key }
      : { identity: identity!, issuer: issuer!, ...(v['trusted-root'] ? { trustedRoot: v['trusted-root'] } : {}) };
  // The key is read (bounded, a regular file) before anything else: a FIFO or /dev/zero is refused at once.
  if (v.key !== undefined) readCapped(v.key, FILE_CAPS.pem.bytes, 'key', FILE_CAPS.pem.what);
  const bytes = readCapped(file, ATTESTATION_MAX_BYTES, 'attestation', 'an attestation holds a few kilobytes');

  const { verifyBundle, VerifyFailure } = await import('./signing.js');
  try {
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch (e) {
      throw new NotVerified(`${basename(file)} is not JSON: ${(e as Error).message}`);
    }
    const { by, envelope } = await verifyBundle(json, how);
    const s = statementIn(envelope);
    checkClaims(s);
    const named = new Set(s.subject.map((x) => x.digest.sha256));
    const missing = subjects.find((d) => !named.has(d));
    if (missing) throw new NotVerified(`the attestation does not name sha256:${missing} among its subjects`);
    if (!reportFile)
      throw new NotVerified(
        `the statement covers report.json, which is not beside ${basename(file)}: give it with --report`,
      );
    const { checked, report } = checkReports(s, reportFile);
    await checkWords(s, report);
    const c = s.predicate.conformance;
    const target = descriptorOf(s, CONFIG_NAMES.target)?.uri ?? '';
    const suite = suiteOf(s);
    out(
      `${untrustedLine(
        `VERIFIED ${c.verdict_word}: ${target} judged by ${suite.name} ${suite.version} on ${c.started_at} (${c.coverage.must_judged} of ${c.coverage.must_total} MUST checks judged${c.known_failures.length ? `, ${counted(c.known_failures.length, 'known failure')}` : ''}), signed by ${by}; matches ${checked.join(', ')}${subjects.length ? `; names ${counted(subjects.length, 'subject')} given` : ''}`,
      )}\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof NotVerified || e instanceof VerifyFailure) {
      out(`${untrustedLine(`NOT VERIFIED: ${e.message}`)}\n`);
      return 1;
    }
    throw e;
  }
}
