/**
 * How this API authenticates (§5), in one place: how the credentials are configured, how a token is obtained for a
 * key pair (GET /auth?secret=<public key>&key=<secret key> answers data.app_token), how it is carried (the open-token
 * header), how a recorded exchange shows a token and a key pair, and how a curl line names the token. Every other
 * module asks this one; test/auth-seam.test.ts fails when another spells these words. A different scheme is a change
 * of this file (and of the checks whose subject is the scheme itself: suites/auth.ts, suites/support/token-probes.ts,
 * the rule matrix, the reference server).
 */

/** Endpoint 1 of §4: the access credential for a key pair. */
export const AUTH_PATH = '/auth';

/** The request header that carries the token to every other endpoint (§4 rule 4, §5.3). */
export const TOKEN_HEADER = 'open-token';

/** The field of /auth's data that holds the issued token (§2.6). */
export const TOKEN_FIELD = 'app_token';

/** The field of /auth's data that names the application's merchant (§2.6). */
export const MERCHANT_FIELD = 'merchant';

/** /auth's query parameters (§5.2): the public key is sent as `secret`, the secret key as `key`. */
export const KEY_PAIR_QUERY = { publicKey: 'secret', secretKey: 'key' } as const;

/** An application's key pair as §5.2 names it: the public key (secret) and the secret key (key). */
export interface KeyPair {
  secret: string;
  key: string;
}

/** One credential as the config file (key), the command line (flag) and the environment (env) spell it. */
export interface CredentialSetting {
  key: string;
  flag: string;
  env: string;
  /** What the value is, as --help shows it. */
  value: 'key' | 'token';
  help: string;
}

/**
 * How the credentials are configured (§5.1): app's key pair, other_app's (an application of a second merchant), and
 * disabled_app's key pair and earlier token. core/config/config.ts makes them options; messages name them from here.
 */
export const CREDENTIALS = {
  app: {
    secret: {
      key: 'app.secret',
      flag: 'secret',
      env: 'CONFORMANCE_SECRET',
      value: 'key',
      help: `Application public key (sent as the ${KEY_PAIR_QUERY.publicKey} query parameter)`,
    },
    key: {
      key: 'app.key',
      flag: 'key',
      env: 'CONFORMANCE_KEY',
      value: 'key',
      help: `Application secret key (sent as the ${KEY_PAIR_QUERY.secretKey} query parameter)`,
    },
  },
  other_app: {
    secret: {
      key: 'other_app.secret',
      flag: 'other-secret',
      env: 'CONFORMANCE_OTHER_SECRET',
      value: 'key',
      help: 'Public key of an application of another merchant (isolation checks)',
    },
    key: {
      key: 'other_app.key',
      flag: 'other-key',
      env: 'CONFORMANCE_OTHER_KEY',
      value: 'key',
      help: 'Secret key of that application',
    },
  },
  disabled_app: {
    secret: {
      key: 'disabled_app.secret',
      flag: 'disabled-secret',
      env: 'CONFORMANCE_DISABLED_SECRET',
      value: 'key',
      help: 'Public key of an application the merchant has disabled',
    },
    key: {
      key: 'disabled_app.key',
      flag: 'disabled-key',
      env: 'CONFORMANCE_DISABLED_KEY',
      value: 'key',
      help: 'Secret key of the disabled application',
    },
    token: {
      key: 'disabled_app.token',
      flag: 'disabled-token',
      env: 'CONFORMANCE_DISABLED_TOKEN',
      value: 'token',
      help: 'A token issued to it before it was disabled',
    },
  },
} as const satisfies Record<string, Record<string, CredentialSetting>>;

/** Every credential setting, in the order --help and the README list them. */
export const CREDENTIAL_SETTINGS: CredentialSetting[] = Object.values(CREDENTIALS).flatMap((a) =>
  Object.values(a as Record<string, CredentialSetting>),
);

/** /auth's query for a key pair, public key first, as §5.2 writes it. */
export function authQuery(pair: KeyPair): Record<string, string> {
  return { [KEY_PAIR_QUERY.publicKey]: pair.secret, [KEY_PAIR_QUERY.secretKey]: pair.key };
}

