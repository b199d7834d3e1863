import { startReferenceServer, type RunningServer, type Variant } from '../../reference/server.js';
import { FIXTURE_ENV } from '../../reference/fixtures.js';

/** Flags that point the CLI at a reference server with all three applications (nothing skipped for want of config). */
export function targetArgs(srv: RunningServer, extra: string[] = []): string[] {
  return [
    '--base-url',
    srv.baseUrl,
    ...(srv.caFile ? ['--ca-file', srv.caFile] : []),
    '--fuzz-runs',
    '30',
    '--seed',
    '12345',
  ].concat(extra);
}

/** Credentials go through the environment, as the README recommends. */
export const targetEnv: Record<string, string> = { ...FIXTURE_ENV, CONFORMANCE_UNSAFE_METHODS: 'true' };

/** Every credential a run is given (keys of the three applications, the disabled one's token): never in any output. */
export const CONFIGURED_SECRETS: readonly string[] = Object.entries(targetEnv)
  .filter(([k]) => /SECRET|KEY|TOKEN/.test(k))
  .map(([, v]) => v);

export async function withServer<T>(
  variants: Variant[],
  fn: (srv: RunningServer) => Promise<T>,
  opts: { https?: boolean } = {},
): Promise<T> {
  const srv = await startReferenceServer({ variants, https: opts.https ?? true });
  try {
    return await fn(srv);
  } finally {
    await srv.close();
  }
}
