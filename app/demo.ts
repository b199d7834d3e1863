import type { Config } from '../core/config/config.js';
import { DEFAULTS } from '../core/config/config.js';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { CREDENTIALS } from '../reference/fixtures.js';

/**
 * `--demo`: the bundled reference server on an ephemeral loopback port, over HTTPS with its test CA, with all three
 * applications and unsafe methods configured, so every check runs and none is skipped.
 */
export async function startDemo(overrides: Partial<Config>): Promise<{ server: RunningServer; config: Config }> {
  const server = await startReferenceServer({ https: true });
  return { server, config: demoConfig(server, overrides) };
}

/** The config that checks a reference server with all three applications and unsafe methods (nothing skipped). */
export function demoConfig(server: RunningServer, overrides: Partial<Config>): Config {
  return {
    base_url: server.baseUrl,
    app: { ...CREDENTIALS.app },
    other_app: { ...CREDENTIALS.other_app },
    disabled_app: { ...CREDENTIALS.disabled_app },
    tls: { insecure: false, ca_file: server.caFile },
    timeout_ms: DEFAULTS.timeout_ms,
    deadline_ms: DEFAULTS.deadline_ms,
    concurrency: DEFAULTS.concurrency,
    max_body_bytes: DEFAULTS.max_body_bytes,
    fuzz: { runs: DEFAULTS.fuzz_runs, seed: Math.floor(Math.random() * 2 ** 31) },
    report: { dir: DEFAULTS.report_dir, formats: DEFAULTS.formats },
    unsafe_methods: true,
    strict: false,
    ...overrides,
  };
}

// The app-level commands (openapi, serve) reach the reference server through here only: the demo's gateway.
export { fixtureExamples } from '../reference/examples.js';
export { startReferenceServer, type RunningServer } from '../reference/server.js';
export { CREDENTIALS, LARGE } from '../reference/fixtures.js';
export {
  FAULT_HEADER,
  FaultSyntaxError,
  describeFault,
  parseRunFault,
  sandboxVariant,
  type Fault,
  type RunFault,
} from '../reference/sandbox.js';
