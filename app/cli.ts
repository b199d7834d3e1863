import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  ConfigError,
  DEFAULTS,
  OPTIONS,
  readConfigFile,
  resolveConfig,
  valueError,
  type Config,
  type Option,
  type OptionGroup,
} from '../core/config/config.js';
import { tool } from '../core/base/paths.js';
import { redactorFor } from '../core/redact/redact.js';
import { CREDENTIALS } from '../core/spec/auth-scheme.js';
import type { RequestProgress } from '../core/session/progress.js';
import { runFacts, runReport } from '../core/engine/run-report.js';
import type { CheckHead } from '../core/model/report.js';
import { loadCheckHeads } from './check-heads.js';
import { ChecksProcess } from './run-host.js';
import { selectChecks } from './selection.js';
import {
  ceilingLines,
  exitCodesText,
  listText,
  PLAIN_PROGRESS_EVERY_MS,
  Progress,
  setColour,
  summaryText,
} from '../reporters/terminal.js';
import { didYouMean } from '../core/config/suggest.js';
import { inertBlock, untrustedLine, untrustedLines } from '../core/redact/untrusted-text.js';
import { argumentProblem, commandArgs, flagSpellings, HelpRequest } from './command-args.js';

/** The exit codes every command shares: 0 conformant or passed, 1 a MUST failure, 2 usage, 3 could not judge. */
export const EXIT = { conformant: 0, failed: 1, usage: 2, incomplete: 3 } as const;

/** Flags of a run that are not settings (no config key or environment variable), each with its help line. */
const RUN_ONLY: Array<{
  flag: string;
  short?: string;
  value?: string;
  multiple?: boolean;
  group: OptionGroup | 'general';
  help: string;
}> = [
  {
    flag: 'config',
    short: 'c',
    value: 'file',
    group: 'target',
    help: 'YAML config file (${ENV_VAR} interpolation; flags > env > file; its paths are relative to it)',
  },
  { flag: 'demo', group: 'target', help: 'Start the bundled reference server and check it' },
  {
    flag: 'only',
    value: 'id',
    multiple: true,
    group: 'selection',
    help: 'Run only this check (repeatable; a trailing * matches a prefix: ISO-*)',
  },
  {
    flag: 'skip',
    value: 'id',
    multiple: true,
    group: 'selection',
    help: 'Leave this check out (repeatable; a trailing * matches a prefix)',
  },
  { flag: 'list', group: 'selection', help: 'Print the catalogue of checks as a table and exit' },
  {
    flag: 'record-har',
    value: 'file',
    group: 'output',
    help: 'Also write every exchange of the run to this HAR 1.2 file, secrets replaced by placeholders (replay it with check-har)',
  },
  { flag: 'quiet', short: 'q', group: 'output', help: 'Print the verdict and the findings only' },
  { flag: 'verbose', group: 'output', help: 'Also print every exchange of each finding, with its curl line' },
  { flag: 'no-color', group: 'output', help: 'No colour (also NO_COLOR=1; FORCE_COLOR=1 forces it)' },
  { flag: 'help', short: 'h', group: 'general', help: 'This help' },
  { flag: 'version', short: 'V', group: 'general', help: 'The version' },
];

const RUN_FLAGS = {
  ...Object.fromEntries(
    RUN_ONLY.map((f) => [
      f.flag,
      {
        type: f.value ? 'string' : 'boolean',
        ...(f.short ? { short: f.short } : {}),
        ...(f.multiple ? { multiple: true } : {}),
      },
    ]),
  ),
  ...Object.fromEntries(OPTIONS.map((o) => [o.flag, { type: o.kind === 'bool' ? 'boolean' : 'string' }])),
} as ParseArgsConfig['options'] & object;

const GROUPS: Array<[OptionGroup | 'general', string]> = [
  ['target', 'Target and credentials'],
  ['selection', 'Selection'],
  ['limits', 'Limits'],
  ['output', 'Output'],
  ['general', 'General'],
];

