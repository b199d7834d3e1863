import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, OPTIONS, readConfigFile, resolveConfig, type Config } from './config.js';
import { tool } from './paths.js';
import { redactorFor } from './run.js';
import { runSuite, writeReportDir } from './suite-runner.js';
import { preflight, SetupError } from './preflight.js';
import { selectChecks } from './selection.js';
import { progressLine, summaryText } from '../reporters/terminal.js';
import { startDemo } from './demo.js';
import { catalogueMarkdown } from './catalogue.js';
import { baselineCommand, entryMap, legacyWarnings, markRecord, readBaseline } from './baseline.js';
import { diffCommand } from './diff.js';
import { mergeCommand } from './merge.js';
import { githubOutputs } from '../reporters/github.js';
import { ALL_CHECKS } from '../suites/index.js';

export const EXIT = { conformant: 0, failed: 1, usage: 2, incomplete: 3 } as const;

const RUN_FLAGS = {
  config: { type: 'string', short: 'c' },
  demo: { type: 'boolean' },
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  ...Object.fromEntries(OPTIONS.map((o) => [o.flag, { type: o.kind === 'bool' ? 'boolean' : 'string' }])),
} satisfies ParseArgsConfig['options'];

export function usage(): string {
  const lines = OPTIONS.map((o) => `  --${(o.flag + (o.kind === 'bool' ? '' : ' <value>')).padEnd(26)} ${o.help} [${o.env}]`);
  return `Usage: conformance [options]            check a server against the Restaurant Merchant Open Platform API
       conformance --demo                  run every check against the bundled reference server
       conformance catalogue               print the check catalogue (Markdown)
       conformance baseline [report.json] [--out known-failures.yaml]   write a baseline of known failures
       conformance diff old/report.json new/report.json   what regressed and what was fixed (exit 1 on a regression)
       conformance merge reports/*/report.json [--out merged.json]   one summary of many targets' reports

Options:
  --config, -c <file>        YAML config file (\${ENV_VAR} interpolation; flags > env > file)
  --demo                     start the reference server and check it
  --only <ID>                run only this check id (repeatable; a trailing * matches a prefix)
  --skip <ID>                leave this check id out (repeatable; a trailing * matches a prefix)
${lines.join('\n')}
  --help, -h / --version, -v

Prefer CONFORMANCE_SECRET / CONFORMANCE_KEY (or \${...} in the config file) to --secret/--key: flags end up in
shell history and process lists.

Exit codes: 0 conformant (or PARTIAL: some MUST checks not run), 1 a MUST check failed, 2 usage or config error,
3 the run could not judge (setup problem, deadline, interruption, harness error; PARTIAL with --strict).
`;
}

/** The run's redactor once the config is known: even an internal error message never prints a secret. */
let activeRedactor: { redact(s: string): string } | undefined;

function out(s: string): void { process.stdout.write(s); }
function err(s: string): void { process.stderr.write(s); }

