import { existsSync } from 'node:fs';
import { writeFileAtomicSync } from '../core/base/atomic-file.js';
import { dirname, join, resolve } from 'node:path';
import { commandArgs } from './command-args.js';
import { readReport } from './diff.js';
import { readReportBytes } from '../core/base/regular-file.js';
import { ConfigError } from '../core/config/config.js';
import { VERDICT_WORD, type Verdict } from '../core/model/report.js';
import { formatErrors, validate } from '../core/spec/schemas.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import {
  ATTESTATION_FILE,
  BADGE_FILE,
  PAYLOAD_TYPE,
  suiteOf,
  type ConformanceStatement,
} from '../core/model/attestation.js';

const USAGE = `Usage: conformance badge [ATTESTATION | report.json] [--out FILE]
Writes an SVG badge (Shields.io style) with the verdict word and the suite version, for a README. From an attestation
it shows what the attestation states (check it with conformance verify); from a report, the report's verdict.

  --out, -o <file>   Where to write it [default: ${BADGE_FILE} beside the input]
  --help, -h         This help

Default input: conformance-report/${ATTESTATION_FILE}, else conformance-report/report.json.
`;

/** The badge's colour per verdict: green only for CONFORMANT; a verdict this table lacks is grey. */
const COLOUR: Record<string, string> = {
  conformant: 'brightgreen',
  partial: 'yellow',
  'known failures': 'orange',
  'not conformant': 'red',
  incomplete: 'lightgrey',
  'nothing judged': 'lightgrey',
};

/** What a badge shows: the verdict (its word comes from VERDICT_WORD, never from the input) and the suite version. */
export interface BadgeFacts {
  verdict: Verdict;
  version: string;
}

/** A version as the badge prints it: what a package version can be, so an input cannot write text of its own. */
const VERSION = /^[0-9A-Za-z.+-]{1,40}$/;

/** The SVG of a badge (badge-maker escapes what it writes). */
export async function badgeSvg(facts: BadgeFacts): Promise<string> {
  if (!Object.hasOwn(VERDICT_WORD, facts.verdict))
    throw new ConfigError(`unknown verdict ${untrustedLine(facts.verdict, 60)}`);
  if (!VERSION.test(facts.version)) throw new ConfigError(`not a suite version: ${untrustedLine(facts.version, 60)}`);
  const { makeBadge } = await import('badge-maker');
  return makeBadge({
    label: `API conformance ${facts.version}`,
    message: VERDICT_WORD[facts.verdict],
    color: COLOUR[facts.verdict] ?? 'lightgrey',
  });
}

/** The statement inside an attestation, as it states it (unverified: the badge shows a claim, verify checks it). */
async function statedFacts(json: { dsseEnvelope?: unknown }, file: string): Promise<BadgeFacts> {
  const { bundleFromJSON } = await import('@sigstore/bundle');
  let statement: unknown;
  try {
    const bundle = bundleFromJSON(json);
    if (bundle.content.$case !== 'dsseEnvelope' || bundle.content.dsseEnvelope.payloadType !== PAYLOAD_TYPE)
      throw new Error('it holds no in-toto statement');
    statement = JSON.parse(bundle.content.dsseEnvelope.payload.toString('utf8'));
  } catch (e) {
    throw new ConfigError(
      `${untrustedLine(file, 200)} is not an attestation: ${untrustedLine((e as Error).message, 200)}`,
    );
  }
  const errors = validate('attestation', statement);
  if (errors.length)
    throw new ConfigError(`${untrustedLine(file, 200)} is not a conformance attestation: ${formatErrors(errors, 1)}`);
  const s = statement as ConformanceStatement;
  return { verdict: s.predicate.conformance.verdict, version: suiteOf(s).version };
}

/** `conformance badge`: writes the SVG; exit 0. */
export async function badgeCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values: v, positionals } = commandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    },
    (m) => `${m} (usage: conformance badge [ATTESTATION | report.json] [--out FILE]; see badge --help)`,
    USAGE,
  );
  if (positionals.length > 1) throw new ConfigError('conformance badge takes one attestation or report.json');
  const input =
    positionals[0] ??
    (existsSync(join('conformance-report', ATTESTATION_FILE))
      ? join('conformance-report', ATTESTATION_FILE)
      : join('conformance-report', 'report.json'));
  let json: { dsseEnvelope?: unknown };
  try {
    json = JSON.parse(readReportBytes(input).toString('utf8')) as { dsseEnvelope?: unknown };
  } catch (e) {
    throw new ConfigError(
      `cannot read ${untrustedLine(input, 200)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  const facts =
    json !== null && typeof json === 'object' && 'dsseEnvelope' in json
      ? await statedFacts(json, input)
      : (({ verdict, tool }) => ({ verdict, version: tool.version }))(readReport(input));
  const target = resolve(v.out ?? join(dirname(resolve(input)), BADGE_FILE));
  writeFileAtomicSync(target, await badgeSvg(facts));
  out(`${untrustedLine(`Badge: ${VERDICT_WORD[facts.verdict]} (suite ${facts.version}); wrote ${target}`)}\n`);
  return 0;
}
