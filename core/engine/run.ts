import type { Config } from '../config/config.js';
import { HttpClient } from '../transport/http.js';
import type { Redactor } from '../redact/redact.js';
import type { ExchangeSource } from '../transport/exchange-source.js';

/** The run's HTTP client; deadlineAt (epoch ms) ends every request when the run's deadline passes. */
export function clientFor(
  config: Config,
  redactor: Redactor,
  opts: { deadlineAt?: number; retry?: { max: number; capMs: number }; keepBodies?: boolean } = {},
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
    ...(opts.keepBodies ? { keepBodies: true } : {}),
  });
}

/** Where a run's exchanges come from, given the run's redactor: live HTTP unless a recording is given. */
export type SourceOf = (redactor: Redactor) => ExchangeSource;

/** Why a run ended at its deadline, as every output says it. */
export const deadlineWords = (config: Pick<Config, 'deadline_ms'>): string =>
  `the run's deadline (deadline_ms ${config.deadline_ms}) passed`;