async function runCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: RUN_FLAGS, strict: true, allowPositionals: false });
  } catch (e) {
    throw new ConfigError(`${(e as Error).message.split('\n')[0]} (see --help)`);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (v.help) { out(usage()); return 0; }
  if (v.version) { out(`${tool.name} ${tool.version}\n`); return 0; }
  const flags = Object.fromEntries(Object.entries(v).filter(([, x]) => !Array.isArray(x))) as Record<string, string | boolean | undefined>;
  const only = (v.only as string[] | undefined) ?? [];
  const skip = (v.skip as string[] | undefined) ?? [];
  // Before any request and before the report directory is touched: a typo in a CI file is a usage error.
  const selected = selectChecks(ALL_CHECKS, only, skip);

  let config: Config;
  let stop: (() => Promise<void>) | undefined;
  if (v.demo) {
    const file = typeof v.config === 'string' ? readConfigFile(v.config, process.env) : {};
    // The demo fixes target, credentials and TLS; every other setting (report, fuzz, load, baseline) comes from the
    // file and flags. The environment is left out: its CONFORMANCE_* variables name the user's own target.
    const base = resolveConfig({ file: { ...file, base_url: 'http://demo.invalid', app: { secret: 'demo', key: 'demo' } }, env: {}, flags });
    const { base_url: _u, app: _a, other_app: _o, disabled_app: _d, tls: _t, unsafe_methods: _m, ...settings } = base;
    const demo = await startDemo(settings);
    config = demo.config;
    stop = () => demo.server.close();
    out(`Demo: the bundled reference server is listening at ${config.base_url}\n`);
  } else {
    const file = typeof v.config === 'string' ? readConfigFile(v.config, process.env) : undefined;
    config = resolveConfig({ ...(file ? { file } : {}), env: process.env, flags });
  }

  // The whole run, preflight included, ends by deadline_ms from here.
  const deadlineAt = Date.now() + config.deadline_ms;
  const interruption = interruptions();
  try {
    // Known failures (--baseline): read before the run, so a bad file is a usage error that costs no requests.
    const entries = config.baseline ? readBaseline(config.baseline, new Set(ALL_CHECKS.map((c) => c.id))) : undefined;
    const baseline = entries && entryMap(entries);
    const redactor = redactorFor(config);
    activeRedactor = redactor;
    // Preflight: every configured application authenticates, or the run stops here with one line (exit 3).
    try {
      await preflight(config, redactor);
    } catch (e) {
      if (e instanceof SetupError) { err(`conformance: ${e.message}\n`); return EXIT.incomplete; }
      throw e;
    }
    out(`${tool.name} ${tool.version}: checking ${redactor.redact(config.base_url)} (fuzz seed ${config.fuzz.seed})\n`);
    if (entries) for (const w of legacyWarnings(entries, config.baseline!)) out(`${w}\n`);
    if (selected.length < ALL_CHECKS.length) out(`Selection: ${selected.length} of ${ALL_CHECKS.length} checks (--only/--skip); the verdict can be PARTIAL at best\n`);
    if (!config.base_url.startsWith('https:')) out('Warning: base_url is plain http://, but §4 allows only HTTPS: TRANS-03 cannot run, so the verdict can be PARTIAL at best\n');
    // Sampling is never silent: said here, and as a note on each check that used the sample.
    if (config.max_details !== undefined) out(`Details: a seeded sample of at most ${config.max_details} records per resource (max_details; seed ${config.fuzz.seed})\n`);
    const report = await runSuite(config, {
      selected, catalogue: ALL_CHECKS, strict: config.strict, deadlineAt, interrupted: interruption.promise, redactor,
      onRecord: (r) => { if (baseline) markRecord(r, baseline); out(`${progressLine(r)}\n`); },
    });
    const files = await writeReportDir(report, config);
    out(redactor.redact(summaryText(report, files)));
    out(await githubOutputs(report, redactor));
    return report.exit_code;
  } finally {
    interruption.dispose();
    await stop?.();
  }
}

/**
 * SIGINT and SIGTERM end the run early with a report of what finished (exit 3, INCOMPLETE); a second signal exits at
 * once (130 for SIGINT, 143 for SIGTERM).
 */
function interruptions(): { promise: Promise<string>; dispose(): void } {
  let resolve!: (why: string) => void;
  const promise = new Promise<string>((r) => { resolve = r; });
  let seen = false;
  const on = (signal: NodeJS.Signals): void => {
    if (seen) process.exit(signal === 'SIGINT' ? 130 : 143);
    seen = true;
    err(`conformance: ${signal}: stopping, writing the report of what finished (again to quit at once)\n`);
    resolve(`the run was interrupted (${signal})`);
  };
  const int = (): void => on('SIGINT');
  const term = (): void => on('SIGTERM');
  process.on('SIGINT', int);
  process.on('SIGTERM', term);
  return { promise, dispose: () => { process.off('SIGINT', int); process.off('SIGTERM', term); } };
}

export async function main(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'catalogue') { out(catalogueMarkdown()); return 0; }
    if (argv[0] === 'baseline') return baselineCommand(argv.slice(1), out);
    if (argv[0] === 'diff') return diffCommand(argv.slice(1), out);
    if (argv[0] === 'merge') return mergeCommand(argv.slice(1), out);
    return await runCommand(argv);
  } catch (e) {
    if (e instanceof ConfigError) { err(`conformance: ${e.message}\n`); return EXIT.usage; }
    const detail = process.env.CONFORMANCE_DEBUG ? `\n${(e as Error).stack}` : '';
    const line = `conformance: internal error: ${(e as Error).message?.split('\n')[0] ?? String(e)}${detail}\n`;
    err(activeRedactor ? activeRedactor.redact(line) : line);
    return EXIT.incomplete;
  }
}
