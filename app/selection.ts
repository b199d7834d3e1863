import { ConfigError } from '../core/config/config.js';
import { didYouMean } from '../core/config/suggest.js';

/** An id pattern of --only / --skip: an exact check id, or a prefix ending in * (e.g. ISO-*). */
const matches = (pattern: string, id: string): boolean =>
  pattern.endsWith('*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern;

/** The id prefixes a pattern can name: ISO-*, INFO-*, INFO-AUTH-* … */
const prefixPatterns = (ids: readonly string[]): string[] => [
  ...new Set(ids.flatMap((id) => [...id.matchAll(/-/g)].map((m) => `${id.slice(0, m.index + 1)}*`))),
];

/**
 * What a pattern that matches nothing may have meant: the start of ids without its * (ISO → ISO-*), else the closest
 * ids, or with a * the closest prefix patterns.
 */
function hint(pattern: string, ids: readonly string[]): string {
  if (!pattern.endsWith('*') && ids.some((id) => id.startsWith(pattern)))
    return ` (did you mean ${ids.some((id) => id.startsWith(`${pattern}-`)) ? `${pattern}-*` : `${pattern}*`}?)`;
  return pattern.endsWith('*') ? didYouMean(pattern, prefixPatterns(ids)) : didYouMean(pattern, ids);
}

/**
 * The checks a run selects: all, or those --only names, less those --skip names. A pattern that matches no check
 * is a usage error naming the closest ids, before any request is sent or any report file is touched (a typo in a
 * CI file must not pass silently or run something else).
 */
export function selectChecks<T extends { id: string }>(all: readonly T[], only: string[], skip: string[]): T[] {
  const ids = all.map((c) => c.id);
  for (const [flag, patterns] of [
    ['--only', only],
    ['--skip', skip],
  ] as const) {
    for (const p of patterns) {
      if (!ids.some((id) => matches(p, id)))
        throw new ConfigError(`${flag} ${p} matches no check${hint(p, ids)} (conformance catalogue lists them)`);
    }
  }
  const picked = all.filter(
    (c) => (!only.length || only.some((p) => matches(p, c.id))) && !skip.some((p) => matches(p, c.id)),
  );
  if (!picked.length) throw new ConfigError('--only and --skip together leave no check to run');
  return picked;
}
