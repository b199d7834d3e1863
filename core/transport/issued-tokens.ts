import { grouped } from '../base/counted.js';
import { SAFE_SECRET_LENGTH, type Redactor, type SecretKind } from '../redact/redact.js';
import { publicKeyOfUrl, TOKEN_FIELD, TOKEN_IN_TEXT, tokenField } from '../spec/auth-scheme.js';
import { requestTarget } from './transfer.js';

/**
 * Every token a server issues becomes a secret the moment it is on the wire (§2.6 app_token): from the parsed
 * body, and from the text of a body that does not parse (cut short, trailing bytes, not quite JSON), where any
 * "app_token": "…" is taken, decoded when it is a complete JSON string, as it stands (to the cut) otherwise.
 */
export function learnTokens(
  redactor: Redactor,
  json: unknown,
  text: string | undefined,
  url: string,
  headers?: Readonly<Record<string, string | string[] | undefined>>,
): void {
  const tokens = tokensIn(json, text);
  if (tokens.length) {
    const kind = tokenKind(redactor, url);
    for (const t of tokens) redactor.add(t, kind);
  }
  // A token handed out in a header or a cookie (a refreshed token, a session) is as secret as app_token, whoever
  // it was meant for.
  if (headers) for (const t of tokensInHeaders(headers)) redactor.add(t, 'issued-token');
}

/** Header and cookie names that carry a credential: a token, a session, an authorization. */
const CREDENTIAL_NAME = /token|session|auth|jwt|bearer|credential|secret|api[-_]?key/i;
/** Headers named so that carry no credential of their own: a challenge, a scheme, a URL. */
const NOT_A_CREDENTIAL = new Set(['www-authenticate', 'proxy-authenticate', 'authentication-info']);

/**
 * Credentials an answer's headers hand out: the value of a header named like one (`x-refreshed-token: …`, with a
 * scheme word such as "Bearer" taken off) and the value of a cookie named like one (`set-cookie: session_token=…`).
 */
export function tokensInHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): string[] {
  const found: string[] = [];
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    const lower = name.toLowerCase();
    if (lower === 'set-cookie') {
      for (const v of values.flatMap((c) => c.split(/\n|,(?=\s*[^;=\s]+=)/))) {
        const m = /^\s*([^=;\s]+)=([^;]*)/.exec(v);
        if (m && CREDENTIAL_NAME.test(m[1]!)) found.push(...valueForms(m[2]!));
      }
      continue;
    }
    if (NOT_A_CREDENTIAL.has(lower) || !CREDENTIAL_NAME.test(lower)) continue;
    for (const v of values) found.push(...valueForms(v.replace(/^\s*(?:bearer|token|basic)\s+/i, '')));
  }
  // A credential is one word of some length: an expiry time, a count or a date in such a header is none.
  return found.filter((t) => t.length >= SAFE_SECRET_LENGTH && !/\s/.test(t));
}

/** A value as it stands, and decoded when it is percent-encoded or quoted (as a cookie value may be). */
function valueForms(v: string): string[] {
  const trimmed = v.trim().replace(/^"(.*)"$/, '$1');
  let decoded = trimmed;
  try {
    decoded = decodeURIComponent(trimmed);
  } catch {
    /* not percent-encoded: as it stands */
  }
  return decoded === trimmed ? [trimmed] : [trimmed, decoded];
}

/**
 * The tokens an answer carries, whatever else is wrong with it (its envelope, its status): data.app_token of the
 * parsed body, or each "app_token": "…" in the text of a body that does not parse (as it stands and decoded).
 */
export function tokensIn(json: unknown, text: string | undefined): string[] {
  const token = tokenField((json as { data?: unknown } | undefined)?.data);
  const found = typeof token === 'string' ? [token] : [];
  if (json !== undefined || text === undefined || !text.includes(TOKEN_FIELD)) return found;
  for (const m of text.slice(0, 1 << 20).matchAll(TOKEN_IN_TEXT)) {
    const raw = m[1]!;
    let decoded = raw;
    try {
      decoded = JSON.parse(`"${raw}"`) as string;
    } catch {
      /* not a JSON string: taken as it stands */
    }
    found.push(raw, decoded);
  }
  return found;
}

