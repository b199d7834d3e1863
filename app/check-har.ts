import { commandArgs } from './command-args.js';
import { readFileSync } from 'node:fs';
import { ConfigError, resolveConfig, redactedConfig, type Config, type Credentials } from '../core/config.js';
import { createRun } from '../core/run.js';
import { bodyBytes, RecordedSource, type RecordedExchange } from '../core/recorded-source.js';
import { HarError, parseHar, type HarRoles } from '../core/har.js';
import { buildReport, withOutcome, type CheckRecord, type Report } from '../core/report.js';
import type { Redactor } from '../core/redact.js';
import { AUTH_PATH } from '../core/endpoints.js';
import { inertBlock, untrustedLine } from '../core/untrusted-text.js';
import { tool } from '../core/paths.js';
import { summaryText } from '../reporters/terminal.js';
import { ALL_CHECKS } from '../suites/index.js';
import { writeReportDir } from './suite-runner.js';

export const CHECK_HAR_USAGE = `Usage: conformance check-har capture.har [--base-url URL] [--report-dir DIR] [--reporter LIST] [--strict] [-q]

Judges the exchanges recorded in a HAR file (browser devtools, mitmproxy's HAR export, Playwright's recordHar, or a
run's --record-har) by every check that can be judged from them, and sends no request. A check that needs a
request the recording does not hold is skipped, naming it, so the verdict is PARTIAL at best. The applications are
told apart by their key pairs in the /auth requests and the tokens /auth issued them (the application whose token
is used most is "app", a second application of another merchant "other_app"); a run's own HAR names them.
Secrets in the HAR (keys in /auth's query, open-token headers, tokens in /auth answers) are redacted in every output.

  --base-url <url>      The API's base address in the recording (default: taken from the /auth request)
  --report-dir <dir>    Directory for the reports (default ./conformance-report)
  --reporter <list>     Comma-separated report formats: json,junit,html (default all)
  --max-details <n|all> Judge a seeded sample of N detail records of a resource (default all that were recorded)
  --strict              A PARTIAL verdict exits 3 instead of 0
  --quiet, -q           Print the verdict and the findings only
  --help, -h            This help

Exit codes as a run: 0 conformant or PARTIAL, 1 a MUST check failed, 2 usage error (no HAR, no base URL),
3 could not judge (PARTIAL with --strict).
`;

/** An application seen in the recording: the key pair its /auth sent, the token it got, whose merchant it is. */
interface SeenApp {
  secret: string;
  key: string;
  token?: string;
  merchant?: unknown;
  uses: number;
}

/** The base URL of the recording: the address /auth was called at. */
export function baseUrlOf(exchanges: readonly RecordedExchange[]): string | undefined {
  for (const x of exchanges) {
    const u = new URL(x.request.url);
    if (u.pathname.endsWith(AUTH_PATH) && u.searchParams.has('secret'))
      return `${u.origin}${u.pathname.slice(0, -AUTH_PATH.length)}`;
  }
  return undefined;
}

/** The applications of a recording by their /auth requests, the one whose token is used most first. */
export function applicationsOf(exchanges: readonly RecordedExchange[], base: string): SeenApp[] {
  const apps = new Map<string, SeenApp>();
  const authPath = `${new URL(base).pathname.replace(/\/+$/, '')}${AUTH_PATH}`;
  for (const x of exchanges) {
    const u = new URL(x.request.url);
    const secret = u.searchParams.get('secret');
    const key = u.searchParams.get('key');
    if (u.pathname !== authPath || secret === null || key === null) continue;
    const app = apps.get(JSON.stringify([secret, key])) ?? { secret, key, uses: 0 };
    apps.set(JSON.stringify([secret, key]), app);
    let data: { app_token?: unknown; merchant?: { id?: unknown } } | undefined;
    try {
      data = (
        JSON.parse(x.response ? bodyBytes(x.response).toString('utf8') : '') as { code?: unknown; data?: typeof data }
      ).data;
    } catch {
      /* not JSON: no token */
    }
    if (typeof data?.app_token === 'string' && data.app_token !== '') {
      app.token = data.app_token;
      app.merchant = data.merchant?.id;
    }
  }
  const withToken = [...apps.values()].filter((a) => a.token !== undefined);
  for (const x of exchanges) for (const a of withToken) if (x.request.headers['open-token'] === a.token) a.uses++;
  return [...apps.values()].sort((a, b) => b.uses - a.uses);
}

