import type { Config } from './config.js';
import { HttpClient } from './http.js';
import { Redactor } from './redact.js';
import { SharedRequests } from './api.js';
import { runCheck } from './run-check.js';
import type { Check, CheckResult } from './check.js';

/** A redactor that knows every configured secret. */
export function redactorFor(config: Config): Redactor {
  const r = new Redactor();
  r.add(config.app.secret, 'public-key');
  r.add(config.app.key, 'secret-key');
  r.add(config.other_app?.secret, 'other-public-key');
  r.add(config.other_app?.key, 'other-secret-key');
  r.add(config.disabled_app?.secret, 'disabled-public-key');
  r.add(config.disabled_app?.key, 'disabled-secret-key');
  r.add(config.disabled_app?.token, 'disabled-token');
  return r;
}

export function clientFor(config: Config, redactor: Redactor): HttpClient {
  return new HttpClient({
    baseUrl: config.base_url,
    timeoutMs: config.timeout_ms,
    deadlineMs: config.deadline_ms,
    concurrency: config.concurrency,
    ...(config.rate_limit !== undefined ? { rateLimit: config.rate_limit } : {}),
    maxBodyBytes: config.max_body_bytes,
    tls: config.tls,
    redactor,
  });
}

/** One conformance run inside the Vitest worker: one client, one redactor, one cache of shared requests. */
export function createRun(config: Config): { check(c: Check): Promise<CheckResult>; close(): Promise<void> } {
  const client = clientFor(config, redactorFor(config));
  const shared = new SharedRequests(config, client);
  return { check: (c) => runCheck(c, shared), close: () => client.close() };
}
