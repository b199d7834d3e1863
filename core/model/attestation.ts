import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { OUTCOME_ORDER, VERDICT_WORD, type Outcome, type Report, type Verdict } from './report.js';
import { SPEC_FILE } from '../spec/spec-text.js';

/**
 * A run's verdict as an in-toto Statement (v1) with the test-result predicate, for a DSSE envelope a customer can
 * verify: which suite version judged which server build, against which spec text, with which coverage and verdict.
 * Built from report.json alone — the report every other output renders, already redacted — so nothing reaches an
 * attestation that the report does not hold, and nothing varies but the inputs (no clock, no randomness: the
 * signature and its time live in the envelope and bundle around it).
 */

/** The in-toto Statement layer's type. */
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The predicate: in-toto's test result. */
export const PREDICATE_TYPE = 'https://in-toto.io/attestation/test-result/v0.1';
/** The DSSE payload type of an in-toto statement. */
export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
/** Where `conformance attest` writes the signed attestation (a Sigstore bundle) by default: beside report.json. */
export const ATTESTATION_FILE = 'attestation.sigstore.json';
/** Where `conformance badge` writes its SVG by default: beside its input. */
export const BADGE_FILE = 'conformance-badge.svg';
/** The report files an attestation covers when they lie beside report.json (report.json itself always). */
export const ATTESTED_REPORT_FILES = ['report.json', 'junit.xml', 'report.html'] as const;
/** The spec as the configuration names it: the path the package ships it at. */
export const SPEC_NAME = 'spec/open-platform-api.md';

/** in-toto's ResourceDescriptor (the fields this tool writes). */
export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  mediaType?: string;
  annotations?: Record<string, unknown>;
}

/** A file or artifact named with its SHA-256, as a statement's subjects and covered reports are. */
export interface DigestedName {
  name: string;
  digest: { sha256: string };
}

/** The test-result predicate's result: a test-result consumer's view of the verdict. */
export type TestResult = 'PASSED' | 'WARNED' | 'FAILED';

/** What this suite adds to the test-result predicate (consumers of the predicate ignore fields they do not know). */
export interface ConformanceFields {
  /** The run's verdict and its word, exactly as the report carries them. */
  verdict: Verdict;
  verdict_word: string;
  verdict_reason: string;
  exit_code: Report['exit_code'];
  strict: boolean;
  /** How many MUST checks the run judged, and why the others were not (PARTIAL). */
  coverage: Report['coverage'];
  /** Failures the baseline excused (outcome known): they failed, and the attestation says so. */
  known_failures: Array<{ id: string; level: string; reason: string; expires?: string }>;
  /** Every check of the run by outcome. */
  outcomes: Record<Outcome, string[]>;
  fuzz: Report['fuzz'];
  started_at: string;
  duration_ms: number;
  /** The report files this attestation covers, with their SHA-256 (also among the subjects). */
  reports: DigestedName[];
}

/** The test-result predicate (v0.1) with this suite's fields under `conformance`. */
export interface ConformancePredicate {
  result: TestResult;
  configuration: ResourceDescriptor[];
  passedTests: string[];
  warnedTests: string[];
  failedTests: string[];
  conformance: ConformanceFields;
}

/** An in-toto Statement v1 about a conformance run. */
export interface ConformanceStatement {
  _type: typeof STATEMENT_TYPE;
  subject: DigestedName[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: ConformancePredicate;
}

/** A digest as the command line takes one: `sha256:` and 64 hex digits (the hex in group 1). */
export const SHA256_DIGEST = /^sha256:([0-9a-fA-F]{64})$/;

/** The SHA-256 of some bytes, in hex. */
export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** The SHA-256 of the spec text this installation ships: what `verify` holds an attestation's spec hash to. */
export const shippedSpecSha256 = (): string => sha256(readFileSync(SPEC_FILE));

/** The test-result word of a verdict: only CONFORMANT passes; PARTIAL warns (not all was judged); the rest failed. */
export function resultOf(verdict: Verdict): TestResult {
  return verdict === 'conformant' ? 'PASSED' : verdict === 'partial' ? 'WARNED' : 'FAILED';
}

/** Outcomes a test-result consumer counts as failed: the MUST failures, baselined or not, and baseline breaches. */
const FAILED_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['failed', 'expired', 'stale', 'known']);