/** The subcommands, each given its own arguments; their names are also what "did you mean" offers. */
// Each loaded when named: a run's start pays for none of them (the reference server behind serve and --demo alone
// costs more than a tenth of a second to load).
const COMMANDS: Record<string, (argv: string[]) => number | Promise<number>> = {
  catalogue: async (a) => {
    commandArgs(
      { args: a, options: {}, allowPositionals: false },
      (m) => `catalogue: ${m} (see catalogue --help)`,
      'Usage: conformance catalogue\nPrints the catalogue of checks (id, level, spec section, title) as Markdown.\n',
    );
    out((await import('./catalogue.js')).catalogueMarkdown());
    return 0;
  },
  baseline: async (a) => (await import('./baseline.js')).baselineCommand(a, out),
  diff: async (a) => (await import('./diff.js')).diffCommand(a, out),
  merge: async (a) => (await import('./merge.js')).mergeCommand(a, out),
  openapi: async (a) => (await import('./openapi-command.js')).openapiCommand(a, out),
  serve: async (a) => (await import('./serve.js')).serveCommand(a, out),
  'check-har': async (a) => (await import('./check-har.js')).checkHarCommand(a, out),
  attest: async (a) => (await import('./attest.js')).attestCommand(a, out),
  verify: async (a) => (await import('./verify.js')).verifyCommand(a, out),
  badge: async (a) => (await import('./badge.js')).badgeCommand(a, out),
  help: (a) => helpCommand(a),
};

const HELP_USAGE =
  'Usage: conformance help [command]\nPrints the usage of a command (conformance help serve), or of a run.\n';

/** `conformance help [command]`: the command's usage, as `command --help` prints it (exit 0). */
async function helpCommand(argv: string[]): Promise<number> {
  const { positionals } = commandArgs(
    { args: argv, options: {}, allowPositionals: true },
    (m) => `help: ${m} (see help --help)`,
    HELP_USAGE,
  );
  if (positionals.length > 1) throw new ConfigError('help: name one command (see help --help)');
  const name = positionals[0];
  if (name === undefined) throw new HelpRequest(usage());
  if (name === 'help') throw new HelpRequest(HELP_USAGE);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command)
    throw new ConfigError(
      `help: no command ${JSON.stringify(name)}${didYouMean(name, Object.keys(COMMANDS))} (the commands: ${Object.keys(COMMANDS).join(', ')})`,
    );
  return command(['--help']);
}

/** One help line: the flag with its value type, what it does, its default and its environment variable. */
function helpLine(
  flag: string,
  short: string | undefined,
  value: string | undefined,
  help: string,
  extra = '',
): string {
  const left = `--${flag}${short ? `, -${short}` : ''}${value ? ` <${value}>` : ''}`;
  return `  ${left.padEnd(30)} ${help}${extra}`;
}

const optionLine = (o: Option): string =>
  helpLine(
    o.flag,
    undefined,
    o.kind === 'bool' ? undefined : (o.value ?? 'value'),
    // The default is said once, in its own brackets: not again in the help's own words.
    o.help.replace(/ \(default[^)]*\)$/, '').replace(/; default[^)]*\)$/, ')'),
    `${o.default ? ` [default: ${o.default}]` : ''} [${o.env}]`,
  );

/** The run's `--help`: every setting and flag, grouped, with the subcommands after them. */
export function usage(): string {
  const groups = GROUPS.map(([g, title]) =>
    [
      `${title}:`,
      ...RUN_ONLY.filter((f) => f.group === g).map((f) => helpLine(f.flag, f.short, f.value, f.help)),
      ...OPTIONS.filter((o) => o.group === g).map(optionLine),
    ].join('\n'),
  );
  return `Usage: conformance [options]            check a server against the Restaurant Merchant Open Platform API
       conformance --demo                  run every check against the bundled reference server
       conformance catalogue               print the check catalogue (Markdown)
       conformance baseline [report.json] [--out known-failures.yaml]   write a baseline of known failures
       conformance diff old/report.json new/report.json   what regressed and what was fixed (exit 1 on a regression)
       conformance merge reports/*/report.json [--out merged.json]   one summary of many targets' reports
       conformance openapi [--out FILE] [--format yaml|json]   the API as an OpenAPI 3.1 document
       conformance serve [--port 8080] [--https] [--fault 500@0.1] ...   the reference server as a sandbox (serve --help)
       conformance check-har capture.har [--base-url URL] [--report-dir DIR]   judge recorded traffic, send nothing (check-har --help)
       conformance attest [report.json] --key KEY.pem | --keyless [--subject NAME=sha256:…]   sign the verdict (attest --help)
       conformance verify ATTESTATION [--report report.json] --key KEY.pub | --certificate-identity …   check one (verify --help)
       conformance badge [ATTESTATION | report.json] [--out badge.svg]   an SVG badge of the verdict for a README
       conformance help [command]          a command's usage (every command also takes --help and -h)

${groups.join('\n\n')}

Prefer ${CREDENTIALS.app.secret.env} / ${CREDENTIALS.app.key.env} (or \${...} in the config file) to --${CREDENTIALS.app.secret.flag}/--${CREDENTIALS.app.key.flag}: flags end up in
shell history and process lists.

${exitCodesText()}`;
}

