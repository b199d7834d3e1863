/**
 * What one HTTP exchange is to the rest of the suite: the request a check asks for, the reply it reads, the record
 * kept as evidence (and how a report may show it), and the error of a request that got no usable response.
 */
import type { Redactor } from '../redact/redact.js';
import { capRedacted } from '../redact/untrusted-text.js';

/** The Content-Type every request carries (§4), unless a check leaves it out on purpose. */
export const SPEC_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Characters of a response body kept as evidence (the rest is counted in body_bytes). */
export const EXCERPT_CHARS = 4096;
/** Characters recorded past the excerpt, so a secret that straddles the cut is redacted whole before cutting. */
export const EXCERPT_MARGIN = 1024;
/** Bytes of a body enough for its excerpt and margin whatever the characters (UTF-8 takes up to 4 bytes each). */
export const EXCERPT_HEAD_BYTES = (EXCERPT_CHARS + EXCERPT_MARGIN) * 4;

/** One request as a check asks for it; the client adds the base URL, the headers and the query. */
export interface RequestSpec {
  method?: string;
  /** Path relative to base_url (leading slash), sent as given: fuzzed ids are not re-encoded. */
  path: string;
  query?: Record<string, string>;
  /** Value of the open-token header; undefined sends none. */
  token?: string;
  /** Further request headers (the credential probes' other carriers: a cookie, an Authorization header). */
  headers?: Record<string, string>;
  /**
   * Which credential of the request is derived from a real one (a generated probe): the open-token header
   * (`token`), the `key` query parameter (`key`) or the `secret` one, the public key (`public-key`). A recording holds
   * such a value only as its kind's stand-in, so a replay looks it up by that.
   */
  derived?: 'token' | 'key' | 'public-key';
  /**
   * A request body, sent as it is (§4: "The request has no body."; only probes of that rule send one, e.g. /auth's
   * keys in a body). Its Content-Type is the spec's unless `headers` name another. A recording matches it exactly.
   */
  body?: string;
  /** Send the spec's Content-Type header (§4); default true. */
  contentType?: boolean;
  /** Use another origin or base than base_url (transport checks). */
  baseUrl?: string;
  /** Overrides the client's 429 retries for this request: `{ max: 0 }` answers the first 429 as it came (preflight). */
  retry?: { max: number };
}

/**
 * One request/response as recorded: raw, as it went and came, with the body's excerpt not cut yet. Only the few a
 * check keeps as evidence go into a report, through reportable(); redacting all 44,000 of a large run cost more
 * than the checks that read them.
 */
export interface Exchange {
  /** body: the request body, when one was sent (RequestSpec.body). */
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    body_excerpt: string;
    body_bytes: number;
    truncated: boolean;
  };
  error?: string;
  duration_ms: number;
  /** 429 answers that came before this one and were retried after their Retry-After (§8 leaves limits open). */
  retries?: RetryRecord[];
  /** Why the request went out a second time on a fresh connection: its first closed before any answer (core/transport/http.ts). */
  resent?: string;
}

/** A 429 answer that was waited out and retried (§8 leaves rate limits open). */
export interface RetryRecord {
  status: number;
  retry_after?: string;
  waited_ms: number;
}

/** A whole answer as checks read it: status, headers, text, parsed JSON (exact integers) and its exchange. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  bytes: number;
  utf8: boolean;
  /** Parsed body, or undefined when it is not JSON (see jsonError). */
  json: unknown;
  jsonError?: string;
  /** The body's bytes when they are not UTF-8 (text has replacement characters): a recording keeps them as sent. */
  raw?: Buffer;
  /**
   * The body started with a byte order mark (U+FEFF), which RFC 8259 §8.1 forbids a JSON sender: text, json and raw
   * are what follows it (a reader may ignore it), and ENV-01 reports it.
   */
  bom?: true;
  /**
   * With ClientOptions.keepBodies (a recording): the body's bytes as they came (decoded, without the byte order mark),
   * or a file of them to read and remove; whoever records the reply takes it off (core/session/recorded-source.ts).
   */
  wire?: Buffer | { file: string };
  durationMs: number;
  exchange: Exchange;
}

