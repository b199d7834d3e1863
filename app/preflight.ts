import type { Config, Credentials } from '../core/config.js';
import { ConfigError } from '../core/config.js';
import { NetworkError, type Reply } from '../core/exchange.js';
import { isRecord, successData } from '../core/api.js';
import { describeReply } from '../core/assertions.js';
import { stringifyJson } from '../core/exact-json.js';
import { AUTH_PATH } from '../core/endpoints.js';
import type { Redactor } from '../core/redact.js';
import { clientFor } from '../core/run.js';

/**
 * A setup problem found before any check ran: the target cannot be reached, /auth is not where base_url says, or
 * the server refuses a configured key pair. The run stops with one line and exit 3, and no report claims a verdict:
 * a typo in a secret must not look like a broken server.
 */
export class SetupError extends Error {}

interface App {
  who: 'app' | 'other_app';
  creds: Credentials;
  settings: string;
}

const APPS = (c: Config): App[] => [
  {
    who: 'app',
    creds: c.app,
    settings: 'app.secret / app.key (CONFORMANCE_SECRET / CONFORMANCE_KEY, --secret / --key)',
  },
  ...(c.other_app
    ? [
        {
          who: 'other_app' as const,
          creds: c.other_app,
          settings: 'other_app.secret / other_app.key (CONFORMANCE_OTHER_SECRET / CONFORMANCE_OTHER_KEY)',
        },
      ]
    : []),
];

const AT_FAULT = 'if it is right, the server is at fault';

/** The merchant an /auth answer names (id and merchant_id), for telling two applications' merchants apart. */
function merchantOf(r: Reply): { id: unknown; merchant_id: unknown } | undefined {
  const s = successData(r);
  const m = s.ok && isRecord(s.data) && isRecord(s.data.merchant) ? s.data.merchant : undefined;
  return m && { id: m.id, merchant_id: m.merchant_id };
}

/** True when the answer is no API envelope at all, or says the interface is unknown (§7 code 404). */
function notTheApi(r: Reply): boolean {
  if (r.status === 404) return true;
  if (r.jsonError !== undefined || !isRecord(r.json)) return true;
  return r.json.code === 404 || !('code' in r.json);
}

/**
 * Authenticates every configured application once (no retries: a 429 storm must not hold the run before its first
 * line). The disabled application is not among them: being refused is what its checks expect. Returns warnings for
 * the run's first lines (what it could not verify).
 */
export async function preflight(config: Config, redactor: Redactor): Promise<string[]> {
  const apps = APPS(config);
  if (config.other_app && config.other_app.secret === config.app.secret) {
    throw new ConfigError(
      'other_app has the same public key as app: the isolation checks need the application of a second merchant (other_app.secret, CONFORMANCE_OTHER_SECRET)',
    );
  }
  const client = clientFor(config, redactor, { retry: { max: 0, capMs: 0 } });
  const base = redactor.redact(config.base_url);
  let sent = 0;
  try {
    const merchants: Array<{ app: App; merchant: { id: unknown; merchant_id: unknown } | undefined }> = [];
    // Both applications at once (a round trip less at a distance); their answers are judged in order.
    sent = apps.length;
    const answers = await Promise.allSettled(
      apps.map((app) => client.send({ path: AUTH_PATH, query: { secret: app.creds.secret, key: app.creds.key } })),
    );
    for (const [i, app] of apps.entries()) {
      const answer = answers[i]!;
      if (answer.status === 'rejected') {
        const e: unknown = answer.reason;
        if (e instanceof NetworkError)
          throw new SetupError(`cannot reach ${base}: ${redactor.redact(e.message.replace(/^GET \S+: /, ''))}`);
        throw e;
      }
      const r: Reply = answer.value;
      const described = redactor.redact(describeReply(r));
      if (successData(r).ok) {
        merchants.push({ app, merchant: merchantOf(r) });
        continue;
      }
      // Rate limited: neither a refusal nor a missing endpoint, so no setup problem can be named. The run goes on;
      // its own budget for rate-limit waits ends a storm as INCOMPLETE, with a report.
      if (r.status === 429)
        return [
          `the server answered the preflight's GET ${AUTH_PATH} with HTTP 429 (rate limited): the key pairs are not verified before the run, which waits within its budget (3 × timeout_ms)`,
        ];
      if (notTheApi(r)) {
        throw new SetupError(
          `no /auth endpoint at ${base}: GET ${base}${AUTH_PATH} answered ${described}. Check base_url (--base-url, CONFORMANCE_BASE_URL): it is the base address of the open platform that all paths of §4 are relative to, e.g. https://host/open; ${AT_FAULT}`,
        );
      }
      throw new SetupError(
        `the server refused the key pair of ${app.who}: GET ${base}${AUTH_PATH} answered ${described}. Check ${app.settings}; ${AT_FAULT} (§5.2)`,
      );
    }
    const [a, b] = merchants;
    if (
      a?.merchant &&
      b?.merchant &&
      ((a.merchant.id !== undefined && a.merchant.id === b.merchant.id) ||
        (typeof a.merchant.merchant_id === 'string' &&
          a.merchant.merchant_id !== '' &&
          a.merchant.merchant_id === b.merchant.merchant_id))
    ) {
      throw new SetupError(
        `other_app authenticates as the same merchant as app (/auth names merchant id ${redactor.redact(stringifyJson(a.merchant.id) ?? '')} for both): the isolation checks need an application of a second merchant. Check ${b.app.settings}; ${AT_FAULT} (it answers two merchants' applications with one merchant)`,
      );
    }
    return [];
  } finally {
    await client.close();
    // rate_limit holds for the whole run: the checks' client (another process, its own pace) starts after these.
    if (config.rate_limit && sent)
      await new Promise((r) => setTimeout(r, Math.ceil((sent * 1000) / config.rate_limit!)));
  }
}