/** The run's redactor once the config is known: even an internal error message never prints a secret. */
let activeRedactor: { redact(s: string): string } | undefined;

function out(s: string): void {
  process.stdout.write(s);
}
/** stderr carries server text too (a connection error, an internal error quoting data): every line made inert. */
function err(s: string): void {
  process.stderr.write(untrustedLines(s));
}

async function runCommand(argv: string[], early?: ChecksProcess): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: RUN_FLAGS, strict: true, allowPositionals: false });
  } catch (e) {
    const problem = argumentProblem((e as Error).message, flagSpellings(RUN_FLAGS), Object.keys(COMMANDS));
    throw new ConfigError(`${problem} (see --help)`);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (v.help) {
    out(usage());
    return 0;
  }
  if (v.version) {
    out(`${tool.name} ${tool.version}\n`);
    return 0;
  }
  // The checks' process (app/checks-process.ts), forked first: it loads the engine and the checks while this process
  // reads the config and runs the preflight. Ended with the run (or at once, by a usage error).
  const checks = v.list ? undefined : (early ?? ChecksProcess.fork());
  try {
    return await checkedRun(v, checks);
  } finally {
    checks?.kill();
  }
}

/** A run of the checks (or --list), its flags parsed: config, preflight, the checks, the report. */
async function checkedRun(
  v: Record<string, string | boolean | string[] | undefined>,
  checks: ChecksProcess | undefined,
): Promise<number> {
  // What a run needs, loaded while the checks' process loads the checks (this process waits for their heads): first
  // what comes before the first request (the preflight, and with it the HTTP client), then what comes after the checks
  // (the rule matrix, the report files).
  const before = checks ? beforeChecks() : undefined;
  const after = before?.then(afterChecks);
  before?.catch(() => undefined);
  after?.catch(() => undefined);
  // The catalogue: selection, --list, the baseline's ids and coverage. The checks' process loads the checks anyway and
  // says their heads: this process does not load them a second time (only --list, which runs none, does).
  const catalogue: Promise<CheckHead[]> = checks ? checks.heads().then((h) => h ?? loadCheckHeads()) : loadCheckHeads();
  catalogue.catch(() => undefined);
  if (v.list) {
    out(listText(await catalogue));
    return 0;
  }
  setColour(
    process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0'
      ? true
      : v['no-color'] || process.env.NO_COLOR
        ? false
        : process.stdout.isTTY === true,
  );
  const quiet = v.quiet === true;
  const settingFlags = new Set(OPTIONS.map((o) => o.flag));
  const flags = Object.fromEntries(Object.entries(v).filter(([k]) => settingFlags.has(k))) as Record<
    string,
    string | boolean | undefined
  >;
  const only = (v.only as string[] | undefined) ?? [];
  const skip = (v.skip as string[] | undefined) ?? [];
  // Before any request and before the report directory is touched: a typo in a CI file is a usage error. Without
  // --only and --skip every check runs, and nothing about the selection can be wrong: the preflight then goes out
  // without waiting for the catalogue (see below).
  let heads: CheckHead[] | undefined;
  let selected: CheckHead[] | undefined;
  if (only.length || skip.length) {
    heads = await catalogue;
    selected = selectChecks(heads, only, skip);
  }
  const progressEvery = plainProgressEvery(process.env);
  // --record-har: a path that cannot be written is a usage error before any request (the file is created empty).
  const harFile = typeof v['record-har'] === 'string' ? v['record-har'] : undefined;

  let config: Config;
  let stop: (() => Promise<void>) | undefined;
  if (v.demo) {
    const file = typeof v.config === 'string' ? readConfigFile(v.config, process.env) : {};
    // The demo fixes target, credentials and TLS; every other setting (report, fuzz, load, baseline) comes from the
    // file and flags. The environment is left out: its CONFORMANCE_* variables name the user's own target.
    const base = resolveConfig({
      file: { ...file, base_url: 'http://demo.invalid', app: { secret: 'demo', key: 'demo' } },
      env: {},
      flags,
    });
    const { base_url: _u, app: _a, other_app: _o, disabled_app: _d, tls: _t, unsafe_methods: _m, ...settings } = base;
    const demo = await (await import('./demo.js')).startDemo(settings);
    config = demo.config;
    stop = () => demo.server.close();
    out(`Demo: the bundled reference server is listening at ${config.base_url}\n`);
  } else {
    const file = typeof v.config === 'string' ? readConfigFile(v.config, process.env) : undefined;
    config = resolveConfig({ ...(file ? { file } : {}), env: process.env, flags });
  }
  // Still before any request, and never over the run's own report files.
  if (harFile !== undefined) await prepareRecording(harFile, config.report.dir);

  if (!checks) throw new Error('a run without its checks process');
  // The whole run, preflight included, ends by deadline_ms from here.
  const deadlineAt = Date.now() + config.deadline_ms;
  const interruption = interruptions();
  try {
    // Known failures (--baseline): read before the run, so a bad file is a usage error that costs no requests.
    if (config.baseline) heads ??= await catalogue;
    const known = config.baseline ? await import('./baseline.js') : undefined;
    const entries = known?.readBaseline(config.baseline!, new Set(heads!.map((c) => c.id)));
    const baseline = entries && known!.entryMap(entries);
    const redactor = redactorFor(config);
    activeRedactor = redactor;
    const facts = runFacts(config, redactor);
    // Preflight: every configured application authenticates, or the run stops here with one line (exit 3).
    let unverified: string[];
    const startedAt = new Date();
    const [{ preflight, SetupError }, { deadlineWords }] = await before!;
    // The preflight goes out now; when no usage error can come from the catalogue any more (no --only, --skip or
    // --baseline), while the checks' process is still loading the checks.
    const preflighting = preflight(config, redactor);
    preflighting.catch(() => undefined);
    heads ??= await catalogue;
    selected ??= selectChecks(heads, only, skip);
    const catalogueHeads = heads;
    const chosen = selected;
    // A run stopped before any check started: the report directory (NOTHING JUDGED, the line, no checks) and the
    // job summary, so CI's artifact, JUnit widget and summary say why. No check, so no annotation: the terminal
    // keeps its one line.
    const stopBeforeChecks = async (line: string, cause?: string): Promise<number> => {
      const report = runReport(
        facts,
        { records: [], errors: [] },
        {
          catalogue: catalogueHeads,
          startedAt,
          setupStop: redactor.redact(line),
          ...(cause !== undefined ? { stopCause: cause } : {}),
        },
      );
      const { writeReportDir, githubOutputs } = await after!;
      const files = await writeReportDir(report, config);
      out(await githubOutputs(report, redactor, process.env, files));
      return EXIT.incomplete;
    };
    try {
      unverified = await preflighting;
    } catch (e) {
      if (!(e instanceof SetupError)) throw e;
      err(`conformance: ${e.message}\n`);
      return await stopBeforeChecks(e.message);
    }
    // Ctrl-C during the preflight: no check starts.
    const interrupted = interruption.reason();
    if (interrupted !== undefined)
      return await stopBeforeChecks(`${interrupted} before any check started`, interrupted);
    // The checks start now in their own process; the report's start and duration count from here.
    const checksStarted = new Date();
    let requests: RequestProgress | undefined;
    let progress: Progress | undefined;
    const running = checks.run(
      {
        type: 'run',
        config,
        only: chosen.map((c) => c.id),
        deadlineAt,
        progress: !quiet,
        ...(harFile !== undefined ? { recordHar: resolve(harFile) } : {}),
      },
      {
        selected: chosen,
        // A signal from here on stops the checks and ends the run with the report of what finished.
        interrupted: interruption.promise,
        deadlineWords: deadlineWords(config),
        onRecord: () => progress?.finished(),
        onProgress: (p) => {
          requests = p;
        },
      },
    );
    // The run's rule matrix, worked out while the checks run.
    const matrix = after!.then(({ runMatrix }) => runMatrix(config));
    matrix.catch(() => undefined);
    out(`${tool.name} ${tool.version}: checking ${redactor.redact(config.base_url)} (fuzz seed ${config.fuzz.seed})\n`);
    for (const w of unverified) out(`Warning: ${w}\n`);
    if (entries) for (const w of known!.legacyWarnings(entries, config.baseline!)) out(`${w}\n`);
    for (const l of ceilingLines(chosen, catalogueHeads.length, config.base_url.startsWith('https:'))) out(l);
    // Said as plainly as the plain-http warning: with no certificate checked, nothing says the answers came from the
    // server base_url names (the verdict is still true of the answers that came).
    if (config.tls.insecure && config.base_url.startsWith('https:'))
      out(
        'Warning: TLS certificates are not verified (tls.insecure, --insecure): nothing shows the answers came from the server base_url names; for testing only\n',
      );
    // Sampling is never silent: said here, and as a note on each check that used the sample.
    // (The default sample only touches a resource of more than DEFAULTS.max_details records: each check that used it,
    // the coverage and the verdict say so.)
    if (config.max_details !== undefined && config.max_details !== DEFAULTS.max_details)
      out(
        `Details: a seeded sample of at most ${config.max_details} records per resource (max_details; seed ${config.fuzz.seed})\n`,
      );
    // The progress line counts from the checks' start (their process sends its count of requests).
    progress = quiet
      ? undefined
      : new Progress(
          chosen.length,
          out,
          process.stdout.isTTY === true,
          () => requests,
          progressEvery,
          config.concurrency,
        );
    const run = await running.finally(() => progress?.end());
    const { writeReportDir, githubOutputs } = await after!;
    const records = baseline ? run.records.map((r) => known!.markRecord(r, baseline)) : run.records;
    const report = runReport(
      facts,
      { records, errors: run.errors.map((e) => redactor.redact(e)) },
      // The rule matrix: a run that left an applicable cell unprobed is PARTIAL, and says how many (#35).
      { catalogue: catalogueHeads, startedAt: checksStarted, matrix: await matrix },
    );
    const files = await writeReportDir(report, config);
    // The summary quotes the server: on GitHub Actions it is printed with workflow commands stopped, and the tool's
    // own annotations after it.
    out(inertBlock(redactor.redact(summaryText(report, files, { quiet, verbose: v.verbose === true }))));
    out(await githubOutputs(report, redactor, process.env, files));
    if (harFile !== undefined && (await recordingWritten(harFile)) === false)
      out(
        `Warning: --record-har: nothing was written to ${untrustedLine(redactor.redact(harFile))} (the recording failed; the verdict above stands)\n`,
      );
    return report.exit_code;
  } finally {
    interruption.dispose();
    await stop?.();
  }
}

