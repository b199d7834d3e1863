import type { Config, Credentials } from '../core/config/config.js';
import { NetworkError, type Reply } from '../core/transport/exchange.js';
import { isRecord, successData } from '../core/session/api.js';
import { describeReply, isRefusal } from '../core/model/assertions.js';
import { stringifyJson } from '../core/base/exact-json.js';
import { show } from '../core/redact/quote.js';
import { AUTH_PATH } from '../core/spec/endpoints.js';
import { authQuery, CREDENTIALS, merchantField, TOKEN_HEADER } from '../core/spec/auth-scheme.js';
import { tokensIn } from '../core/transport/issued-tokens.js';
import type { Redactor } from '../core/redact/redact.js';
import { clientFor } from '../core/engine/run.js';

/**
 * A setup problem found before any check ran: the target cannot be reached, /auth is not where base_url says, or
 * the server refuses a configured key pair. The run stops with one line and exit 3, and its report says NOTHING
 * JUDGED and why: a typo in a secret must not look like a broken server.
 */
export class SetupError extends Error {}

/**
 * An answer that began and then broke off (cut short, stalled, undecodable): the server's fault, not the setup's.
 * The preflight says so in one warning and the run goes on; the checks that send the same request judge it.
 */
class ServerFault extends Error {}

interface App {
  who: 'app' | 'other_app';
  creds: Credentials;
  settings: string;
}

/** Where a key pair is set, as a stop names it: its config keys, their variables, and the flags when asked. */
const settingsOf = ({ secret, key }: (typeof CREDENTIALS)['app' | 'other_app'], flags: boolean): string =>
  `${secret.key} / ${key.key} (${secret.env} / ${key.env}${flags ? `, --${secret.flag} / --${key.flag}` : ''})`;

const APPS = (c: Config): App[] => [
  {
    who: 'app',
    creds: c.app,
    settings: settingsOf(CREDENTIALS.app, true),
  },
  ...(c.other_app
    ? [
        {
          who: 'other_app' as const,
          creds: c.other_app,
          settings: settingsOf(CREDENTIALS.other_app, false),
        },
      ]
    : []),
];

const AT_FAULT = 'if it is right, the server is at fault';

/**
 * The open-token value of the probe that asks whether /auth wrongly demands a token (§4 rule 3): any value does,
 * since no token exists before /auth issues one.
 */
const PROBE_TOKEN = 'conformance-preflight-probe';

/** A merchant as an answer names it: enough to tell two applications' merchants apart. */
interface Merchant {
  id: unknown;
  merchant_id: unknown;
}

/** The data of any JSON envelope, whatever its status and code: what the server says, for telling who is who. */
const looseData = (r: Reply): unknown => (isRecord(r.json) ? r.json.data : undefined);

const merchantIn = (m: unknown): Merchant | undefined =>
  isRecord(m) ? { id: m.id, merchant_id: m.merchant_id } : undefined;

/** The merchant an /auth answer names (§2.6 merchant), whatever its envelope. */
const authMerchant = (r: Reply): Merchant | undefined => {
  const d = looseData(r);
  return merchantIn(isRecord(d) ? merchantField(d) : undefined);
};

/** Two answers name one merchant: the same id, or the same non-empty merchant_id. */
const sameMerchant = (a: Merchant | undefined, b: Merchant | undefined): boolean =>
  a !== undefined &&
  b !== undefined &&
  ((a.id !== undefined && a.id !== null && a.id === b.id) ||
    (typeof a.merchant_id === 'string' && a.merchant_id !== '' && a.merchant_id === b.merchant_id));

/** The first non-empty token an answer carries, anywhere the suite recognises one (core/transport/issued-tokens.ts). */
const tokenOf = (r: Reply): string | undefined => tokensIn(r.json, r.text).find((t) => t !== '');

/** The envelope's msg as the server wrote it (quoted, cut short): its own reason, e.g. a sandbox fault's. */
const msgOf = (r: Reply): string =>
  isRecord(r.json) && typeof r.json.msg === 'string' && r.json.msg !== '' ? `, msg ${show(r.json.msg, 100)}` : '';

/** True when the answer is no API envelope at all, or says the interface is unknown (§7 code 404). */
function notTheApi(r: Reply): boolean {
  if (r.status === 404) return true;
  if (r.jsonError !== undefined || !isRecord(r.json)) return true;
  return r.json.code === 404 || !('code' in r.json);
}