/**
 * Whose token an answer carries, by the public key its request sent (the /auth query's secret): app's, other_app's,
 * or some other key pair's (a refused one, the disabled application's).
 */
function tokenKind(redactor: Redactor, url: string): SecretKind {
  let secret: string | null = null;
  try {
    secret = publicKeyOfUrl(new URL(url));
  } catch {
    /* no query: not /auth */
  }
  const of = secret === null ? undefined : redactor.kindOf(secret);
  return of === 'other-public-key' ? 'other-token' : of === 'public-key' || secret === null ? 'token' : 'issued-token';
}

/**
 * Characters a header value cannot carry: C0 controls but HTAB, and DEL (RFC 9110 §5.5: a field value is visible
 * characters, spaces and tabs), and any character past U+00FF (a header is octets; undici and fetch() refuse a
 * string that is not a byte string). A server that issues a token holding one issued a token no request can send
 * back (§2.6: every other request carries it in the open-token header).
 */
const NOT_IN_HEADER = /[\u0000-\u0008\u000A-\u001F\u007F\u0100-\uFFFF]/gu;

/**
 * The characters of `value` that no header value may carry, as code points (`U+001B, U+0007, U+202E`), at most
 * eight and each once; undefined when the value is a legal header value. Never the value itself: it may be a secret.
 */
export function illegalHeaderChars(value: string): string | undefined {
  const seen = new Set<string>();
  for (const m of value.matchAll(NOT_IN_HEADER)) {
    seen.add(`U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    if (seen.size > 8) break;
  }
  if (!seen.size) return undefined;
  const listed = [...seen].slice(0, 8);
  return `${listed.join(', ')}${seen.size > 8 ? ', …' : ''}`;
}

/** An HTTP token (RFC 9110 §5.6.2): what a method and a header name must be. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a request target may hold as undici sends it: no space, no control, nothing past U+00FF. */
const BAD_TARGET = /[^\u0021-\u00ff]/u;

/**
 * The longest request target a run sends: eight times what RFC 9112 §3 asks every server to read. A target longer
 * than that holds an id no server would take back (a server that lists a 5 MB id): sent, each such request cost
 * its 5 MB again in undici's buffers, for every probe of the id's paths (400 MB of the run's memory), to be refused.
 */
const MAX_TARGET_CHARS = 65_536;

/**
 * Why a request cannot be sent as it stands (an illegal header value, a bad method, name or path, a target past
 * MAX_TARGET_CHARS), in words that
 * quote no value; undefined when it can. Asked before a request reaches the dispatcher: undici refuses such a
 * request synchronously and then wrongly takes its connection for busy, and every request queued behind it would
 * wait for a drain that never comes (the stall of issue 37).
 */
export function unsendable(method: string, url: string, headers: Readonly<Record<string, string>>): string | undefined {
  if (!HTTP_TOKEN.test(method)) return 'its method is not an HTTP token';
  // Measured before the URL is parsed: a 5 MB target is refused without being scanned.
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  const targetLength = slash < 0 ? 1 : url.length - slash;
  if (targetLength > MAX_TARGET_CHARS)
    return `its request target is ${grouped(targetLength)} characters long, past the ${grouped(MAX_TARGET_CHARS)} a run sends (RFC 9112 §3 asks a server to read request lines of 8,000 octets)`;
  if (BAD_TARGET.test(requestTarget(url).path)) return 'its path holds a space, a control or a character past U+00FF';
  for (const [name, value] of Object.entries(headers)) {
    if (!HTTP_TOKEN.test(name)) return 'a header name is not an HTTP token';
    const bad = illegalHeaderChars(value);
    if (bad) return `the ${name} header value holds characters no header value may carry (${bad}; RFC 9110 §5.5)`;
  }
  return undefined;
}
