import type { Exchange } from '../core/transport/exchange.js';
import { parseJsonExact, stringifyJson } from '../core/base/exact-json.js';
import type { Report } from '../core/model/report.js';
import { AUTH_PATH, authQueryText, CREDENTIALS, TOKEN_JQ, TOKEN_SHELL_VARS } from '../core/spec/auth-scheme.js';

/**
 * Evidence as people read it, shared by the HTML and JUnit reports: a copy-pasteable curl command, a pretty body,
 * a plain-text rendering of an exchange. Everything here is already redacted (core/engine/run-check.ts redacts the
 * evidence a check keeps).
 */

/** Redaction markers (`[REDACTED:token]`, `[REDACTED:public-key]`, …) become these shell variables in curl lines. */
const SHELL_VARS: Record<string, string> = {
  ...TOKEN_SHELL_VARS,
  'issued-token': 'ISSUED_TOKEN',
  // A configured credential: the variable that configures it.
  'public-key': CREDENTIALS.app.secret.env,
  'secret-key': CREDENTIALS.app.key.env,
  'other-public-key': CREDENTIALS.other_app.secret.env,
  'other-secret-key': CREDENTIALS.other_app.key.env,
  'disabled-public-key': CREDENTIALS.disabled_app.secret.env,
  'disabled-secret-key': CREDENTIALS.disabled_app.key.env,
  'disabled-token': CREDENTIALS.disabled_app.token.env,
};

const MARKER = /\[REDACTED(?::([A-Za-z0-9_-]+))?\]/g;

/** The shell variable a redaction marker stands for; an unknown kind still maps to a predictable name. */
export function shellVarFor(kind: string | undefined): string {
  if (!kind) return 'CONFORMANCE_REDACTED';
  return SHELL_VARS[kind] ?? `CONFORMANCE_${kind.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** POSIX single quoting: nothing inside is special; a ' is closed, escaped and reopened. */
export function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * One shell word for a redacted value: literal parts single-quoted, each secret as "$VAR" (double quotes so the
 * value is not split or globbed), glued together without spaces. `a[REDACTED:token]b` → `'a'"$OPEN_TOKEN"'b'`.
 */
export function shellWord(value: string): string {
  let out = '';
  let last = 0;
  for (const m of value.matchAll(MARKER)) {
    if (m.index > last) out += singleQuote(value.slice(last, m.index));
    // The altered token (UNAUTH-* checks) is rebuilt from the real one: all but its last character, then '~'.
    out += m[1] === 'altered-token' ? `"\${${shellVarFor('token')}%?}~"` : `"$${shellVarFor(m[1])}"`;
    last = m.index + m[0].length;
  }
  if (last < value.length) out += singleQuote(value.slice(last));
  return out || `''`;
}

/** The run's TLS settings, so a curl line reproduces with the same CA or `--insecure`. */
export interface CurlOptions {
  caFile?: string;
  insecure?: boolean;
}

/** TLS options of the run (report.config.tls), so the curl line trusts the same CA the run did. */
export function curlOptionsOf(report: Pick<Report, 'config'>): CurlOptions {
  const tls = (report.config?.tls ?? {}) as { ca_file?: unknown; insecure?: unknown };
  return {
    ...(typeof tls.ca_file === 'string' ? { caFile: tls.ca_file } : {}),
    ...(tls.insecure === true ? { insecure: true } : {}),
  };
}

/**
 * A curl command that sends the recorded request again. -g: no URL globbing ([ and { are literal);
 * --path-as-is: fuzzed paths (../, %2e) go out as recorded; -i: show the status line and headers; --compressed for
 * the Accept-Encoding the client sent.
 */
export function curlCommand(e: Exchange, opts: CurlOptions = {}): string {
  const parts = ['curl', '-sS', '-i', '-g', '--path-as-is'];
  const method = e.request.method.toUpperCase();
  if (method === 'HEAD') parts.push('-I');
  else if (method !== 'GET') parts.push('-X', shellWord(method));
  if (opts.insecure) parts.push('-k');
  else if (opts.caFile) parts.push('--cacert', singleQuote(opts.caFile));
  for (const [k, v] of Object.entries(e.request.headers)) {
    // --compressed asks for what curl decodes and decodes it: with the header alone, curl prints the coded bytes.
    if (k.toLowerCase() === 'accept-encoding') parts.push('--compressed');
    else parts.push('-H', shellWord(`${k}: ${v}`));
  }
  parts.push(shellWord(e.request.url));
  return parts.join(' ');
}

/** A token for $OPEN_TOKEN, fetched the way the suite does (§5.2): needs CONFORMANCE_SECRET and CONFORMANCE_KEY. */
/** The tokens a reproduction can fetch itself (§5.2), each from its application's key pair. */
const TOKEN_SOURCES = {
  token: { publicKey: 'public-key', secretKey: 'secret-key' },
  'other-token': { publicKey: 'other-public-key', secretKey: 'other-secret-key' },
} as const;

/** A token for $OPEN_TOKEN (or $OTHER_OPEN_TOKEN), fetched the way the suite does (§5.2) from the key pair's variables. */
export function tokenCommand(
  baseUrl: string,
  opts: CurlOptions = {},
  kind: keyof typeof TOKEN_SOURCES = 'token',
): string {
  const tls = opts.insecure ? ' -k' : opts.caFile ? ` --cacert ${singleQuote(opts.caFile)}` : '';
  const src = TOKEN_SOURCES[kind];
  return (
    `export ${shellVarFor(kind)}="$(curl -sS -g${tls} -H 'content-type: application/json; charset=utf-8' ` +
    `${shellWord(`${baseUrl}${AUTH_PATH}?${authQueryText(`[REDACTED:${src.publicKey}]`, `[REDACTED:${src.secretKey}]`)}`)} | jq -r ${TOKEN_JQ})"`
  );
}

