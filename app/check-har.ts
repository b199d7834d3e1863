import { grouped } from '../core/base/counted.js';
import { runMatrix } from '../suites/rules/index.js';
import { commandArgs } from './command-args.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, resolveConfig, type Config, type Credentials } from '../core/config/config.js';
import { runChecks } from '../core/engine/engine.js';
import {
  bodyBytes,
  MAX_REQUESTS,
  RecordedSource,
  Recording,
  type RecordedExchange,
} from '../core/session/recorded-source.js';
import { HarError, type HarRoles } from '../core/session/har.js';
import { readHarStream, type HarStreamResult } from '../core/session/har-stream.js';
import type { Requirement } from '../core/model/check.js';
import type { Who } from '../core/spec/resources.js';
import { checkRecord, type CheckRecord, type Report } from '../core/model/report.js';
import { runFacts, runReport } from '../core/engine/run-report.js';
import { placeholderOf, type Redactor } from '../core/redact/redact.js';
import {
  AUTH_PATH,
  authCallOf,
  authPathAt,
  authQueryText,
  issuedToken,
  merchantField,
  TOKEN_HEADER,
  tokenOfRequest,
} from '../core/spec/auth-scheme.js';
import { inertBlock, untrustedLine } from '../core/redact/untrusted-text.js';
import { tool } from '../core/base/paths.js';
import { summaryText } from '../reporters/terminal.js';
import { ALL_CHECKS } from '../suites/index.js';
import { writeReportDir } from './report-dir.js';

/** `conformance check-har --help`. */
export const CHECK_HAR_USAGE = `Usage: conformance check-har capture.har [--base-url URL] [--report-dir DIR] [--reporter LIST] [--strict] [-q]

Judges the exchanges recorded in a HAR file (browser devtools, mitmproxy's HAR export, Playwright's recordHar, or a
run's --record-har) by every check that can be judged from them, and sends no request. A check that needs a
request the recording does not hold is skipped, naming it, so the verdict is PARTIAL at best. The applications are
told apart by their key pairs in the ${AUTH_PATH} requests and the tokens ${AUTH_PATH} issued them (the application whose token
is used most is "app", a second application of another merchant "other_app"); a run's own HAR names them. A capture
without ${AUTH_PATH} (a cached token) names them by the ${TOKEN_HEADER} of its requests; the recorded answers are judged all
the same. A failed attempt (status 0) followed by its recorded retry is the client's network: set aside, counted.
Secrets in the HAR (keys in ${AUTH_PATH}'s query, ${TOKEN_HEADER} headers, tokens in ${AUTH_PATH} answers) are redacted in every output.
The HAR is read as a stream; what is not a regular file, or is past 4 GiB (CONFORMANCE_MAX_HAR_BYTES), is refused.

  --base-url <url>      The API's base address in the recording (default: where ${AUTH_PATH}, else the API, was called)
  --report-dir <dir>    Directory for the reports (default ./conformance-report)
  --reporter <list>     Comma-separated report formats: json,junit,html (default all)
  --max-details <n|all> Judge a seeded sample of N detail records of a resource (default all that were recorded)
  --strict              A PARTIAL verdict exits 3 instead of 0
  --quiet, -q           Print the verdict and the findings only
  --help, -h            This help

Exit codes as a run: 0 conformant or PARTIAL, 1 a MUST check failed, 2 usage error (no HAR, not a file, no base
URL), 3 could not judge or NOTHING JUDGED (the recording holds nothing a check can judge; PARTIAL with --strict).
`;

/** An application of the recording: the key pair its /auth sent (if recorded), its token, whose merchant it is. */
interface SeenApp {
  secret?: string;
  key?: string;
  token?: string;
  merchant?: unknown;
  uses: number;
}

/** The endpoints' paths a base URL is found in front of, when the recording holds no /auth (longest first). */
const API_PATHS = /\/(?:merchant|dishes|seats|orders)(?:\/[^/]*)?$/;
/** Bodies of /auth and /merchant answers read to learn tokens and merchants: a few KB in any capture. */
const SMALL_BODY = 1024 * 1024;
/** Distinct tokens and /auth requests kept track of (a capture with more is no one application's). */
const MAX_TRACKED = 10_000;