/** The request that asks for a key pair's token (endpoint 1): no token of its own (§4 rule 3). */
export function authRequest(pair: KeyPair): { path: string; query: Record<string, string> } {
  return { path: AUTH_PATH, query: authQuery(pair) };
}

/**
 * /auth's query as text, each value as given and not encoded: for a line a person reads or a shell runs, where a
 * value is a placeholder (`[REDACTED:public-key]`, `<secret key>`, `…`) or a regular expression's source.
 */
export function authQueryText(publicKey: string, secretKey: string): string {
  return `${KEY_PAIR_QUERY.publicKey}=${publicKey}&${KEY_PAIR_QUERY.secretKey}=${secretKey}`;
}

/** Whatever /auth's data holds as the token, unchecked (undefined when the data is no object). */
export function tokenField(data: unknown): unknown {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[TOKEN_FIELD] : undefined;
}

/** The token /auth's data issues: a non-empty string, else undefined. */
export function issuedToken(data: unknown): string | undefined {
  const token = tokenField(data);
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** The merchant /auth's data names, unchecked (undefined when the data is no object). */
export function merchantField(data: unknown): unknown {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[MERCHANT_FIELD] : undefined;
}

/** Where /auth's data holds the token, as a dotted path from the envelope ("data.app_token"). */
export const TOKEN_PATH = `data.${TOKEN_FIELD}`;

/**
 * Each token written in a text that does not parse as JSON (cut short, trailing bytes, a query string): the value
 * after `"app_token":` or `app_token=`, to the end of the JSON string or the parameter; group 1 is the value.
 */
export const TOKEN_IN_TEXT = /["']?app_token["']?\s*[:=]\s*["']?((?:[^"'\\\s,}&]|\\.)+)/g;

/** Puts the token in the headers of a request, where the order of a request's headers has it; none: no header. */
export function carryToken(headers: Record<string, string>, token: string | undefined): void {
  if (token !== undefined) headers[TOKEN_HEADER] = token;
}

/** The token a recorded request carried, or undefined. */
export function tokenOfRequest(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  return headers[TOKEN_HEADER];
}

/** The public key a request's query sends (any path: a refused /auth's too), or null. */
export function publicKeyOfUrl(url: URL): string | null {
  return url.searchParams.get(KEY_PAIR_QUERY.publicKey);
}

/** A URL with its secret key replaced (a recording's stand-in for a derived key). */
export function withSecretKey(url: URL, secretKey: string): URL {
  const out = new URL(url);
  out.searchParams.set(KEY_PAIR_QUERY.secretKey, secretKey);
  return out;
}

/** The key pair of a recorded /auth request, and the base URL /auth is relative to; undefined for any other. */
export function authCallOf(url: URL): { pair: KeyPair; base: string } | undefined {
  const secret = url.searchParams.get(KEY_PAIR_QUERY.publicKey);
  const key = url.searchParams.get(KEY_PAIR_QUERY.secretKey);
  if (!url.pathname.endsWith(AUTH_PATH) || secret === null || key === null) return undefined;
  return { pair: { secret, key }, base: `${url.origin}${url.pathname.slice(0, -AUTH_PATH.length)}` };
}

/** The path of /auth under a base URL ("https://h/open/" → "/open/auth"). */
export function authPathAt(base: string): string {
  return `${new URL(base).pathname.replace(/\/+$/, '')}${AUTH_PATH}`;
}

/**
 * The shell variables a curl line names a token by, by its redaction kind: the token of app, and of other_app. A
 * reproduction fetches them with {@link TOKEN_JQ} from /auth's answer.
 */
export const TOKEN_SHELL_VARS = { token: 'OPEN_TOKEN', 'other-token': 'OTHER_OPEN_TOKEN' } as const;

/** The jq filter that takes the token out of /auth's answer (a curl line's reproduction). */
export const TOKEN_JQ = `.${TOKEN_PATH}`;