/**
 * How to get every credential some curl lines use, in the order to run them: the key pairs' variables to export,
 * then the token commands. Only what the lines need: a report of app-only findings asks for no other_app key.
 */
export function credentialSteps(lines: string[], baseUrl: string, opts: CurlOptions = {}): string[] {
  const used = new Set(lines.flatMap((l) => [...l.matchAll(/\$\{?([A-Z_]+)/g)].map((m) => m[1]!)));
  const steps: string[] = [];
  const vars = (kinds: string[]): string[] => kinds.map(shellVarFor);
  if (used.has(TOKEN_SHELL_VARS.token))
    steps.push(
      `# ${vars(['public-key', 'secret-key'])
        .map((v) => `$${v}`)
        .join(' and ')}: the application's key pair (app)`,
      tokenCommand(baseUrl, opts, 'token'),
    );
  if (used.has(TOKEN_SHELL_VARS['other-token']))
    steps.push(
      `# ${vars(['other-public-key', 'other-secret-key'])
        .map((v) => `$${v}`)
        .join(' and ')}: the key pair of the second merchant's application (other_app)`,
      tokenCommand(baseUrl, opts, 'other-token'),
    );
  const disabled = CREDENTIALS.disabled_app.token;
  if (used.has(disabled.env))
    steps.push(
      `# $${disabled.env}: the token issued to the disabled application before it was disabled (${disabled.key})`,
    );
  if (used.has('ISSUED_TOKEN'))
    steps.push(
      '# $ISSUED_TOKEN: a token the server issued to a key pair that is neither app nor other_app (shown redacted in the evidence)',
    );
  return steps;
}

/** A body excerpt pretty-printed when it is complete JSON, else as it came. */
export function prettyBody(excerpt: string, truncated: boolean): { text: string; json: boolean } {
  if (!truncated) {
    const t = excerpt.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return { text: stringifyJson(parseJsonExact(t), 2) ?? t, json: true };
      } catch {
        /* not JSON: shown raw */
      }
    }
  }
  return { text: excerpt, json: false };
}

/** A byte count as the reports write it: "1 byte", "1,234 bytes". */
export const bytes = (n: number): string => `${n.toLocaleString('en-US')} byte${n === 1 ? '' : 's'}`;

/** "123 bytes" or "1,234,567 bytes (first 4,096 characters shown)". */
export function sizeNote(r: NonNullable<Exchange['response']>): string {
  return r.truncated
    ? `${bytes(r.body_bytes)} (first ${r.body_excerpt.length.toLocaleString('en-US')} characters shown)`
    : bytes(r.body_bytes);
}

/** Plain-text evidence of one exchange (JUnit, terminals): request, response or error, and the curl line. */
export function exchangeText(e: Exchange, opts: CurlOptions = {}): string {
  const out = [`> ${e.request.method} ${e.request.url}`];
  for (const [k, v] of Object.entries(e.request.headers)) out.push(`> ${k}: ${v}`);
  if (e.response) {
    out.push(`< HTTP ${e.response.status} (${e.duration_ms} ms, body ${sizeNote(e.response)})`);
    for (const [k, v] of Object.entries(e.response.headers)) out.push(`< ${k}: ${v}`);
    const body = prettyBody(e.response.body_excerpt, e.response.truncated).text;
    if (body) out.push('', body);
  } else {
    out.push(`! no response: ${e.error ?? 'unknown error'} (${e.duration_ms} ms)`);
  }
  out.push('', `reproduce: ${curlCommand(e, opts)}`);
  return out.join('\n');
}

/** Which exchanges of a check a report shows: all up to `max`, else the first few and the last ones. */
export function shownExchanges(evidence: Exchange[], max = 30): { shown: Exchange[]; omitted: number; at: number } {
  if (evidence.length <= max) return { shown: evidence, omitted: 0, at: evidence.length };
  const head = Math.floor(max / 3);
  const tail = max - head;
  return { shown: [...evidence.slice(0, head), ...evidence.slice(-tail)], omitted: evidence.length - max, at: head };
}
