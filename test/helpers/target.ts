import { startReferenceServer, type RunningServer, type Variant } from '../../reference/server.js';
import { CREDENTIALS } from '../../reference/fixtures.js';

/** Flags that point the CLI at a reference server with all three applications (nothing skipped for want of config). */
export function targetArgs(srv: RunningServer, extra: string[] = []): string[] {
  return [
    '--base-url', srv.baseUrl,
    ...(srv.baseUrl.startsWith('https') ? ['--ca-file', srv.caFile] : []),
    '--fuzz-runs', '30', '--seed', '12345',
  ].concat(extra);
}

/** Credentials go through the environment, as the README recommends. */
export const targetEnv: Record<string, string> = {
  CONFORMANCE_SECRET: CREDENTIALS.app.secret,
  CONFORMANCE_KEY: CREDENTIALS.app.key,
  CONFORMANCE_OTHER_SECRET: CREDENTIALS.other_app.secret,
  CONFORMANCE_OTHER_KEY: CREDENTIALS.other_app.key,
  CONFORMANCE_DISABLED_SECRET: CREDENTIALS.disabled_app.secret,
  CONFORMANCE_DISABLED_KEY: CREDENTIALS.disabled_app.key,
  CONFORMANCE_DISABLED_TOKEN: CREDENTIALS.disabled_app.token,
  CONFORMANCE_UNSAFE_METHODS: 'true',
};

export async function withServer<T>(variants: Variant[], fn: (srv: RunningServer) => Promise<T>, opts: { https?: boolean } = {}): Promise<T> {
  const srv = await startReferenceServer({ variants, https: opts.https ?? true });
  try { return await fn(srv); } finally { await srv.close(); }
}