/** The modules a run needs before its first request: the preflight (and with it the HTTP client). */
const beforeChecks = () => Promise.all([import('./preflight.js'), import('../core/engine/run.js')]);

/** The modules a run needs once its checks ended: the rule matrix and the report's files. */
const afterChecks = async () => {
  const [{ runMatrix }, { writeReportDir }, { githubOutputs }] = await Promise.all([
    import('../suites/rules/index.js'),
    import('./report-dir.js'),
    import('../reporters/github.js'),
  ]);
  return { runMatrix, writeReportDir, githubOutputs };
};

/** Creates --record-har's file (empty) before the run, or stops with a usage error: no request is sent. */
async function prepareRecording(file: string, reportDir: string): Promise<void> {
  const { prepareHarFile, HarError } = await import('../core/session/har.js');
  try {
    prepareHarFile(
      file,
      ['report.json', 'junit.xml', 'report.html', 'attestation.sigstore.json'].map((f) => join(reportDir, f)),
    );
  } catch (e) {
    if (e instanceof HarError) throw new ConfigError(e.message);
    throw e;
  }
}

/** Whether the run wrote its HAR (false: the file is empty or gone, the recording failed). */
async function recordingWritten(file: string): Promise<boolean> {
  const { stat } = await import('node:fs/promises');
  return stat(file).then(
    (s) => s.size > 0,
    () => false,
  );
}

