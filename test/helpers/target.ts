import { startReferenceServer, type RunningServer, type Variant } from '../../reference/server.js';
import { CREDENTIALS, FIXTURE_ENV } from '../../reference/fixtures.js';

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

/**
 * A server whose first application (app's) has other keys, the server knowing them as that application's, and the
 * environment that configures them: keys with characters that need escaping somewhere.
 */
export function appKeys(
  name: string,
  keys: { secret: string; key: string },
): { variant: Variant; env: Record<string, string> } {
  return {
    variant: {
      name,
      description: `the first application has the keys ${JSON.stringify(keys)}`,
      fixtures(f) {
        const app = f.apps.find((a) => a.secret === CREDENTIALS.app.secret)!;
        app.secret = keys.secret;
        app.key = keys.key;
      },
    },
    env: { ...targetEnv, CONFORMANCE_SECRET: keys.secret, CONFORMANCE_KEY: keys.key },
  };
}