/** What check-har learns of a recording while it is read: its base URL, its applications, their tokens. */
export class RecordingSurvey {
  private readonly auths = new Map<string, SeenApp>();
  /** open-token values and how many requests carried each. */
  private readonly uses = new Map<string, number>();
  /** The merchant id /merchant answered for a token. */
  private readonly merchants = new Map<string, unknown>();
  private authBase: string | undefined;
  private apiBase: string | undefined;
  /** Every base URL a request went to (/auth's, or in front of an endpoint's path), to tell a mistyped --base-url. */
  private readonly bases = new Set<string>();

  /** Takes one recorded exchange into account (called as the HAR is read). */
  see(x: RecordedExchange): void {
    let u: URL;
    try {
      u = new URL(x.request.url);
    } catch {
      return;
    }
    const at =
      API_PATHS.exec(u.pathname) ??
      (u.pathname.endsWith(AUTH_PATH) ? { index: u.pathname.length - AUTH_PATH.length } : null);
    if (at && this.bases.size < MAX_TRACKED)
      this.bases.add(`${u.origin}${u.pathname.slice(0, at.index)}`.replace(/\/+$/, ''));
    const token = tokenOfRequest(x.request.headers);
    // A recording's stand-in for derived or altered tokens is no application's token (#35: every run sends hundreds).
    if (token && token !== placeholderOf('derived-token') && token !== placeholderOf('altered-token')) {
      if (this.uses.has(token) || this.uses.size < MAX_TRACKED) this.uses.set(token, (this.uses.get(token) ?? 0) + 1);
      const api = API_PATHS.exec(u.pathname);
      if (api && this.apiBase === undefined) this.apiBase = `${u.origin}${u.pathname.slice(0, api.index)}`;
      if (u.pathname.endsWith('/merchant') && x.response && !this.merchants.has(token)) {
        const id = (bodyJson(x.response) as { data?: { id?: unknown } } | undefined)?.data?.id;
        if (id !== undefined) this.merchants.set(token, id);
      }
    }
    const call = authCallOf(u);
    if (!call) return;
    const { secret, key } = call.pair;
    this.authBase ??= call.base;
    const id = JSON.stringify([u.origin, u.pathname, secret, key]);
    if (!this.auths.has(id) && this.auths.size >= MAX_TRACKED) return;
    const app = this.auths.get(id) ?? { secret, key, uses: 0 };
    this.auths.set(id, app);
    const data = x.response ? (bodyJson(x.response) as { data?: unknown } | undefined)?.data : undefined;
    const issued = issuedToken(data);
    if (issued !== undefined) {
      app.token = issued;
      app.merchant = (merchantField(data) as { id?: unknown } | undefined)?.id;
    }
  }

  /** Whether any request of the recording went to the API at this base URL. */
  calledAt(base: string): boolean {
    const u = new URL(base);
    return this.bases.has(`${u.origin}${u.pathname}`.replace(/\/+$/, ''));
  }

  /** The base URL of the recording: where /auth was called, else in front of the endpoints its tokens were sent to. */
  baseUrl(): string | undefined {
    return this.authBase ?? this.apiBase;
  }

  /** The applications of the recording at a base URL: by their /auth requests, then by tokens no /auth issued. */
  applications(base: string): SeenApp[] {
    const authPath = authPathAt(base);
    const origin = new URL(base).origin;
    const apps = [...this.auths.entries()]
      .filter(([id]) => {
        const [o, p] = JSON.parse(id) as [string, string];
        return o === origin && p === authPath;
      })
      .map(([, a]) => ({ ...a, uses: a.token === undefined ? 0 : (this.uses.get(a.token) ?? 0) }));
    const issued = new Set(apps.map((a) => a.token));
    for (const [token, uses] of this.uses)
      if (!issued.has(token)) apps.push({ token, uses, merchant: this.merchants.get(token) });
    for (const a of apps) if (a.merchant === undefined && a.token) a.merchant = this.merchants.get(a.token);
    return apps.sort((a, b) => b.uses - a.uses);
  }
}

