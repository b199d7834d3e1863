/**
 * The sandbox as a library, for an application's own tests: the reference server with seeded faults, the same as
 * `conformance serve` (restaurant-open-platform-conformance/sandbox).
 *
 *   const sandbox = await startSandbox({ faults: ['429=1@0.2'], seed: 7 });
 *   // sandbox.baseUrl, sandbox.credentials.app.secret / .key …
 *   await sandbox.close();
 */
import { CREDENTIALS, LARGE, parseRunFault, sandboxVariant, startReferenceServer, type RunningServer } from './demo.js';

/** What `startSandbox` takes: the options of `conformance serve`, as values. */
export interface SandboxOptions {
  port?: number;
  host?: string;
  https?: boolean;
  size?: 'fixture' | 'large';
  /** Faults of the whole run, as --fault takes them: "500@0.1", "latency=50-300", "429=2@0.05". */
  faults?: string[];
  seed?: number;
  /** Tokens stop working this many seconds after /auth issued them. */
  tokenTtlSeconds?: number;
  /** Told of each fault applied: "GET /dishes", "500". */
  onFault?(request: string, what: string): void;
}

/** A started sandbox: where it listens, what it accepts, and how to stop it. */
export interface Sandbox {
  /** {base_url} of the API, e.g. http://127.0.0.1:41234/open. */
  baseUrl: string;
  /** With https: the PEM file of the test CA that signed the server's certificate. */
  caFile?: string;
  seed: number;
  /** The key pairs it accepts (fixture test credentials): app (merchant 1), other_app (merchant 2), disabled_app. */
  credentials: typeof CREDENTIALS;
  /** The running reference server (its World holds the data). */
  server: RunningServer;
  close(): Promise<void>;
}

/** Starts the sandbox on 127.0.0.1 (an ephemeral port unless one is given). Throws on a malformed fault. */
export async function startSandbox(o: SandboxOptions = {}): Promise<Sandbox> {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const variant = sandboxVariant({
    faults: (o.faults ?? []).map(parseRunFault),
    seed,
    ...(o.tokenTtlSeconds !== undefined ? { tokenTtlSeconds: o.tokenTtlSeconds } : {}),
    ...(o.onFault ? { onFault: (req, what) => o.onFault!(`${req.method} ${req.path}`, what) } : {}),
  });
  const server = await startReferenceServer({
    port: o.port ?? 0,
    host: o.host ?? '127.0.0.1',
    https: o.https ?? false,
    variants: [variant],
    ...(o.size === 'large' ? { size: LARGE } : {}),
  });
  return {
    baseUrl: server.baseUrl,
    ...(server.caFile ? { caFile: server.caFile } : {}),
    seed,
    credentials: CREDENTIALS,
    server,
    close: () => server.close(),
  };
}
