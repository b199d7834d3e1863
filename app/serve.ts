import { commandArgs } from './command-args.js';
import { ConfigError, valueError } from '../core/config/config.js';
import {
  CREDENTIALS,
  FAULT_HEADER,
  FaultSyntaxError,
  describeFault,
  parseRunFault,
  type RunFault,
  type RunningServer,
} from './demo.js';
import { startSandbox } from './sandbox.js';
import { AUTH_PATH, authQueryText, KEY_PAIR_QUERY, TOKEN_HEADER, type KeyPair } from '../core/spec/auth-scheme.js';

const FLAGS = {
  port: { type: 'string', default: '8080' },
  host: { type: 'string', default: '127.0.0.1' },
  https: { type: 'boolean', default: false },
  size: { type: 'string', default: 'fixture' },
  fault: { type: 'string', multiple: true },
  seed: { type: 'string' },
  'token-ttl': { type: 'string' },
  quiet: { type: 'boolean', default: false },
} as const;

/** `conformance serve --help`. */
export const SERVE_USAGE = `Usage: conformance serve [--port 8080] [--host 127.0.0.1] [--https] [--size fixture|large]
                         [--fault FAULT[@RATE]]... [--seed N] [--token-ttl SECONDS] [--quiet]

The reference server as a sandbox to develop a client against. FAULT is one of latency=MS, latency=MIN-MAX, 500,
429, 429=SECONDS (Retry-After), truncate, expired-token, disabled; RATE is the share of requests it hits (default 1).
A request picks its own faults with the header ${FAULT_HEADER}: e.g. "latency=200", "429=2", "500, latency=50",
or "none". The same --seed gives the same faults to the same sequence of requests per endpoint. It stops on Ctrl-C,
SIGTERM, or when the process that started it (e.g. npx) ends.
`;

/** A whole number flag, or a usage error naming it. */
function integer(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw valueError(`serve: --${name}`, text, `an integer from ${min} to ${max}`);
  return n;
}

/** What the sandbox prints on start: where it is, what it accepts and what it will do to a client. */
function banner(srv: RunningServer, o: { size: string; faults: RunFault[]; seed: number; ttl?: number }): string {
  const mine = <T extends { user_id: number }>(xs: T[]): number => xs.filter((x) => x.user_id === 1).length;
  const f = srv.world.fixtures;
  const faults = o.faults.length
    ? o.faults.map((r) => `${describeFault(r.fault)}${r.rate < 1 ? `@${r.rate}` : ''}`).join(', ')
    : 'none for the whole run';
  // The fixture's published test credentials: printed on purpose, they are nobody's secrets.
  const pair = (c: KeyPair): string => `${KEY_PAIR_QUERY.publicKey}=${c.secret} ${KEY_PAIR_QUERY.secretKey}=${c.key}`;
  return `Sandbox: the reference server at ${srv.baseUrl}${srv.baseUrl.startsWith('https') ? `\n  TLS: its test CA is ${srv.caFile} (e.g. NODE_EXTRA_CA_CERTS=${srv.caFile})` : ''}
  Merchant 1 (${o.size}): ${mine(f.dishes)} dishes, ${mine(f.seats)} seats, ${mine(f.orders)} orders; merchant 2 is small
Credentials it accepts (fixture test credentials; GET ${AUTH_PATH}?${authQueryText('…', '…')} gives the ${TOKEN_HEADER}):
  app (merchant 1):        ${pair(CREDENTIALS.app)}
  other_app (merchant 2):  ${pair(CREDENTIALS.other_app)}
  disabled_app:            ${pair(CREDENTIALS.disabled_app)} token=${CREDENTIALS.disabled_app.token}
Faults: ${faults}; seed ${o.seed}${o.ttl !== undefined ? `; tokens expire ${o.ttl} s after issue` : ''}
  per request: header ${FAULT_HEADER}: latency=MS | 500 | 429[=SECONDS] | truncate | expired-token | disabled | none
The API as OpenAPI 3.1: conformance openapi. Ctrl-C to stop.
`;
}

/** How often the sandbox looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 500;

/**
 * `conformance serve`: runs until SIGINT or SIGTERM, or until the process that started it goes away, then closes the
 * server and resolves with exit code 0. A launcher such as npx does not pass its SIGTERM on: when it ends, this
 * process is handed to another parent, and stops too instead of holding the port as an orphan.
 */
export async function serveCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values } = commandArgs(
    { args: argv, options: FLAGS, allowPositionals: false },
    (m) => `serve: ${m} (see serve --help)`,
    SERVE_USAGE,
  );
  if (values.size !== 'fixture' && values.size !== 'large')
    throw valueError('serve: --size', values.size, 'fixture or large');
  const faults = (values.fault ?? []).map((given) => {
    try {
      return parseRunFault(given);
    } catch (e) {
      if (e instanceof FaultSyntaxError) throw new ConfigError(`serve: --fault ${given}: ${e.message}`);
      throw e;
    }
  });
  const seed =
    values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : integer('seed', values.seed, 0, 2 ** 31 - 1);
  const ttl = values['token-ttl'] === undefined ? undefined : integer('token-ttl', values['token-ttl'], 1, 31_536_000);
  const { server: srv } = await startSandbox({
    port: integer('port', values.port, 0, 65535),
    host: values.host,
    https: values.https,
    size: values.size,
    faults: values.fault ?? [],
    seed,
    ...(ttl !== undefined ? { tokenTtlSeconds: ttl } : {}),
    ...(values.quiet ? {} : { onFault: (request, what) => out(`fault: ${request} ← ${what}\n`) }),
  });
  out(banner(srv, { size: values.size, faults, seed, ...(ttl !== undefined ? { ttl } : {}) }));
  return new Promise((resolve) => {
    const parent = process.ppid;
    const orphaned = setInterval(() => {
      if (process.ppid !== parent) stop();
    }, PARENT_CHECK_MS);
    const stop = (): void => {
      clearInterval(orphaned);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void srv.close().then(() => resolve(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