/** The JSON of a small recorded body, or undefined. */
function bodyJson(r: NonNullable<RecordedExchange['response']>): unknown {
  if (r.file !== undefined || r.body.length > SMALL_BODY * 2) return undefined;
  try {
    return JSON.parse(bodyBytes(r).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Which application is which, and the tokens of those the recording holds no /auth of. */
interface Roles {
  roles: HarRoles;
  /** Tokens of applications without an /auth entry (a cached token): their checks read the recorded answers. */
  tokens: Partial<Record<Who, string>>;
}

/**
 * Which application is which: as the run that wrote the HAR said, else by the /auth requests and the tokens used
 * (the application whose token is used most is app; one of another merchant, as its /auth or /merchant answer
 * says, other_app). An application known by its token alone has no key pair: what needs /auth is not in the
 * recording.
 */
function rolesOf(seen: SeenApp[], written: HarRoles | undefined): Roles {
  if (written?.app) return { roles: written, tokens: {} };
  const [app, ...rest] = seen.filter((a) => a.token !== undefined);
  const other =
    app && rest.find((a) => a.merchant !== undefined && app.merchant !== undefined && a.merchant !== app.merchant);
  const cred = (a: SeenApp, who: Who): Credentials =>
    a.secret !== undefined ? { secret: a.secret, key: a.key! } : noKeyPair(who);
  const tokens: Partial<Record<Who, string>> = {};
  if (app && app.secret === undefined) tokens.app = app.token!;
  if (other && other.secret === undefined) tokens.other_app = other.token!;
  return {
    roles: { ...(app ? { app: cred(app, 'app') } : {}), ...(other ? { other_app: cred(other, 'other_app') } : {}) },
    tokens,
  };
}

/** The key pair of an application the recording holds no /auth of: never sent, never found in the recording. */
const noKeyPair = (who: Who): Credentials => ({
  secret: `${who}-public-key-not-in-the-recording`,
  key: `${who}-secret-key-not-in-the-recording`,
});
/** A request for /auth with the key pair of noKeyPair, as a skipped check's message shows it (redacted). */
const NO_KEY_AUTH = new RegExp(
  `GET ${AUTH_PATH}\\?${authQueryText('\\[REDACTED:(other-)?public-key\\]', '\\[REDACTED:(?:other-)?secret-key\\]')}\\S*`,
  'g',
);

/** Every secret of the recording the config does not name: other key pairs, tokens in open-token headers. */
function addRecordedSecrets(redactor: Redactor, seen: SeenApp[]): void {
  for (const a of seen) {
    if (a.secret !== undefined && !redactor.kindOf(a.secret)) redactor.add(a.secret, 'public-key');
    if (a.key !== undefined && !redactor.kindOf(a.key)) redactor.add(a.key, 'secret-key');
    if (a.token !== undefined && !redactor.kindOf(a.token)) redactor.add(a.token, 'issued-token');
  }
}

/** What a skipped check needed, said of a recording: what the recording does not hold, not a flag to give. */
const RECORDING_UNMET: Partial<Record<Requirement, string>> = {
  other_app: `not in the recording: no application of a second merchant (an ${AUTH_PATH} of another key pair, or a token whose /merchant names another merchant)`,
  disabled_app_keys: 'not in the recording: no disabled application (only a HAR written by --record-har names one)',
  disabled_app_token: 'not in the recording: no disabled application (only a HAR written by --record-har names one)',
};

/**
 * A check's record as a recording's report says it: no flag, seed or rerun that only a live run can take, and an
 * /auth of an application known by its token alone named as such.
 */
function asRecorded(r: CheckRecord, tokens: Partial<Record<Who, string>>, noApp: boolean): CheckRecord {
  const unmet = r.unmet && RECORDING_UNMET[r.unmet];
  const message = r.message.replace(NO_KEY_AUTH, (all, other?: string) => {
    const who: Who = other ? 'other_app' : 'app';
    if (tokens[who] !== undefined) return `GET ${AUTH_PATH} of ${who} (only its token is in the recording)`;
    return noApp ? `GET ${AUTH_PATH} (no application: no ${AUTH_PATH} answered a token, no request carried one)` : all;
  });
  return checkRecord(r, {
    ...r,
    message: unmet ?? message,
    ...(r.fuzz
      ? { fuzz: { ...r.fuzz, replay: 'the recorded exchanges (check-har sends nothing and takes no seed)' } }
      : {}),
  });
}

/**
 * Runs every check over the recording through the engine, one at a time in the order of a run (the unsafe methods,
 * then the checks that call /auth again, last), so that a request asked twice gets its recorded answers in order.
 */
async function judgeRecording(
  config: Config,
  recording: Recording,
  seen: SeenApp[],
  tokens: Partial<Record<Who, string>>,
): Promise<{ records: CheckRecord[]; redactor: Redactor }> {
  const { records, redactor } = await runChecks(
    config,
    ALL_CHECKS,
    (r) => new RecordedSource(recording, config.base_url, r, { tokens, maxBodyBytes: config.max_body_bytes }),
    { sequential: true, onRedactor: (r) => addRecordedSecrets(r, seen) },
  );
  const noApp = !seen.some((a) => a.token !== undefined);
  return { records: records.map((r) => asRecorded(r, tokens, noApp)), redactor };
}

/** Reads the HAR as a stream into a recording (in `dir`), surveying its applications as it goes. */
async function readRecording(
  file: string,
  dir: string,
): Promise<{ recording: Recording; survey: RecordingSurvey; read: HarStreamResult }> {
  const recording = new Recording(dir);
  const survey = new RecordingSurvey();
  try {
    const read = readHarStream(file, dir, (x) => {
      survey.see(x);
      recording.add(x);
    });
    return { recording, survey, read };
  } catch (e) {
    recording.close();
    // The file's name is the user's, or a capture's sender's: one inert line.
    if (e instanceof HarError) throw new ConfigError(`check-har: ${untrustedLine(file)}: ${e.message}`);
    throw e;
  }
}

/** `conformance check-har FILE`: the verdict of a recording, the usual three reports, no request sent. */
export async function checkHarCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const parsed = commandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'report-dir': { type: 'string' },
        reporter: { type: 'string' },
        'max-details': { type: 'string' },
        strict: { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
      },
    },
    (m) => `check-har: ${m} (see check-har --help)`,
    CHECK_HAR_USAGE,
  );
  const v = parsed.values;
  if (parsed.positionals.length !== 1) throw new ConfigError('check-har: give one HAR file (see check-har --help)');
  const file = parsed.positionals[0]!;
  if (v['base-url'] !== undefined && !URL.canParse(v['base-url']))
    throw new ConfigError('check-har: --base-url is not a URL');
  const dir = mkdtempSync(join(tmpdir(), 'conformance-har-'));
  try {
    const { recording, survey, read } = await readRecording(file, dir);
    try {
      return await judgeFile(file, v, recording, survey, read, out);
    } finally {
      recording.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function judgeFile(
  file: string,
  v: {
    'base-url'?: string;
    'report-dir'?: string;
    reporter?: string;
    'max-details'?: string;
    strict?: boolean;
    quiet?: boolean;
  },
  recording: Recording,
  survey: RecordingSurvey,
  har: HarStreamResult,
  out: (s: string) => void,
): Promise<number> {
  const base = v['base-url'] ?? survey.baseUrl();
  if (!base)
    throw new ConfigError(
      `check-har: ${untrustedLine(file)} holds no ${AUTH_PATH} request and no request with an ${TOKEN_HEADER} to take the base URL from: give --base-url`,
    );
  if (!URL.canParse(base)) throw new ConfigError('check-har: --base-url is not a URL');
  const seen = survey.applications(base);
  // A --base-url no recorded request went to skips every check as "not in the recording": say which one it holds.
  const found = survey.baseUrl();
  if (v['base-url'] !== undefined && found !== undefined && !survey.calledAt(base))
    out(
      `${untrustedLine(`Warning: no request of the recording went to --base-url ${base}; its API was called at ${found}: every check that needs a request will say "not in the recording" (give that base URL, or leave --base-url out)`)}\n`,
    );
  const { roles, tokens } = rolesOf(seen, har.roles);

  const config = resolveConfig({
    file: {
      base_url: base.replace(/\/+$/, ''),
      // Without an application, every check that needs a token asks for an /auth the recording lacks, and says so.
      app: roles.app ?? noKeyPair('app'),
      ...(roles.other_app ? { other_app: roles.other_app } : {}),
      ...(roles.disabled_app ? { disabled_app: roles.disabled_app } : {}),
      // Whatever a check would send is looked up in the recording: nothing is sent, so nothing is unsafe.
      unsafe_methods: true,
      ...(roles.fuzz ? { fuzz: roles.fuzz } : { fuzz: { seed: 0 } }),
    },
    env: {},
    flags: {
      'report-dir': v['report-dir'],
      reporter: v.reporter,
      strict: v.strict,
      'max-details': v['max-details'] ?? (roles.fuzz ? undefined : 'all'),
    },
  });
  const started = new Date();
  const t0 = performance.now();
  const { records, redactor } = await judgeRecording(config, recording, seen, tokens);
  for (const t of Object.values(tokens)) if (!redactor.kindOf(t)) redactor.add(t, 'issued-token');
  const notes = [
    ...(recording.retriedFailures
      ? [
          `${recording.retriedFailures} failed attempt${recording.retriedFailures > 1 ? 's' : ''} (no response: status 0) followed by a recorded retry of the same request set aside: the client's network, not the server's`,
        ]
      : []),
  ];
  const report: Report = {
    ...runReport(
      runFacts(config, redactor),
      { records, errors: [] },
      {
        catalogue: ALL_CHECKS,
        startedAt: started,
        durationMs: performance.now() - t0,
        config: { recording: redactor.redact(file), ...(notes.length ? { recording_notes: notes } : {}) },
        // The rule matrix, as a live run counts it (#35): a recording that holds less probes fewer cells.
        matrix: runMatrix(config),
      },
    ),
    source: 'recording',
  };
  if (!v.quiet) {
    const who = (w: Who): string =>
      `${w}${tokens[w] !== undefined ? ` (by the token its requests carried: its ${AUTH_PATH} is not in the recording)` : ''}`;
    out(
      untrustedLine(
        redactor.redact(
          `${tool.name} ${tool.version}: judging ${recording.size} recorded exchanges of ${file} at ${config.base_url}; no request is sent`,
        ),
      ) + '\n',
    );
    out(
      `Applications: ${roles.app ? who('app') : `none (no ${AUTH_PATH} answered a token, no request carried one)`}${roles.other_app ? `, ${who('other_app')}` : ''}${roles.disabled_app ? ', disabled_app' : ''}\n`,
    );
    for (const n of notes) out(`Network: ${n}\n`);
    if (recording.beyondIndex)
      out(
        `Left out: ${recording.beyondIndex} exchanges of requests past the first ${grouped(MAX_REQUESTS)} distinct ones or 256 MiB of their URLs (the recording's index is bounded)\n`,
      );
    if (har.leftOutCount)
      out(
        inertBlock(
          untrustedLine(
            redactor.redact(
              `Left out: ${har.leftOutCount} entries (${har.leftOut.slice(0, 3).join('; ')}${har.leftOutCount > 3 ? '; …' : ''})`,
            ),
          ) + '\n',
        ),
      );
  }
  const files = await writeReportDir(report, config);
  out(inertBlock(redactor.redact(summaryText(report, files, { quiet: v.quiet === true }))));
  return report.exit_code;
}