/** The configuration descriptors by name: the suite, the spec text, the target and the run's settings. */
export const CONFIG_NAMES = { suite: 'suite', spec: SPEC_NAME, target: 'target', settings: 'settings' } as const;

/**
 * The statement of a run. `reports` are the report files with their digests (report.json first), `subjects` what
 * the vendor names (a container image, a build artifact); both become subjects, so `cosign verify-blob-attestation`
 * and `gh attestation verify` can check a report file or the artifact against it.
 */
export function statementOf(
  report: Report,
  inputs: { reports: DigestedName[]; subjects: DigestedName[]; specSha256: string },
): ConformanceStatement {
  const outcomes = Object.fromEntries(OUTCOME_ORDER.map((o) => [o, [] as string[]])) as Record<Outcome, string[]>;
  for (const c of report.checks) outcomes[c.outcome].push(c.id);
  const ids = (keep: (o: Outcome) => boolean): string[] =>
    report.checks.filter((c) => keep(c.outcome)).map((c) => c.id);
  // What makes a run WARNED is listed as warned: its SHOULD failures and the MUST checks it did not judge in full
  // (not run, skipped, sampled), which are then not among the passed ones.
  const notJudged = new Set(report.coverage.not_run.map((n) => n.id));
  const failed = ids((o) => FAILED_OUTCOMES.has(o));
  const warned = [...new Set([...ids((o) => o === 'warned'), ...notJudged])].filter((id) => !failed.includes(id));
  return {
    _type: STATEMENT_TYPE,
    subject: [...inputs.subjects, ...inputs.reports],
    predicateType: PREDICATE_TYPE,
    predicate: {
      result: resultOf(report.verdict),
      configuration: [
        {
          name: CONFIG_NAMES.suite,
          uri: `pkg:npm/${report.tool.name}@${report.tool.version}`,
          annotations: { name: report.tool.name, version: report.tool.version },
        },
        { name: CONFIG_NAMES.spec, digest: { sha256: inputs.specSha256 }, mediaType: 'text/markdown' },
        { name: CONFIG_NAMES.target, uri: report.target.base_url },
        { name: CONFIG_NAMES.settings, mediaType: 'application/json', annotations: report.config },
      ],
      passedTests: ids((o) => o === 'passed').filter((id) => !notJudged.has(id)),
      warnedTests: warned,
      failedTests: failed,
      conformance: {
        verdict: report.verdict,
        verdict_word: VERDICT_WORD[report.verdict],
        verdict_reason: report.verdict_reason,
        exit_code: report.exit_code,
        strict: report.strict,
        coverage: report.coverage,
        known_failures: report.checks
          .filter((c) => c.outcome === 'known')
          .map((c) => ({
            id: c.id,
            level: c.level,
            reason: c.baseline?.reason ?? '',
            ...(c.baseline?.expires ? { expires: c.baseline.expires } : {}),
          })),
        outcomes,
        fuzz: report.fuzz,
        started_at: report.started_at,
        duration_ms: report.duration_ms,
        reports: inputs.reports,
      },
    },
  };
}

/** The statement's bytes as the envelope carries them: compact JSON, the same bytes for the same statement. */
export const statementBytes = (s: ConformanceStatement): Buffer => Buffer.from(JSON.stringify(s));

/** A configuration descriptor of a statement by name. */
export const descriptorOf = (s: ConformanceStatement, name: string): ResourceDescriptor | undefined =>
  s.predicate.configuration.find((d) => d.name === name);

/** The suite that judged the run, as the statement names it. */
export function suiteOf(s: ConformanceStatement): { name: string; version: string } {
  const a = descriptorOf(s, CONFIG_NAMES.suite)?.annotations ?? {};
  return { name: String(a.name ?? ''), version: String(a.version ?? '') };
}