/**
 * How often a CI log gets a progress line: CONFORMANCE_PROGRESS_EVERY_MS (a whole number of ms, at least 1000), else
 * every 10 s. A log that wants more lines (or a test that reads the estimates) sets it; a bad value is a usage error.
 */
function plainProgressEvery(env: NodeJS.ProcessEnv): number {
  const raw = env.CONFORMANCE_PROGRESS_EVERY_MS;
  if (raw === undefined || raw === '') return PLAIN_PROGRESS_EVERY_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1000)
    throw valueError('CONFORMANCE_PROGRESS_EVERY_MS', raw, 'an integer of at least 1000');
  return n;
}

/** How often a run looks at its parent process (see parentWatch). */
const PARENT_CHECK_MS = 150;

/**
 * SIGINT and SIGTERM end the run early with a report of what finished (exit 3, INCOMPLETE); a second signal exits at
 * once (130 for SIGINT, 143 for SIGTERM). So does a signal sent to `npx` alone (what CI runners and `timeout` do),
 * which reaches this process only through its parent (parentWatch).
 */
function interruptions(): { promise: Promise<string>; reason(): string | undefined; dispose(): void } {
  let resolve!: (why: string) => void;
  const promise = new Promise<string>((r) => {
    resolve = r;
  });
  let seen: string | undefined;
  /** A signal of our own came (the parent's, seen by parentWatch, does not count as a first Ctrl-C). */
  let signalled = false;
  const stopWith = (why: string, line: string): void => {
    if (seen) return;
    seen = why;
    err(`conformance: ${line}: stopping, writing the report of what finished (again to quit at once)\n`);
    resolve(seen);
  };
  const on = (signal: NodeJS.Signals): void => {
    if (signalled) process.exit(signal === 'SIGINT' ? 130 : 143);
    signalled = true;
    stopWith(`the run was interrupted (${signal})`, signal);
  };
  const int = (): void => on('SIGINT');
  const term = (): void => on('SIGTERM');
  process.on('SIGINT', int);
  process.on('SIGTERM', term);
  const stopWatch = parentWatch((what) => stopWith(`the run was interrupted (${what})`, what));
  return {
    promise,
    reason: () => seen,
    dispose: () => {
      stopWatch();
      process.off('SIGINT', int);
      process.off('SIGTERM', term);
    },
  };
}