/**
 * A server error (HTTP 5xx, or the error envelope's code 500 "System exception" of §7, or any 5xx code): the server
 * failed to answer, which says nothing of the key pair. A gateway's 502 page is one too, not a missing API.
 */
function serverError(r: Reply): boolean {
  if (r.status >= 500) return true;
  const code = isRecord(r.json) ? r.json.code : undefined;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/**
 * What an /auth answer says of the key pair. Only a refusal (an error envelope or HTTP 401/403) that carries no
 * token is one: an answer with a token accepted the pair whatever else is wrong with it, and an answer that is
 * neither a refusal nor a token is the server's fault whatever the keys (a wrong pair gets code 401, §5.4). Either
 * way the run goes on, and the checks that own the defect (AUTH-01 to AUTH-04, ENV-*) fail it.
 */
function readAuth(r: Reply): 'accepted' | 'rate limited' | 'server error' | 'not the api' | 'refused' {
  if (tokenOf(r) !== undefined || successData(r).ok) return 'accepted';
  if (r.status === 429) return 'rate limited';
  if (serverError(r)) return 'server error';
  if (notTheApi(r)) return 'not the api';
  return isRefusal(r) ? 'refused' : 'accepted';
}

/**
 * Authenticates every configured application once (no retries: a 429 storm must not hold the run before its first
 * line). The disabled application is not among them: being refused is what its checks expect. Stops the run
 * (SetupError) only on what is the setup's and not the server's: no answer, no API at base_url, a key pair refused
 * even when the probe the spec allows is tried, two applications that /auth and /merchant both call one merchant.
 * Returns warnings for the run's first lines (what it could not verify, what the server did that its checks judge).
 */
export async function preflight(config: Config, redactor: Redactor): Promise<string[]> {
  const apps = APPS(config);
  const client = clientFor(config, redactor, { retry: { max: 0, capMs: 0 } });
  const base = redactor.redact(config.base_url);
  let sent = 0;
  const send = async (path: string, query?: Record<string, string>, token?: string): Promise<Reply> => {
    sent++;
    try {
      return await client.send({ path, ...(query ? { query } : {}), ...(token !== undefined ? { token } : {}) });
    } catch (e) {
      if (!(e instanceof NetworkError)) throw e;
      const why = redactor.redact(e.message.replace(/^GET \S+: /, ''));
      // No answer at all is a target that cannot be reached; an answer that broke off came from the server.
      if (e.beforeResponse) throw new SetupError(`cannot reach ${base}: ${why}`);
      throw new ServerFault(
        `the server's answer to the preflight's GET ${path} broke off (${why}), which is no refusal of the key pair: it is not verified before the run, and the checks that ask ${path} judge the server`,
      );
    }
  };
  const auth = (app: App, token?: string): Promise<Reply> => send(AUTH_PATH, authQuery(app.creds), token);
  try {
    // Both applications at once (a round trip less at a distance); their answers are judged in order.
    const answers = await settled(apps.map((app) => auth(app)));
    const warnings: string[] = [];
    for (const [i, r] of answers.entries()) {
      const read = readAuth(r);
      // Rate limited: neither a refusal nor a missing endpoint, so no setup problem can be named. The run goes on;
      // its own budget for rate-limit waits ends a storm as INCOMPLETE, with a report.
      if (read === 'rate limited')
        return [
          `the server answered the preflight's GET ${AUTH_PATH} with HTTP 429 (rate limited): the key pairs are not verified before the run, which waits within its budget (3 × timeout_ms)`,
        ];
      // A server error is the server's fault, never the key pair's: the run goes on (a fault may pass, as the
      // sandbox's 500@RATE does), and the checks that ask /auth judge the server.
      if (read === 'server error') {
        warnings.push(
          `the server failed the preflight's GET ${AUTH_PATH} for ${apps[i]!.who} with a server error (${redactor.redact(describeReply(r))}), which is no refusal of the key pair: it is not verified before the run, and the checks that ask ${AUTH_PATH} judge the server`,
        );
      }
      if (read === 'not the api')
        throw new SetupError(
          `no ${AUTH_PATH} endpoint at ${base}: GET ${base}${AUTH_PATH} answered ${redactor.redact(describeReply(r))}. Check base_url (--base-url, CONFORMANCE_BASE_URL): it is the base address of the open platform that all paths of §4 are relative to, e.g. https://host/open; ${AT_FAULT}`,
        );
    }
    const refused = apps.filter((_, i) => readAuth(answers[i]!) === 'refused');
    // A refused pair: a wrong key cannot be told from an /auth that wrongly wants a token (§4 rule 3: it needs
    // none), and that is the one thing the spec lets the suite probe without guessing a secret. Each refused pair is
    // asked again with one (other_app's too, when app's was accepted: #35); refused again, it is a refusal of that pair.
    const probes = new Map<App, Reply>();
    if (refused.length) {
      const probed = await settled(refused.map((app) => auth(app, PROBE_TOKEN)));
      refused.forEach((app, i) => probes.set(app, probed[i]!));
      const unlocked = refused.filter((app) => readAuth(probes.get(app)!) === 'accepted');
      for (const app of unlocked) answers[apps.indexOf(app)] = probes.get(app)!;
      if (unlocked.length)
        warnings.push(
          `GET ${AUTH_PATH} refused the key pair of ${unlocked.map((a) => a.who).join(' and ')} without an ${TOKEN_HEADER} header and accepted it with one: ${AUTH_PATH} needs no token (§4 rule 3): ${unlocked.map((a) => (a.who === 'app' ? 'AUTH-01' : 'AUTH-02')).join(' and ')}, which ${unlocked.length > 1 ? 'ask' : 'asks'} without one, ${unlocked.length > 1 ? 'judge' : 'judges'} it`,
        );
    }
    for (const [i, app] of apps.entries()) {
      const r = answers[i]!;
      if (readAuth(r) !== 'refused') continue;
      const probe = probes.get(app);
      // What the probe got, said as it was: a refusal again, or something else (a 429, no API).
      const probeSaid = !probe
        ? ''
        : readAuth(probe) === 'refused'
          ? ` (and again with an ${TOKEN_HEADER} header)`
          : ` (with an ${TOKEN_HEADER} header: ${redactor.redact(describeReply(probe))})`;
      throw new SetupError(
        `the server refused the key pair of ${app.who}: GET ${base}${AUTH_PATH} answered ${redactor.redact(`${describeReply(r)}${msgOf(r)}`)}${probeSaid}. Check ${app.settings}; ${AT_FAULT} (§5.2)`,
      );
    }
    await sameMerchantStop(apps, answers, send, redactor);
    return warnings;
  } catch (e) {
    if (e instanceof ServerFault) return [e.message];
    throw e;
  } finally {
    await client.close();
    // rate_limit holds for the whole run: the checks' client (another process, its own pace) starts after these.
    if (config.rate_limit && sent)
      await new Promise((r) => setTimeout(r, Math.ceil((sent * 1000) / config.rate_limit!)));
  }
}

/** Every request's answer, or the first request's error once all have ended (none is left running at a close). */
async function settled(requests: Array<Promise<Reply>>): Promise<Reply[]> {
  const all = await Promise.allSettled(requests);
  for (const s of all) if (s.status === 'rejected') throw s.reason;
  return all.map((s) => (s as PromiseFulfilledResult<Reply>).value);
}

/**
 * Stops the run when app and other_app are one merchant: /auth says so for both AND /merchant, asked with each
 * application's token, names one merchant for both. What /auth says of itself is not enough: when /merchant names
 * another merchant, the server contradicts itself, and AUTH-04 (which compares the two for every application) fails
 * the run instead.
 */
async function sameMerchantStop(
  apps: App[],
  answers: Reply[],
  send: (path: string, query?: Record<string, string>, token?: string) => Promise<Reply>,
  redactor: Redactor,
): Promise<void> {
  if (apps.length < 2) return;
  if (!sameMerchant(authMerchant(answers[0]!), authMerchant(answers[1]!))) return;
  const tokens = answers.map(tokenOf);
  if (tokens.some((t) => t === undefined)) return;
  const merchants = (await settled(tokens.map((t) => send('/merchant', undefined, t)))).map((r) =>
    merchantIn(looseData(r)),
  );
  if (!sameMerchant(merchants[0], merchants[1])) return;
  const other = apps[1]!;
  throw new SetupError(
    `other_app authenticates as the same merchant as app (${AUTH_PATH} and /merchant name merchant id ${redactor.redact(stringifyJson(merchants[0]!.id) ?? '')} for both): the isolation checks need an application of a second merchant. Check ${other.settings}; ${AT_FAULT} (it answers two merchants' applications with one merchant)`,
  );
}
