import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, OPTIONS, readConfigFile, resolveConfig, type Config } from './config.js';
import { tool } from './paths.js';
import { clientFor, redactorFor } from './run.js';
import { NetworkError } from './http.js';
import { runSuite, writeReportDir } from './suite-runner.js';
import { progressLine, summaryText } from '../reporters/terminal.js';
import { startDemo } from './demo.js';
import { catalogueMarkdown } from './catalogue.js';
import { AUTH_PATH } from './endpoints.js';
import { applyBaseline, baselineCommand, entryMap, markRecord, readBaseline } from './baseline.js';
import { diffCommand } from './diff.js';
import { mergeCommand } from './merge.js';
import { openapiCommand } from './openapi-command.js';
import { serveCommand } from './serve.js';
import { githubOutputs } from '../reporters/github.js';
import { ALL_CHECKS } from '../suites/index.js';

export const EXIT = { conformant: 0, failed: 1, usage: 2, incomplete: 3 } as const;

const RUN_FLAGS = {
  config: { type: 'string', short: 'c' },
  demo: { type: 'boolean' },
  only: { type: 'string', multiple: true },
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
       conformance openapi [--out FILE] [--format yaml|json]   the API as an OpenAPI 3.1 document
       conformance serve [--port 8080] [--https] [--fault 500@0.1] ...   the reference server as a sandbox (serve --help)

Options:
  --config, -c <file>        YAML config file (\${ENV_VAR} interpolation; flags > env > file)
  --demo                     start the reference server and check it
  --only <ID>                run only this check id (repeatable; a trailing * matches a prefix)
${lines.join('\n')}
  --help, -h / --version, -v

Prefer CONFORMANCE_SECRET / CONFORMANCE_KEY (or \${...} in the config file) to --secret/--key: flags end up in
shell history and process lists.

Exit codes: 0 conformant, 1 a MUST check failed, 2 usage or config error, 3 the run could not be carried out.
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

  try {
    // Known failures (--baseline): read before the run, so a bad file is a usage error that costs no requests.
    const baseline = config.baseline ? entryMap(readBaseline(config.baseline, new Set(ALL_CHECKS.map((c) => c.id)))) : undefined;
    const redactor = redactorFor(config);
    activeRedactor = redactor;
    // Preflight: one request that carries no credential, so an unreachable target is one line and exit 3.
    const client = clientFor(config, redactor);
    try {
      await client.send({ path: AUTH_PATH });
    } catch (e) {
      if (e instanceof NetworkError) {
        err(`conformance: cannot reach ${redactor.redact(config.base_url)}: ${redactor.redact(e.message.replace(/^GET \S+: /, ''))}\n`);
        return EXIT.incomplete;
      }
      throw e;
    } finally {
      await client.close();
    }
    out(`${tool.name} ${tool.version}: checking ${redactor.redact(config.base_url)} (fuzz seed ${config.fuzz.seed})\n`);
    // Sampling is never silent: said here, and as a note on each check that used the sample.
    if (config.max_details !== undefined) out(`Details: a seeded sample of at most ${config.max_details} records per resource (max_details; seed ${config.fuzz.seed})\n`);
    let report = await runSuite(config, { only, redactor, onRecord: (r) => { if (baseline) markRecord(r, baseline); out(`${progressLine(r)}\n`); } });
    if (baseline) report = applyBaseline(report, [...baseline.values()]);
    const files = await writeReportDir(report, config);
    out(redactor.redact(summaryText(report, files)));
    out(await githubOutputs(report, redactor));
    return report.exit_code;
  } finally {
    await stop?.();
  }
}

export async function main(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'catalogue') { out(catalogueMarkdown()); return 0; }
    if (argv[0] === 'baseline') return baselineCommand(argv.slice(1), out);
    if (argv[0] === 'diff') return diffCommand(argv.slice(1), out);
    if (argv[0] === 'merge') return mergeCommand(argv.slice(1), out);
    if (argv[0] === 'openapi') return openapiCommand(argv.slice(1), out);
    if (argv[0] === 'serve') return await serveCommand(argv.slice(1), out);
    return await runCommand(argv);
  } catch (e) {
    if (e instanceof ConfigError) { err(`conformance: ${e.message}\n`); return EXIT.usage; }
    const detail = process.env.CONFORMANCE_DEBUG ? `\n${(e as Error).stack}` : '';
    const line = `conformance: internal error: ${(e as Error).message?.split('\n')[0] ?? String(e)}${detail}\n`;
    err(activeRedactor ? activeRedactor.redact(line) : line);
    return EXIT.incomplete;
  }
}
