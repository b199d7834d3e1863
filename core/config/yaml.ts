import { createRequire } from 'node:module';

let loaded: typeof import('yaml') | undefined;

/**
 * The yaml library, loaded when first needed: a run without a config file or baseline never parses YAML, and
 * loading it costs about 45 ms at the start of every run.
 */
export function yaml(): typeof import('yaml') {
  return (loaded ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
}
