import { packageRoot } from '../core/base/paths.js';
import { ensureFreshDist } from './helpers/fresh-dist.js';

/**
 * Vitest globalSetup (vitest.config.ts): the tests that spawn the CLI run dist/, so a stale dist/ is rebuilt before
 * any test file starts, or the run stops with the compiler's errors. Fresh, it costs a stat per source file.
 */
export default function setup(): void {
  const did = ensureFreshDist(packageRoot);
  if (did) console.log(did);
}
