/**
 * How this API authenticates (§5), in one place: the auth scheme, one object ({@link AuthScheme}) that says how a
 * credential is obtained (GET /auth?secret=<public key>&key=<secret key> answers data.app_token), how it is carried on
 * a request (the open-token header), how it is recognized in an exchange and in text (redaction, HAR, check-har), how
 * the probes carry it wrongly (another carrier: the query string, a cookie, another header), and how OpenAPI describes
 * it (the security scheme); and how the credentials are configured. Every other module asks this one;
 * test/auth-seam.test.ts fails when another spells these words. Another scheme is {@link AUTH_SCHEME} set to another
 * object ({@link BEARER_SCHEME}, or one built with {@link authScheme}): CONTRIBUTING.md, "Recipe 3".
 */

/** Where a request carries its token: a header, and the scheme word before the token in it (RFC 9110 §11.4). */
export interface TokenCarrier {
  /** The header's name, lower case as Node and a HAR give it. */
  header: string;
  /** The word before the token (`Bearer`), matched without regard to case; none: the header is the token. */
  word?: string;
  /** The name a request spells the token by when it carries it elsewhere: a query parameter, a cookie. */
  param: string;
}

/** One way of carrying the real token anywhere but the scheme's carrier: the probes' (§5.4: no valid credential). */
export interface WrongCarrier {
  /** What the probe sent, as a finding names it. */
  name: string;
  /** Codes a refusal must have, or undefined when any refusal will do (a query string is also §4 rule 2's). */
  codes?: number[];
  /** The query and headers that carry the token so. */
  carry(token: string): { query?: Record<string, string>; headers?: Record<string, string> };
}

/**
 * An auth scheme: how a credential is obtained (the /auth exchange), carried on a request, recognized in an exchange
 * and in text, carried wrongly by the probes, and described in OpenAPI. The checks, the probes, the reference server,
 * redaction and the OpenAPI generator ask {@link AUTH_SCHEME}; nothing else spells it.
 */
