import { createRequire } from 'node:module';

/**
 * The Vitest versions library mode runs on: 4.1 and later 4.x, and 5.x (it uses `test(name, { meta })` and
 * `task.meta`, public from 4.1.0). package.json names the same range as an optional peer dependency: npm never
 * installs a second Vitest beside the user's, and the CLI, which uses no Vitest, installs beside any or none.
 */
export const SUPPORTED_VITEST = '>=4.1.0 <6';

/** Why this Vitest version cannot run library mode, or undefined when it can. */
export function unsupportedVitest(version: string): string | undefined {
  const m = /^(\d+)\.(\d+)\./.exec(version);
  const ok = m !== null && ((Number(m[1]) === 4 && Number(m[2]) >= 1) || Number(m[1]) === 5);
  return ok
    ? undefined
    : `restaurant-open-platform-conformance's library mode supports Vitest ${SUPPORTED_VITEST}; this project runs Vitest ${version}: install a supported one (npm install --save-dev "vitest@${SUPPORTED_VITEST}")`;
}

/** Throws, naming the supported range, when the Vitest this module resolves is not one library mode runs on. */
export function assertSupportedVitest(): void {
  const { version } = createRequire(import.meta.url)('vitest/package.json') as { version: string };
  const why = unsupportedVitest(version);
  if (why) throw new Error(why);
}