/** Which application is which: as the run that wrote the HAR said, else by the /auth requests and token use. */
function rolesOf(
  exchanges: readonly RecordedExchange[],
  base: string,
  written: HarRoles | undefined,
): { roles: HarRoles; seen: SeenApp[] } {
  const seen = applicationsOf(exchanges, base);
  if (written?.app) return { roles: written, seen };
  const [app, ...rest] = seen.filter((a) => a.token !== undefined);
  const other = app && rest.find((a) => a.merchant === undefined || a.merchant !== app.merchant);
  const cred = (a: SeenApp): Credentials => ({ secret: a.secret, key: a.key });
  return { roles: { ...(app ? { app: cred(app) } : {}), ...(other ? { other_app: cred(other) } : {}) }, seen };
}

/** Every secret of the recording the config does not name: other key pairs, tokens in open-token headers. */
function addRecordedSecrets(redactor: Redactor, exchanges: readonly RecordedExchange[], seen: SeenApp[]): void {
  for (const a of seen) {
    if (!redactor.kindOf(a.secret)) redactor.add(a.secret, 'public-key');
    if (!redactor.kindOf(a.key)) redactor.add(a.key, 'secret-key');
  }
  for (const x of exchanges) {
    const t = x.request.headers['open-token'];
    if (t && !redactor.kindOf(t)) redactor.add(t, 'issued-token');
  }
}

/**
 * Runs every check over the recording, one at a time in the order of a run (the unsafe methods, then the checks
 * that call /auth again, last), so that a request asked twice gets its recorded answers in order.
 */
async function judgeRecording(
  config: Config,
  exchanges: readonly RecordedExchange[],
  seen: SeenApp[],
): Promise<{ records: CheckRecord[]; redactor: Redactor }> {
  const phase = (c: (typeof ALL_CHECKS)[number]): number => (c.mintsTokens ? 2 : c.area === 'readonly' ? 1 : 0);
  const ordered = [...ALL_CHECKS].sort((a, b) => phase(a) - phase(b));
  const run = createRun(
    config,
    ordered,
    Date.now() + config.deadline_ms,
    undefined,
    (r) => new RecordedSource(exchanges, config.base_url, r),
  );
  addRecordedSecrets(run.redactor, exchanges, seen);
  const records: CheckRecord[] = [];
  try {
    for (const c of ordered)
      records.push(
        withOutcome({ id: c.id, title: c.title, level: c.level, spec: c.spec, area: c.area, ...(await run.check(c)) }),
      );
  } finally {
    await run.close();
  }
  return { records, redactor: run.redactor };
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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `check-har: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let har;
  try {
    har = parseHar(text);
  } catch (e) {
    if (e instanceof HarError) throw new ConfigError(`check-har: ${file}: ${e.message}`);
    throw e;
  }
  const base = v['base-url'] ?? baseUrlOf(har.exchanges);
  if (!base)
    throw new ConfigError(`check-har: ${file} holds no /auth request to take the base URL from: give --base-url`);
  if (!URL.canParse(base)) throw new ConfigError('check-har: --base-url is not a URL');
  const { roles, seen } = rolesOf(har.exchanges, base, har.roles);

  const config = resolveConfig({
    file: {
      base_url: base.replace(/\/+$/, ''),
      // Without an application, every check that needs a token asks for an /auth the recording lacks, and says so.
      app: roles.app ?? { secret: 'not-in-the-recording', key: 'not-in-the-recording' },
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
  const { records, redactor } = await judgeRecording(config, har.exchanges, seen);
  const report: Report = buildReport({
    checks: records,
    baseUrl: redactor.redact(config.base_url),
    startedAt: started,
    durationMs: performance.now() - t0,
    strict: config.strict,
    catalogue: ALL_CHECKS,
    fuzz: { seed: config.fuzz.seed, runs: config.fuzz.runs },
    config: { ...redactedConfig(config), recording: redactor.redact(file) },
    errors: [],
  });
  if (!v.quiet) {
    out(
      `${tool.name} ${tool.version}: judging ${har.exchanges.length} recorded exchanges of ${untrustedLine(redactor.redact(file))} at ${redactor.redact(config.base_url)}; no request is sent\n`,
    );
    out(
      `Applications: ${roles.app ? 'app' : 'none (no /auth answered a token)'}${roles.other_app ? ', other_app' : ''}${roles.disabled_app ? ', disabled_app' : ''}\n`,
    );
    if (har.leftOut.length)
      out(
        inertBlock(
          redactor.redact(
            `Left out: ${har.leftOut.length} entries (${har.leftOut.slice(0, 3).join('; ')}${har.leftOut.length > 3 ? '; …' : ''})\n`,
          ),
        ),
      );
  }
  const files = await writeReportDir(report, config);
  out(inertBlock(redactor.redact(summaryText(report, files, { quiet: v.quiet === true }))));
  return report.exit_code;
}
