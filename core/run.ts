import type { Config } from './config.js';
import { HttpClient } from './http.js';
import { redactorFor, type Redactor } from './redact.js';
import { SharedRequests } from './api.js';
import { runCheck, unmetRequirement } from './run-check.js';
import { setQuoteFilter } from './quote.js';
import { writeProgress } from './progress.js';
import type { Check, CheckResult } from './check.js';
import type { Sweep } from './resources.js';
import type { ExchangeSource } from './exchange-source.js';

/** The run's HTTP client; deadlineAt (epoch ms) ends every request when the run's deadline passes. */
export function clientFor(
  config: Config,
  redactor: Redactor,
  opts: { deadlineAt?: number; retry?: { max: number; capMs: number } } = {},
): HttpClient {
  return new HttpClient({
    baseUrl: config.base_url,
    timeoutMs: config.timeout_ms,
    deadlineMs: Math.max(0, (opts.deadlineAt ?? Date.now() + config.deadline_ms) - Date.now()),
    ...(opts.retry ? { retry: opts.retry } : {}),
    concurrency: config.concurrency,
    ...(config.rate_limit !== undefined ? { rateLimit: config.rate_limit } : {}),
    maxBodyBytes: config.max_body_bytes,
    tls: config.tls,
    redactor,
  });
}

/** Per detail sweep, the checks of the run that read it: those selected that declare it and can run. */
function sweepReaders(checks: Check[], config: Config): Map<Sweep, Set<string>> {
  const readers = new Map<Sweep, Set<string>>();
  for (const c of checks) {
    if (unmetRequirement(c, config)) continue;
    for (const s of c.reads ?? []) {
      let set = readers.get(s);
      if (!set) readers.set(s, (set = new Set()));
      set.add(c.id);
    }
  }
  return readers;
}

/** Where a run's exchanges come from, given the run's redactor: live HTTP unless a recording is given. */
export type SourceOf = (redactor: Redactor) => ExchangeSource;

/**
 * One conformance run inside the Vitest worker: one exchange source, one redactor, one cache of shared requests.
 * @param progressFile where to keep the count of requests sent and planned for the CLI's progress line
 * @param sourceOf the exchange source (core/recorded-source.ts for a recording); the HTTP client by default
 */
export function createRun(
  config: Config,
  checks: Check[],
  deadlineAt: number,
  progressFile?: string,
  sourceOf?: SourceOf,
): { check(c: Check): Promise<CheckResult>; close(): Promise<void>; redactor: Redactor } {
  const redactor = redactorFor(config);
  // Values quoted in messages are server text: the run's redactor treats them so (see show in assertions.ts).
  setQuoteFilter((s) => redactor.redactQuoted(s));
  const client = sourceOf ? sourceOf(redactor) : clientFor(config, redactor, { deadlineAt });
  const shared = new SharedRequests(config, client, sweepReaders(checks, config));
  const stopProgress = progressFile ? writeProgress(shared.tally, progressFile) : undefined;
  return {
    check: (c) => runCheck(c, shared),
    close: () => {
      stopProgress?.();
      return client.close();
    },
    redactor,
  };
}