/** The scheduler's count of a process's wake-ups (Linux), or undefined where /proc does not say. */
function wakeUps(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const n = [...status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s*(\d+)$/gm)].reduce(
      (a, m) => a + Number(m[1]),
      0,
    );
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The command name of a process (Linux), or undefined. */
function commandName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Signals that reach this process only through its parent. `npx conformance` (npm exec, and npm run) runs the CLI
 * through `sh -c`, and npm passes a SIGINT or SIGTERM on to that shell only: a SIGTERM ends the shell (this process
 * gets another parent: the run is stopped), and a SIGINT is held by the shell until its command ends (the shell,
 * waiting for this process, wakes up for it: on Linux that is seen in its count of wake-ups, and the run is
 * stopped). Returns a function that stops watching.
 */
function parentWatch(stop: (what: string) => void): () => void {
  const parent = process.ppid;
  // A shell that npm started this process in: it sleeps until this process ends, unless a signal wakes it.
  const shell =
    process.env.npm_lifecycle_event !== undefined && /^(sh|dash|bash)$/.test(commandName(parent) ?? '')
      ? wakeUps(parent)
      : undefined;
  const timer = setInterval(() => {
    const what =
      process.ppid !== parent
        ? 'its parent process ended'
        : shell !== undefined && wakeUps(parent) !== shell
          ? 'a signal to its parent process'
          : undefined;
    if (what === undefined) return;
    clearInterval(timer);
    // After the event loop's poll phase: a Ctrl-C reaches the whole process group, so this process's own SIGINT,
    // delivered with the shell's, is heard first and named (timers run before the signal's handler in a loop turn).
    setImmediate(() => stop(what));
  }, PARENT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The CLI: runs the command argv names (a run when none) and resolves to the process's exit code.
 * @param early the checks' process bin/conformance.js forked for a run before this module loaded
 */
export async function main(argv: string[], early?: ChecksProcess): Promise<number> {
  try {
    const command = argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) ? COMMANDS[argv[0]] : undefined;
    return await (command ? command(argv.slice(1)) : runCommand(argv, early));
  } catch (e) {
    if (e instanceof HelpRequest) {
      out(e.usage);
      return 0;
    }
    if (e instanceof ConfigError) {
      err(`conformance: ${e.message}\n`);
      return EXIT.usage;
    }
    const detail = process.env.CONFORMANCE_DEBUG ? `\n${(e as Error).stack}` : '';
    const line = `conformance: internal error: ${(e as Error).message?.split('\n')[0] ?? String(e)}${detail}\n`;
    err(activeRedactor ? activeRedactor.redact(line) : line);
    return EXIT.incomplete;
  }
}