export interface AuthScheme {
  /** Obtaining a token (§5.2): the endpoint, its query's names, the answer's fields. */
  obtain: {
    path: string;
    query: { publicKey: string; secretKey: string };
    tokenField: string;
    merchantField: string;
  };
  /** Carrying it (§5.3). */
  carrier: TokenCarrier;
  /** The carrier as a sentence names it: `open-token`, `Authorization: Bearer`. */
  carrierName: string;
  /** Puts a token on a request's headers; an empty token is an empty carrier, undefined none. */
  carry(headers: Record<string, string>, token: string | undefined): void;
  /** The token a request's headers carry as the scheme carries it (a server's view, a HAR's), or undefined. */
  tokenOf(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined;
  /** Each token written in an answer's text that does not parse (redaction); group 1 is the value. */
  tokenInText: RegExp;
  /** The ways the probes carry the real token wrongly: four, in the order {@link authScheme} gives. */
  wrongCarriers: WrongCarrier[];
  /** The other carrier the probes try (a mutant of the reference server takes it): another API's, or the header bare. */
  otherCarrier: {
    name: string;
    tokenOf(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined;
  };
  /** The OpenAPI security scheme: its name in components.securitySchemes, and the object. */
  openapi: { name: string; scheme: Record<string, string> };
}

/** The /auth exchange of §5.2, which every scheme here obtains its token by. */
const AUTH_EXCHANGE = {
  path: '/auth',
  query: { publicKey: 'secret', secretKey: 'key' },
  tokenField: 'app_token',
  merchantField: 'merchant',
} as const;

/** A carrier as a sentence names it: the header, or `Authorization: Bearer`. */
function carrierName(c: Pick<TokenCarrier, 'header' | 'word'>): string {
  const header = c.header.replace(/(^|-)([a-z])/g, (_, dash: string, l: string) => dash + l.toUpperCase());
  return c.word ? `${header}: ${c.word}` : c.header;
}

/** The token a request's headers carry in a carrier, or undefined (no header, or not the carrier's word). */
function tokenIn(
  c: Pick<TokenCarrier, 'header' | 'word'>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | undefined {
  const v = headers[c.header];
  if (typeof v !== 'string') return undefined;
  if (!c.word) return v;
  const m = new RegExp(`^${c.word} +`, 'i').exec(v);
  return m ? v.slice(m[0].length) : undefined;
}

/** A header's value for a token in a carrier. */
function carried(c: Pick<TokenCarrier, 'word'>, token: string): string {
  return c.word ? `${c.word} ${token}` : token;
}

/**
 * The scheme that obtains its token by /auth (§5.2) and carries it in `carrier`; `other` is a carrier a lenient server
 * may take too, which the probes try (the open-token header's: `Authorization: Bearer`; Bearer's: the header without
 * its word). Its wrong carriers are four, in the same order whatever the scheme (the query string under the
 * carrier's name, the query string as token, the other carrier, a cookie), so which endpoint probes which one
 * (suites/support/token-probes.ts, waysAt) and which checks a mutant that takes one fails do not change with it.
 */
export function authScheme(carrier: TokenCarrier, other: Pick<TokenCarrier, 'header' | 'word'>): AuthScheme {
  const name = carrierName(carrier);
  const wrongCarriers: WrongCarrier[] = [
    {
      name: `the real token in the query string as ${carrier.param}, no header`,
      carry: (t) => ({ query: { [carrier.param]: t } }),
    },
    { name: 'the real token in the query string as token, no header', carry: (t) => ({ query: { token: t } }) },
    {
      name: `the real token in an ${carrierName(other)} header, no ${name}`,
      codes: [401],
      carry: (t) => ({ headers: { [other.header]: carried(other, t) } }),
    },
    {
      name: `the real token in a cookie named ${carrier.param}, no header`,
      codes: [401],
      carry: (t) => ({ headers: { cookie: `${carrier.param}=${t}` } }),
    },
  ];
  const description = `The ${AUTH_EXCHANGE.tokenField} of endpoint 1 (§5.3).`;
  return {
    obtain: AUTH_EXCHANGE,
    carrier,
    carrierName: name,
    carry(headers, token) {
      if (token !== undefined) headers[carrier.header] = carried(carrier, token);
    },
    tokenOf: (headers) => tokenIn(carrier, headers),
    tokenInText: new RegExp(`["']?${AUTH_EXCHANGE.tokenField}["']?\\s*[:=]\\s*["']?((?:[^"'\\\\\\s,}&]|\\\\.)+)`, 'g'),
    wrongCarriers,
    otherCarrier: { name: carrierName(other), tokenOf: (headers) => tokenIn(other, headers) },
    openapi: carrier.word
      ? {
          name: `${carrier.word.toLowerCase()}Token`,
          scheme: { type: 'http', scheme: carrier.word.toLowerCase(), description },
        }
      : {
          name: carrier.header.replace(/-([a-z])/g, (_, l: string) => l.toUpperCase()),
          scheme: { type: 'apiKey', in: 'header', name: carrier.header, description },
        },
  };
}

/** §5.3: the token in the open-token header, as it stands. */
export const OPEN_TOKEN_SCHEME: AuthScheme = authScheme(
  { header: 'open-token', param: 'open-token' },
  { header: 'authorization', word: 'Bearer' },
);

/**
 * The token as a bearer token (RFC 6750 §2.1: `Authorization: Bearer <token>`), not the spec's. Its other carrier is the
 * same header without the word (the token as it stands), the likeliest leniency of a Bearer server.
 */
export const BEARER_SCHEME: AuthScheme = authScheme(
  { header: 'authorization', word: 'Bearer', param: 'access_token' },
  { header: 'authorization' },
);

/** The scheme of this API (§5). Switching the scheme starts here: CONTRIBUTING.md, "Recipe 3". */
export const AUTH_SCHEME: AuthScheme = OPEN_TOKEN_SCHEME;

/** Endpoint 1 of §4: the access credential for a key pair. */
export const AUTH_PATH = AUTH_SCHEME.obtain.path;

/** The request header that carries the token to every other endpoint (§4 rule 4, §5.3). */
export const TOKEN_HEADER = AUTH_SCHEME.carrier.header;

/** The field of /auth's data that holds the issued token (§2.6). */
export const TOKEN_FIELD = AUTH_SCHEME.obtain.tokenField;

/** The field of /auth's data that names the application's merchant (§2.6). */
export const MERCHANT_FIELD = AUTH_SCHEME.obtain.merchantField;

/** /auth's query parameters (§5.2): the public key is sent as `secret`, the secret key as `key`. */
export const KEY_PAIR_QUERY = AUTH_SCHEME.obtain.query;

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
export const TOKEN_IN_TEXT = AUTH_SCHEME.tokenInText;

/** Puts the token in the headers of a request, where the order of a request's headers has it; none: no header. */
export function carryToken(headers: Record<string, string>, token: string | undefined): void {
  AUTH_SCHEME.carry(headers, token);
}

/** The token a recorded or received request carried, or undefined. */
export function tokenOfRequest(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  return AUTH_SCHEME.tokenOf(headers);
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

/** A URL with its public key replaced (a recording's stand-in for a derived public key). */
export function withPublicKey(url: URL, publicKey: string): URL {
  const out = new URL(url);
  out.searchParams.set(KEY_PAIR_QUERY.publicKey, publicKey);
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