/** The request got no usable response (timeout, reset, refused, TLS, too large). */
export class NetworkError extends Error {
  /** beforeResponse: the failure came before any response header (the request may never have reached the server). */
  constructor(
    message: string,
    readonly exchange: Exchange,
    readonly code: string,
    readonly beforeResponse = false,
  ) {
    super(message);
  }
}

/**
 * An exchange as a report may show it: every secret redacted (tokens learnt after it was recorded too), then the
 * body cut to its excerpt; redacting before cutting leaves no readable prefix of a secret at the cut.
 */
export function reportable(e: Exchange, r: Redactor): Exchange {
  // An exchange is evidence of several checks (an answer read by all of them): redacted once while no secret is added.
  const known = shown.get(e);
  if (known && known.redactor === r && known.version === r.version) return known.shown;
  const x = redactExchange(e, r);
  shown.set(e, { redactor: r, version: r.version, shown: x });
  return x;
}

const shown = new WeakMap<Exchange, { redactor: Redactor; version: number; shown: Exchange }>();

function redactExchange(e: Exchange, r: Redactor): Exchange {
  // Everything in an exchange came from or was built from server data (a request path holds an id the server
  // chose): forged redaction markers are neutralised, every secret replaced, every string bounded.
  const show = (s: string, max: number): string => capRedacted(s, max, (t) => r.redactServerText(t));
  const headers = (h: Record<string, string>): Record<string, string> => {
    const out: Record<string, string> = {};
    const entries = Object.entries(h);
    // defineProperty: a header named __proto__ stays an own key.
    for (const [k, v] of entries.slice(0, MAX_HEADERS_SHOWN))
      Object.defineProperty(out, show(k, HEADER_NAME_CHARS), {
        value: show(v, HEADER_VALUE_CHARS),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    if (entries.length > MAX_HEADERS_SHOWN) out['…'] = `${entries.length - MAX_HEADERS_SHOWN} more headers not shown`;
    return out;
  };
  const x: Exchange = {
    request: {
      method: show(e.request.method, 64),
      url: show(e.request.url, URL_CHARS),
      headers: headers(e.request.headers),
      // A request body may carry a configured key (AUTH-06's keys in a body): redacted as the URL is.
      ...(e.request.body !== undefined ? { body: show(e.request.body, URL_CHARS) } : {}),
    },
    duration_ms: e.duration_ms,
  };
  if (e.response) {
    const excerpt = r.redactServerText(e.response.body_excerpt);
    x.response = {
      status: e.response.status,
      headers: headers(e.response.headers),
      body_excerpt: excerpt.length > EXCERPT_CHARS ? excerpt.slice(0, EXCERPT_CHARS) : excerpt,
      body_bytes: e.response.body_bytes,
      truncated: e.response.truncated,
    };
  }
  if (e.error !== undefined) x.error = show(e.error, URL_CHARS + 500);
  if (e.resent !== undefined) x.resent = show(e.resent, URL_CHARS + 500);
  if (e.retries)
    x.retries = e.retries.map((t) => ({
      ...t,
      ...(t.retry_after !== undefined ? { retry_after: show(t.retry_after, 100) } : {}),
    }));
  return x;
}

/** Bounds of server-chosen strings in evidence: a 5 MB id in a path or a header must not become 5 MB per report. */
export const URL_CHARS = 2000;

/**
 * "GET <url>" as a message of the tool names a request: the URL bounded, and redacted before it is cut (no readable
 * part of a secret at the cut) with the markers a check's message turns into `[REDACTED:…]` (Redactor.redactMessage),
 * since the path may hold a server's id, forged markers included. A plain redact() here was redacted again there:
 * the key pair of an /auth that timed out read `[FORGED-REDACTED:public-key]`.
 */
export const requestLine = (method: string, url: string, r: Redactor): string =>
  `${method} ${capRedacted(url, URL_CHARS, (t) => r.redactQuoted(t))}`;
const HEADER_NAME_CHARS = 200;
const HEADER_VALUE_CHARS = 2000;
const MAX_HEADERS_SHOWN = 200;
